// SPDX-License-Identifier: GPL-2.0-or-later
#include "queryprinter.h"

#include "plugin/statstext.h"

#include <algorithm>

namespace ringside::cli {

namespace {

constexpr size_t kWidthRows = 1000; // the table's widths come from its first rows
constexpr size_t kMaxWidth = 60;

std::string csvCell(const std::string& text)
{
    if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
    std::string out = "\"";
    for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

std::string jsonValue(const sql::Value& v)
{
    switch (v.kind) {
    case sql::Value::Kind::Null: return "null";
    case sql::Value::Kind::Integer:
    case sql::Value::Kind::Real: return v.toString();
    case sql::Value::Kind::Text: return jsonQuoted(v.text);
    }
    return "null";
}

// A cell on one line of the table: line breaks and tabs as spaces.
std::string tableCell(const sql::Value& v)
{
    if (v.kind == sql::Value::Kind::Null) return "NULL";
    std::string text = v.toString();
    std::replace_if(
        text.begin(), text.end(), [](char c) { return c == '\n' || c == '\r' || c == '\t'; }, ' ');
    return text;
}

} // namespace

QueryPrinter::~QueryPrinter()
{
    finish();
}

void QueryPrinter::columns(const std::vector<std::string>& names)
{
    finish();
    m_names = names;
    m_open = true;
    m_statementRows = 0;
    m_widthsKnown = false;
    m_pending.clear();
    m_widths.assign(names.size(), 0);
    m_numeric.assign(names.size(), true);
    if (m_format == QueryFormat::Csv) {
        for (size_t c = 0; c < names.size(); ++c) std::fprintf(m_out, "%s%s", c ? "," : "", csvCell(names[c]).c_str());
        std::fputc('\n', m_out);
    } else if (m_format == QueryFormat::Json) {
        std::fputc('[', m_out);
    }
}

bool QueryPrinter::row(const std::vector<sql::Value>& values)
{
    ++m_rows;
    const size_t n = m_statementRows++;
    switch (m_format) {
    case QueryFormat::Csv:
        for (size_t c = 0; c < values.size(); ++c)
            std::fprintf(m_out, "%s%s", c ? "," : "", csvCell(values[c].toString()).c_str());
        std::fputc('\n', m_out);
        break;
    case QueryFormat::Json:
        std::fprintf(m_out, "%s{", n ? ",\n " : "");
        for (size_t c = 0; c < values.size(); ++c)
            std::fprintf(m_out, "%s%s: %s", c ? ", " : "", jsonQuoted(m_names[c]).c_str(),
                         jsonValue(values[c]).c_str());
        std::fputc('}', m_out);
        break;
    case QueryFormat::Table: {
        std::vector<std::string> cells;
        for (size_t c = 0; c < values.size(); ++c) {
            cells.push_back(tableCell(values[c]));
            if (values[c].kind == sql::Value::Kind::Text) m_numeric[c] = false;
        }
        if (m_widthsKnown) {
            printTableRow(cells);
        } else {
            m_pending.push_back(std::move(cells));
            if (m_pending.size() >= kWidthRows) flushTable();
        }
        break;
    }
    }
    return true;
}

void QueryPrinter::finish()
{
    if (!m_open) return;
    m_open = false;
    if (m_format == QueryFormat::Json) std::fputs("]\n", m_out);
    if (m_format == QueryFormat::Table) {
        if (!m_widthsKnown) flushTable();
        std::fprintf(m_out, "(%zu row%s)\n", m_statementRows, m_statementRows == 1 ? "" : "s");
    }
    std::fflush(m_out);
}

void QueryPrinter::flushTable()
{
    for (size_t c = 0; c < m_names.size(); ++c) {
        m_widths[c] = m_names[c].size();
        for (const auto& cells : m_pending) m_widths[c] = std::max(m_widths[c], cells[c].size());
        m_widths[c] = std::min(m_widths[c], kMaxWidth);
    }
    m_widthsKnown = true;
    printTableRow(m_names);
    std::string rule;
    for (size_t c = 0; c < m_names.size(); ++c) rule += (c ? "  " : "") + std::string(m_widths[c], '-');
    std::fprintf(m_out, "%s\n", rule.c_str());
    for (const auto& cells : m_pending) printTableRow(cells);
    m_pending.clear();
}

void QueryPrinter::printTableRow(const std::vector<std::string>& cells)
{
    std::string line;
    for (size_t c = 0; c < cells.size(); ++c) {
        const std::string& cell = cells[c];
        const size_t pad = m_widths[c] > cell.size() ? m_widths[c] - cell.size() : 0;
        const bool last = c + 1 == cells.size();
        if (c) line += "  ";
        if (m_numeric[c])
            line += std::string(pad, ' ') + cell;
        else
            line += last ? cell : cell + std::string(pad, ' ');
    }
    std::fprintf(m_out, "%s\n", line.c_str());
}

} // namespace ringside::cli
