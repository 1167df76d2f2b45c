// SPDX-License-Identifier: GPL-2.0-or-later
#include "query/filtersyntax.h"

#include "decode/parserstate.h"

#include <traceevent/event-parse.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ringside {

namespace {

struct Token {
    enum Kind { Ident, Number, String, Op, Cmp, Logic, Not, Open, Close, End } kind;
    std::string text;
    size_t pos;
};

bool tokenize(const std::string& s, size_t start, std::vector<Token>& out, std::string* error)
{
    size_t i = start;
    while (i < s.size()) {
        const char c = s[i];
        if (std::isspace(static_cast<unsigned char>(c))) {
            ++i;
            continue;
        }
        const size_t at = i;
        auto two = [&](const char* t) { return s.compare(i, 2, t) == 0; };
        if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
            while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_' || s[i] == '.')) ++i;
            out.push_back({Token::Ident, s.substr(at, i - at), at});
        } else if (std::isdigit(static_cast<unsigned char>(c)) ||
                   (c == '-' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
            ++i;
            while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])))) ++i;
            out.push_back({Token::Number, s.substr(at, i - at), at});
        } else if (c == '"' || c == '\'') {
            const size_t close = s.find(c, i + 1);
            if (close == std::string::npos)
                return *error = "unterminated string at column " + std::to_string(at + 1), false;
            out.push_back({Token::String, s.substr(at, close - at + 1), at});
            i = close + 1;
        } else if (two("&&") || two("||")) {
            out.push_back({Token::Logic, s.substr(i, 2), at});
            i += 2;
        } else if (two("==") || two("!=") || two("<=") || two(">=") || two("=~") || two("!~")) {
            out.push_back({Token::Cmp, s.substr(i, 2), at});
            i += 2;
        } else if (c == '<' || c == '>') {
            out.push_back({Token::Cmp, std::string(1, c), at});
            ++i;
        } else if (c == '!') {
            out.push_back({Token::Not, "!", at});
            ++i;
        } else if (c == '(' || c == ')') {
            out.push_back({c == '(' ? Token::Open : Token::Close, std::string(1, c), at});
            ++i;
        } else if (std::strchr("&|^+-*/%", c)) {
            out.push_back({Token::Op, std::string(1, c), at});
            ++i;
        } else {
            return *error = std::string("unexpected '") + c + "' at column " + std::to_string(at + 1), false;
        }
    }
    out.push_back({Token::End, "", s.size()});
    return true;
}

// expr := term (LOGIC term)* ; term := '!' '(' expr ')' | '(' expr ')' | IDENT [OP atom]* CMP value
// value := atom (OP atom)* ; atom := IDENT | NUMBER | STRING. Stricter than libtraceevent: a
// value must be compared (CMP is not optional), as its parser crashes on some values that are not.
class Parser {
public:
    // Each comparison's place in the text: [begin, end) in characters.
    struct Span {
        size_t begin, end;
    };

    Parser(const std::vector<Token>& tokens, std::vector<std::string>& fields, std::vector<Span>& comparisons)
        : m_t(tokens), m_fields(fields), m_comparisons(comparisons)
    {}

    bool parse(std::string* error)
    {
        if (m_t[0].kind == Token::End) return *error = "no condition after ':'", false;
        if (!expr(error)) return false;
        if (peek().kind != Token::End) return fail(error, "unexpected '" + peek().text + "'");
        return true;
    }

private:
    const Token& peek() const { return m_t[m_i]; }
    bool fail(std::string* error, const std::string& what)
    {
        *error = what + " at column " + std::to_string(peek().pos + 1);
        return false;
    }
    bool expr(std::string* error)
    {
        if (!term(error)) return false;
        while (peek().kind == Token::Logic) {
            ++m_i;
            if (!term(error)) return false;
        }
        return true;
    }
    bool term(std::string* error)
    {
        // Both parsers recurse per '(' and '!': a deep enough nest overflows the stack.
        if ((peek().kind == Token::Not || peek().kind == Token::Open) && m_depth == kMaxDepth)
            return fail(error, "nested more than " + std::to_string(kMaxDepth) + " deep");
        if (peek().kind == Token::Not) {
            ++m_i;
            // libtraceevent frees twice on some bare negations ("a > 5 || !!b == \"x\"").
            if (peek().kind != Token::Open) return fail(error, "'!' negates a condition in parentheses: !(...)");
            ++m_depth;
            const bool ok = term(error);
            --m_depth;
            return ok;
        }
        if (peek().kind == Token::Open) {
            ++m_i;
            ++m_depth;
            const bool ok = expr(error);
            --m_depth;
            if (!ok) return false;
            if (peek().kind != Token::Close) return fail(error, "expected ')'");
            ++m_i;
            return true;
        }
        const size_t start = m_i;
        // libtraceevent wants a field first; its error path for "a < 1 || !1 < 1" frees twice.
        if (peek().kind == Token::Number || peek().kind == Token::String)
            return fail(error, "a condition starts with a field (e.g. 'prev_pid > 0', not '0 < prev_pid')");
        if (!value(error)) return false;
        if (peek().kind == Token::Cmp) {
            const std::string op = peek().text;
            ++m_i;
            if (!value(error)) return fail(error, "expected a value after '" + op + "'");
            const Token& last = m_t[m_i - 1];
            m_comparisons.push_back({m_t[start].pos, last.pos + last.text.size()});
        } else {
            // libtraceevent 1.7.1 crashes on values that are not compared, next to other
            // conditions ("a == 1 || b", "a & 4 || 9", "a == 1 || b & 1 & 2").
            m_i = start;
            return fail(error, "compare this with a value (e.g. 'prev_state & 2 != 0')");
        }
        return true;
    }
    bool value(std::string* error)
    {
        if (!atom())
            return fail(error,
                        peek().kind == Token::End ? "the condition ends too early" : "expected a field or a value");
        while (peek().kind == Token::Op) {
            ++m_i;
            if (!atom()) return fail(error, "expected a value after an operator");
        }
        return true;
    }
    // Every name is a field (libtraceevent reads a name anywhere as one).
    bool atom()
    {
        const Token::Kind k = peek().kind;
        if (k != Token::Ident && k != Token::Number && k != Token::String) return false;
        if (k == Token::Ident) m_fields.push_back(peek().text);
        ++m_i;
        return true;
    }

    static constexpr int kMaxDepth = 64;
    const std::vector<Token>& m_t;
    std::vector<std::string>& m_fields;
    std::vector<Span>& m_comparisons;
    size_t m_i = 0;
    int m_depth = 0;
};

std::string trim(const std::string& s)
{
    const size_t a = s.find_first_not_of(" \t");
    const size_t b = s.find_last_not_of(" \t");
    return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

// The events named before ':' ("sys/event,event"); regex names are skipped. Sets *missing to
// the first plain name that is not in the recording.
std::vector<tep_event*> namedEvents(tep_handle* tep, const std::string& events, std::string* missing)
{
    std::vector<tep_event*> out;
    size_t start = 0;
    while (start <= events.size()) {
        size_t comma = events.find(',', start);
        if (comma == std::string::npos) comma = events.size();
        const std::string name = trim(events.substr(start, comma - start));
        start = comma + 1;
        if (name.empty() || name.find_first_of("*?[]^$.") != std::string::npos) continue;
        const size_t slash = name.find('/');
        tep_event* event = slash == std::string::npos ? tep_find_event_by_name(tep, nullptr, name.c_str())
                                                      : tep_find_event_by_name(tep, name.substr(0, slash).c_str(),
                                                                               name.substr(slash + 1).c_str());
        if (event)
            out.push_back(event);
        else if (missing && missing->empty())
            *missing = name;
    }
    return out;
}

std::string hex(uint64_t v)
{
    char text[32];
    std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(v));
    return text;
}

// `field OP v` for a signed field, written for libtraceevent's unsigned comparison of the
// sign-extended value: negative numbers sit at and above 2^63.
std::string signedComparison(const std::string& field, const std::string& op, int64_t v)
{
    const std::string u = hex(static_cast<uint64_t>(v));
    const std::string negative = field + " >= 0x8000000000000000";
    const std::string nonNegative = field + " < 0x8000000000000000";
    if (op == "==" || op == "!=") return field + " " + op + " " + u;
    const std::string plain = field + " " + op + " " + u;
    const bool below = op == "<" || op == "<=";
    if (v >= 0) return below ? "(" + plain + " || " + negative + ")" : "(" + plain + " && " + nonNegative + ")";
    return below ? "(" + negative + " && " + plain + ")" : "(" + plain + " || " + nonNegative + ")";
}

} // namespace

std::string withSignedComparisons(tep_handle* tep, const std::string& expression)
{
    const size_t colon = expression.find(':');
    if (colon == std::string::npos) return expression;
    const std::vector<tep_event*> events = namedEvents(tep, trim(expression.substr(0, colon)), nullptr);
    if (events.empty()) return expression;
    std::vector<Token> tokens;
    std::string error;
    if (!tokenize(expression, colon + 1, tokens, &error)) return expression;
    auto isSigned = [&](const std::string& name) {
        for (tep_event* e : events) {
            tep_format_field* f = tep_find_any_field(e, name.c_str());
            if (!f || !(f->flags & TEP_FIELD_IS_SIGNED) || (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_STRING)))
                return false;
        }
        return true;
    };
    std::string out = expression.substr(0, colon + 1);
    for (size_t i = 0; i < tokens.size() && tokens[i].kind != Token::End; ++i) {
        const bool comparison = i + 2 < tokens.size() && tokens[i].kind == Token::Ident &&
                                tokens[i + 1].kind == Token::Cmp && tokens[i + 2].kind == Token::Number &&
                                tokens[i + 1].text != "=~" && tokens[i + 1].text != "!~" &&
                                (i == 0 || tokens[i - 1].kind != Token::Op) && tokens[i + 3].kind != Token::Op;
        if (comparison && isSigned(tokens[i].text)) {
            char* end = nullptr;
            errno = 0;
            const long long v = std::strtoll(tokens[i + 2].text.c_str(), &end, 0);
            if (errno == 0 && end && *end == '\0') {
                out += " " + signedComparison(tokens[i].text, tokens[i + 1].text, v);
                i += 2;
                continue;
            }
        }
        out += " " + tokens[i].text;
    }
    return out;
}

std::string checkFilterSyntax(tep_handle* tep, const std::string& expression)
{
    const std::string text = trim(expression);
    if (text.empty()) return "the filter is empty";
    // libtraceevent's tokenizer crashes on bytes outside printable ASCII, even inside quotes.
    for (size_t at = 0; at < text.size(); ++at) {
        const unsigned char c = static_cast<unsigned char>(text[at]);
        if ((c < 0x20 && c != '\t' && c != '\n') || c >= 0x7f)
            return "only printable ASCII is allowed (column " + std::to_string(at + 1) + ")";
    }
    const size_t colon = text.find(':');
    const std::string events = trim(text.substr(0, colon));
    if (events.empty()) return "name the events before ':' (for example sched/sched_switch: ...)";
    if (colon == std::string::npos) return {};
    // libtraceevent splits the event names at commas before it finds the ':', and a comma after it
    // (in a quoted string too) makes it allocate a negative size.
    if (const size_t comma = text.find(',', colon); comma != std::string::npos)
        return "no ',' after ':' (column " + std::to_string(comma + 1) + ")";
    if (text.size() - colon - 1 > kMaxFilterCondition)
        return "the condition after ':' is longer than " + std::to_string(kMaxFilterCondition) + " characters";

    std::vector<Token> tokens;
    std::string error;
    if (!tokenize(text, colon + 1, tokens, &error)) return error;
    std::vector<std::string> fields;
    std::vector<Parser::Span> comparisons;
    Parser parser(tokens, fields, comparisons);
    if (!parser.parse(&error)) return error;

    // Fields must exist in every named event (when the names are plain, not regexes).
    std::string missing;
    const std::vector<tep_event*> named = namedEvents(tep, events, &missing);
    if (!missing.empty()) return "no event named '" + missing + "' in this recording";
    for (tep_event* event : named)
        for (const std::string& field : fields)
            if (field != "COMM" && field != "CPU" && !tep_find_any_field(event, field.c_str())) {
                // Appended piece by piece: GCC 12 warns (-Wrestrict, falsely) on "'" + std::string(...).
                std::string message = "'";
                message.append(event->system).append("/").append(event->name);
                message.append("' has no field '").append(field).append("'");
                return message;
            }

    // libtraceevent frees twice when a comparison it refuses (a field on the right, '<' on a
    // string, ...) follows another condition; alone, it refuses it cleanly. So each comparison
    // goes to it alone first.
    const auto lock = lockTraceEventParser();
    for (const Parser::Span& span : comparisons) {
        tep_event_filter* filter = tep_filter_alloc(tep);
        if (!filter) return "out of memory";
        const std::string alone = text.substr(0, colon + 1) + " " + text.substr(span.begin, span.end - span.begin);
        const tep_errno rc = tep_filter_add_filter_str(filter, alone.c_str());
        char refused[256] = {0};
        if (rc < 0) tep_filter_strerror(filter, rc, refused, sizeof refused);
        tep_filter_free(filter);
        if (rc < 0) {
            // libtraceevent's message points into the text with a caret line: keep its last line.
            std::string why = refused;
            while (!why.empty() && why.back() == '\n') why.pop_back();
            if (const size_t nl = why.rfind('\n'); nl != std::string::npos) why.erase(0, nl + 1);
            return (why.empty() ? std::string("libtraceevent refuses this comparison") : why) + " (column " +
                   std::to_string(span.begin + 1) + ")";
        }
    }
    return {};
}

} // namespace ringside
