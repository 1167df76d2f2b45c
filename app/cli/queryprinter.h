// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "sql/recordingsql.h"

#include <cstdio>
#include <string>
#include <vector>

namespace ringside::cli {

enum class QueryFormat { Table, Csv, Json };

// Prints each statement's result as it arrives: an aligned table (widths from its first rows,
// then streamed), CSV (RFC 4180 quoting, a header line) or JSON (an array of objects per
// statement, one per line).
class QueryPrinter : public sql::ResultSink {
public:
    QueryPrinter(FILE* out, QueryFormat format) : m_out(out), m_format(format) {}
    ~QueryPrinter() override;
    void columns(const std::vector<std::string>& names) override;
    bool row(const std::vector<sql::Value>& values) override;
    // Ends the statement being printed (the table's buffered rows, the JSON array).
    void finish();
    size_t rows() const { return m_rows; }

private:
    void printTableRow(const std::vector<std::string>& cells);
    void flushTable();

    FILE* m_out;
    QueryFormat m_format;
    std::vector<std::string> m_names;
    std::vector<std::vector<std::string>> m_pending; // the table's first rows, for its widths
    std::vector<size_t> m_widths;
    std::vector<bool> m_numeric;
    bool m_open = false, m_widthsKnown = false;
    size_t m_rows = 0, m_statementRows = 0;
};

} // namespace ringside::cli
