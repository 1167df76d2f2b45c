// SPDX-License-Identifier: GPL-2.0-or-later
#include "plugin/statstext.h"

#include <algorithm>
#include <cstdio>

namespace ringside {

namespace {

template <class... Ts>
struct Overloaded : Ts... {
    using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

bool isNumber(const StatsTable::Cell& cell)
{
    return !std::holds_alternative<std::string>(cell) && !std::holds_alternative<StatsTable::Counts>(cell);
}

} // namespace

std::string jsonQuoted(const std::string& s)
{
    std::string out = "\"";
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += char(c);
        } else if (c < 0x20) {
            char esc[8];
            std::snprintf(esc, sizeof esc, "\\u%04x", c);
            out += esc;
        } else {
            out += char(c);
        }
    }
    return out + "\"";
}

std::string cellText(const StatsTable::Cell& cell)
{
    return std::visit(Overloaded{[](int64_t v) { return std::to_string(v); },
                                 [](uint64_t v) { return std::to_string(v); },
                                 [](double v) {
                                     char text[32];
                                     std::snprintf(text, sizeof text, "%.3f", v);
                                     return std::string(text);
                                 },
                                 [](const std::string& v) { return v; },
                                 [](const StatsTable::Counts& counts) {
                                     std::string out;
                                     for (const auto& [name, n] : counts)
                                         out += (out.empty() ? "" : ", ") + name + " " + std::to_string(n);
                                     return out.empty() ? std::string("-") : out;
                                 }},
                      cell);
}

std::string cellJson(const StatsTable::Cell& cell)
{
    if (const auto* text = std::get_if<std::string>(&cell)) return jsonQuoted(*text);
    if (const auto* counts = std::get_if<StatsTable::Counts>(&cell)) {
        std::string out = "{";
        for (const auto& [name, n] : *counts)
            out += (out.size() > 1 ? ", " : "") + jsonQuoted(name) + ": " + std::to_string(n);
        return out + "}";
    }
    if (const auto* d = std::get_if<double>(&cell)) {
        char text[32];
        std::snprintf(text, sizeof text, "%.6g", *d);
        return text;
    }
    return cellText(cell);
}

std::string tableJson(const StatsTable& table)
{
    std::string out = "[";
    for (size_t r = 0; r < table.rows.size(); ++r) {
        out += r ? ",\n  {" : "\n  {";
        for (size_t c = 0; c < table.columns.size() && c < table.rows[r].size(); ++c)
            out += (c ? ", " : "") + jsonQuoted(table.columns[c].key) + ": " + cellJson(table.rows[r][c]);
        out += "}";
    }
    return out + (table.rows.empty() ? "]" : "\n]");
}

std::string tableText(const StatsTable& table)
{
    std::vector<size_t> width(table.columns.size());
    std::vector<std::vector<std::string>> cells;
    for (size_t c = 0; c < table.columns.size(); ++c) width[c] = table.columns[c].title.size();
    for (const auto& row : table.rows) {
        cells.emplace_back();
        for (size_t c = 0; c < table.columns.size() && c < row.size(); ++c) {
            cells.back().push_back(cellText(row[c]));
            width[c] = std::max(width[c], cells.back().back().size());
        }
    }
    // Numbers right-aligned, text left-aligned (by the first row's cells).
    std::vector<bool> right(table.columns.size(), false);
    if (!table.rows.empty())
        for (size_t c = 0; c < right.size() && c < table.rows[0].size(); ++c) right[c] = isNumber(table.rows[0][c]);
    auto line = [&](const std::vector<std::string>& texts) {
        std::string out;
        for (size_t c = 0; c < texts.size(); ++c) {
            const std::string pad(width[c] - texts[c].size(), ' ');
            out += (c ? "  " : "") + (right[c] ? pad + texts[c] : texts[c] + (c + 1 < texts.size() ? pad : ""));
        }
        return out + "\n";
    };
    std::vector<std::string> titles;
    for (const auto& column : table.columns) titles.push_back(column.title);
    std::string out = "# " + table.title + "\n" + line(titles);
    for (const auto& row : cells) out += line(row);
    return out;
}

} // namespace ringside
