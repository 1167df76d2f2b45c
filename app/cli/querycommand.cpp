// SPDX-License-Identifier: GPL-2.0-or-later
// `ringside-cli query FILE [SQL] [--file Q.sql] [--format table|csv|json]`: SQL over a
// recording, or an interactive prompt on a terminal.
#include "commands.h"

#include "pluginchoice.h"
#include "queryprinter.h"
#include "sql/recordingsql.h"
#include "trace.h"

#include <editline/readline.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <unistd.h>

namespace ringside::cli {

namespace {

const char* const kQueryUsage =
    "usage: ringside-cli query FILE [SQL | --file Q.sql] [--format table|csv|json] [--timing]\n"
    "                          [--plugin NAME]... [--no-plugin NAME]...\n"
    "       Without SQL on a terminal: an interactive prompt (.tables, .schema, .help).\n";

sql::RecordingSql* g_running = nullptr;
volatile std::sig_atomic_t g_interrupts = 0;

void onInterrupt(int)
{
    g_interrupts = 1;
    if (g_running) g_running->interrupt();
}

// Ctrl+C interrupts the query running, not the program (a second one at the prompt ends it).
void catchInterrupts()
{
    struct sigaction action {};
    action.sa_handler = onInterrupt;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
}

long statusKb(const char* key)
{
    std::ifstream status("/proc/self/status");
    std::string line;
    const size_t n = std::strlen(key);
    while (std::getline(status, line))
        if (line.compare(0, n, key) == 0) return std::atol(line.c_str() + n);
    return -1;
}

// Says where `sql` went wrong: line and column, the line itself and a caret under the place.
void printError(const std::string& sql, const sql::RunOutcome& outcome)
{
    if (outcome.offset < 0 || size_t(outcome.offset) > sql.size()) {
        std::fprintf(stderr, "ringside-cli: %s\n", outcome.message.c_str());
        return;
    }
    const size_t at = size_t(outcome.offset);
    size_t lineStart = 0, line = 1;
    for (size_t i = 0; i < at; ++i)
        if (sql[i] == '\n') lineStart = i + 1, ++line;
    const size_t lineEnd = std::min(sql.size(), sql.find('\n', at));
    const std::string text(sql.data() + lineStart, lineEnd - lineStart);
    std::fprintf(stderr, "ringside-cli: SQL error at line %zu, column %zu: %s\n  %s\n  %s^\n", line, at - lineStart + 1,
                 outcome.message.c_str(), text.c_str(), std::string(at - lineStart, ' ').c_str());
}

struct Session {
    const Trace& trace;
    sql::RecordingSql& sql;
    QueryFormat format = QueryFormat::Table;
    bool timing = false;
};

// Runs `text`; false when it failed or was interrupted.
bool runQuery(Session& s, const std::string& text)
{
    QueryPrinter printer(stdout, s.format);
    const auto start = std::chrono::steady_clock::now();
    // The peak from here on is the query's (Linux resets it on "5").
    if (s.timing)
        if (FILE* refs = std::fopen("/proc/self/clear_refs", "w")) std::fputs("5", refs), std::fclose(refs);
    const long before = statusKb("VmRSS:");
    g_running = &s.sql;
    // A Ctrl+C that came before the query began (its interrupt is cleared as it starts) stops
    // it at its first steps: the handler is asked now and then.
    const sql::RunOutcome outcome = s.sql.run(text, printer, [&s](uint64_t, uint64_t) {
        if (g_interrupts) s.sql.interrupt();
    });
    g_running = nullptr;
    printer.finish();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!outcome.ok) {
        if (outcome.interrupted)
            std::fprintf(stderr, "ringside-cli: query interrupted after %.3f s; nothing was written\n", seconds);
        else
            printError(text, outcome);
    }
    if (s.timing)
        std::fprintf(stderr, "query_s=%.3f rows=%zu store_rows_read=%llu rss_before_kb=%ld peak_rss_kb=%ld\n", seconds,
                     printer.rows(), static_cast<unsigned long long>(s.sql.rowsRead()), before, statusKb("VmHWM:"));
    return outcome.ok;
}

void printTables(const sql::RecordingSql& sql)
{
    for (const sql::TableInfo& t : sql.tables()) std::printf("%-32s %s\n", t.name.c_str(), t.kind.c_str());
}

// `.command` of the prompt; false for `.quit`.
bool dotCommand(Session& s, const std::string& line)
{
    std::istringstream words(line);
    std::string command, argument;
    words >> command >> argument;
    if (command == ".quit" || command == ".exit") return false;
    if (command == ".tables") {
        printTables(s.sql);
    } else if (command == ".schema") {
        for (const sql::TableInfo& t : s.sql.tables())
            if (argument.empty() || t.name == argument) std::printf("%s\n", sql::RecordingSql::schemaOf(t).c_str());
        if (!argument.empty() && !s.sql.table(argument)) std::fprintf(stderr, "no table %s\n", argument.c_str());
    } else if (command == ".format" && (argument == "table" || argument == "csv" || argument == "json")) {
        s.format = argument == "table" ? QueryFormat::Table : argument == "csv" ? QueryFormat::Csv : QueryFormat::Json;
    } else if (command == ".timing") {
        s.timing = argument != "off";
    } else {
        std::printf(".tables               the tables of this recording and what each comes from\n"
                    ".schema [TABLE]       their columns\n"
                    ".format table|csv|json\n"
                    ".timing on|off        time and memory of each query\n"
                    ".quit                 (or Ctrl+D)\n"
                    "A statement ends with ';'. Ctrl+C stops a query that runs too long.\n");
    }
    return true;
}

// Names to complete: tables, their columns, a few keywords.
std::vector<std::string> g_words;

char* completeWord(const char* text, int state)
{
    static size_t next = 0;
    if (state == 0) next = 0;
    const size_t n = std::strlen(text);
    while (next < g_words.size()) {
        const std::string& word = g_words[next++];
        if (word.compare(0, n, text) == 0) return strdup(word.c_str());
    }
    return nullptr;
}

std::string historyPath()
{
    const char* state = std::getenv("XDG_STATE_HOME");
    const char* home = std::getenv("HOME");
    if (state && *state) return std::string(state) + "/ringside_query_history";
    return home ? std::string(home) + "/.ringside_query_history" : std::string();
}

int interactive(Session& s)
{
    for (const sql::TableInfo& t : s.sql.tables()) {
        g_words.push_back(t.name);
        for (const sql::Column& c : t.columns) g_words.push_back(c.name);
    }
    for (const char* k :
         {"SELECT", "FROM", "WHERE", "GROUP BY", "ORDER BY", "LIMIT", "JOIN", "USING", "count(*)", "EXTRACT_ARG("})
        g_words.push_back(k);
    std::sort(g_words.begin(), g_words.end());
    g_words.erase(std::unique(g_words.begin(), g_words.end()), g_words.end());
    rl_completion_entry_function = completeWord;
    const std::string history = historyPath();
    if (!history.empty()) read_history(history.c_str());
    std::printf("%s: %zu events, %zu tables. .help for help, Ctrl+D to leave.\n", s.trace.file().path().c_str(),
                s.trace.store().eventCount(), s.sql.tables().size());
    std::string pending;
    for (;;) {
        g_interrupts = 0;
        char* raw = readline(pending.empty() ? "ringside> " : "     ...> ");
        if (!raw) {
            if (g_interrupts) { // Ctrl+C at the prompt drops what was typed
                pending.clear();
                std::printf("\n");
                continue;
            }
            std::printf("\n");
            break;
        }
        std::string line(raw);
        std::free(raw);
        if (pending.empty() && line.rfind('.', 0) == 0) {
            add_history(line.c_str());
            if (!dotCommand(s, line)) break;
            continue;
        }
        pending += pending.empty() ? line : "\n" + line;
        if (!sql::RecordingSql::complete(pending)) continue;
        add_history(pending.c_str());
        runQuery(s, pending);
        pending.clear();
    }
    if (!history.empty()) write_history(history.c_str());
    return 0;
}

// A script: SQL statements, and `.commands` on lines of their own between them.
bool runScript(Session& s, const std::string& text)
{
    std::istringstream lines(text);
    std::string line, pending;
    bool ok = true;
    while (std::getline(lines, line)) {
        if (pending.find_first_not_of(" \t\r\n") == std::string::npos && line.rfind('.', 0) == 0) {
            pending.clear();
            if (!dotCommand(s, line)) return ok;
            continue;
        }
        pending += line + "\n";
    }
    if (pending.find_first_not_of(" \t\r\n") != std::string::npos) ok = runQuery(s, pending);
    return ok;
}

} // namespace

int queryCommand(const std::vector<std::string>& args)
{
    std::string path, text, file;
    bool timing = false, haveText = false;
    QueryFormat format = QueryFormat::Table;
    PluginChoice choice;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--format" && i + 1 < args.size()) {
            const std::string& f = args[++i];
            if (f != "table" && f != "csv" && f != "json") return std::fputs(kQueryUsage, stderr), 2;
            format = f == "table" ? QueryFormat::Table : f == "csv" ? QueryFormat::Csv : QueryFormat::Json;
        } else if (a == "--file" && i + 1 < args.size()) {
            file = args[++i];
        } else if (a == "--timing") {
            timing = true;
        } else if (choice.parse(args, i)) {
            continue;
        } else if (path.empty() && !a.empty() && a[0] != '-') {
            path = a;
        } else if (!haveText && !a.empty() && a[0] != '-') {
            text = a, haveText = true;
        } else {
            return std::fputs(kQueryUsage, stderr), 2;
        }
    }
    if (path.empty() || (haveText && !file.empty())) return std::fputs(kQueryUsage, stderr), 2;
    if (!file.empty()) {
        std::ifstream in(file, std::ios::binary);
        if (!in)
            return std::fprintf(stderr, "ringside-cli: %s: cannot open: %s\n", file.c_str(), std::strerror(errno)), 1;
        std::ostringstream all;
        all << in.rdbuf();
        text = all.str(), haveText = true;
    } else if (!haveText && !isatty(STDIN_FILENO)) {
        std::ostringstream all;
        all << std::cin.rdbuf();
        text = all.str(), haveText = true;
    }

    std::vector<std::unique_ptr<Plugin>> plugins;
    std::string error;
    if (!choice.instantiate(plugins, error)) return std::fprintf(stderr, "ringside-cli: %s\n", error.c_str()), 1;
    const auto start = std::chrono::steady_clock::now();
    auto trace = Trace::open(path, LoadOptions(), {}, std::move(plugins));
    if (!trace) return std::fprintf(stderr, "ringside-cli: %s\n", trace.error().message.c_str()), 1;
    noteFailures(**trace, path);
    auto sql = sql::RecordingSql::open(**trace);
    if (!sql) return std::fprintf(stderr, "ringside-cli: %s\n", sql.error().message.c_str()), 1;
    // Before the load's figures: who reads them (a test) knows Ctrl+C is the query's from then.
    catchInterrupts();
    if (timing)
        std::fprintf(stderr, "load_s=%.3f events=%zu peak_rss_kb=%ld\n",
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
                     (*trace)->store().eventCount(), statusKb("VmHWM:"));
    Session session{**trace, **sql, format, timing};
    if (!haveText) return interactive(session);
    if (!runScript(session, text)) return g_interrupts ? 130 : 1;
    return 0;
}

} // namespace ringside::cli
