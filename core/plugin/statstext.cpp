// SPDX-License-Identifier: GPL-2.0-or-later
#include "plugin/statstext.h"

#include <algorithm>
#include <cstdio>

namespace ringside {

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

bool isNumberColumn(StatsTable::Kind kind)
{
    return kind != StatsTable::Kind::Text && kind != StatsTable::Kind::Label && kind != StatsTable::Kind::Task &&
           kind != StatsTable::Kind::Counts;
}

namespace {

std::string taskText(uint32_t task, const StatsContext& context)
{
    const std::string name = context.taskName ? context.taskName(task) : std::string();
    if (!context.taskPid) return "task " + std::to_string(task);
    return (name.empty() ? std::string("<...>") : name) + " (" + std::to_string(context.taskPid(task)) + ")";
}

uint64_t eventTime(int64_t cell, const StatsContext& context)
{
    const EventRef e = StatsTable::eventOf(cell);
    return context.eventTime ? context.eventTime(e) : (uint64_t(e.stream.value) << 32 | e.index);
}

} // namespace

std::string cellText(const StatsTable& table, size_t column, size_t row, const StatsContext& context)
{
    const StatsTable::Column& c = table.columns[column];
    switch (c.kind) {
    case StatsTable::Kind::Count: return std::to_string(uint64_t(c.numbers[row]));
    case StatsTable::Kind::Number:
    case StatsTable::Kind::Duration:
        return c.numbers[row] == StatsTable::kUnknown ? std::string("-") : std::to_string(c.numbers[row]);
    case StatsTable::Kind::Real: {
        char text[32];
        std::snprintf(text, sizeof text, "%.3f", c.reals[row]);
        return text;
    }
    case StatsTable::Kind::Text: return c.texts[row];
    case StatsTable::Kind::Label: return StatsTable::labelOf(c, row);
    case StatsTable::Kind::Task:
        return c.numbers[row] == StatsTable::kUnknown ? std::string("-") : taskText(uint32_t(c.numbers[row]), context);
    case StatsTable::Kind::Event:
        return c.numbers[row] == StatsTable::kUnknown ? std::string("-")
                                                      : std::to_string(eventTime(c.numbers[row], context));
    case StatsTable::Kind::Counts: {
        std::string out;
        for (const auto& [name, n] : c.counts[row]) out += (out.empty() ? "" : ", ") + name + " " + std::to_string(n);
        return out.empty() ? std::string("-") : out;
    }
    }
    return {};
}

std::string cellJson(const StatsTable& table, size_t column, size_t row, const StatsContext& context)
{
    const StatsTable::Column& c = table.columns[column];
    switch (c.kind) {
    case StatsTable::Kind::Text: return jsonQuoted(c.texts[row]);
    case StatsTable::Kind::Label: return jsonQuoted(StatsTable::labelOf(c, row));
    case StatsTable::Kind::Number:
    case StatsTable::Kind::Duration:
        return c.numbers[row] == StatsTable::kUnknown ? std::string("null") : std::to_string(c.numbers[row]);
    case StatsTable::Kind::Real: {
        char text[32];
        std::snprintf(text, sizeof text, "%.6g", c.reals[row]);
        return text;
    }
    case StatsTable::Kind::Task: {
        if (c.numbers[row] == StatsTable::kUnknown) return "null";
        const auto task = uint32_t(c.numbers[row]);
        const int32_t pid = context.taskPid ? context.taskPid(task) : int32_t(task);
        const std::string name = context.taskName ? context.taskName(task) : std::string();
        return "{\"pid\": " + std::to_string(pid) + ", \"comm\": " + jsonQuoted(name) + "}";
    }
    case StatsTable::Kind::Event:
        return c.numbers[row] == StatsTable::kUnknown ? std::string("null") : cellText(table, column, row, context);
    case StatsTable::Kind::Counts: {
        std::string out = "{";
        for (const auto& [name, n] : c.counts[row])
            out += (out.size() > 1 ? ", " : "") + jsonQuoted(name) + ": " + std::to_string(n);
        return out + "}";
    }
    default: return cellText(table, column, row, context);
    }
}

std::string tableJson(const StatsTable& table, const StatsContext& context)
{
    std::string out = "[";
    const size_t rows = table.rows();
    for (size_t r = 0; r < rows; ++r) {
        out += r ? ",\n  {" : "\n  {";
        for (size_t c = 0; c < table.columns.size(); ++c)
            out += (c ? ", " : "") + jsonQuoted(table.columns[c].key) + ": " + cellJson(table, c, r, context);
        out += "}";
    }
    return out + (rows == 0 ? "]" : "\n]");
}

std::string tableText(const StatsTable& table, const StatsContext& context)
{
    std::vector<size_t> width(table.columns.size());
    std::vector<std::vector<std::string>> cells;
    for (size_t c = 0; c < table.columns.size(); ++c) width[c] = table.columns[c].title.size();
    for (size_t r = 0; r < table.rows(); ++r) {
        cells.emplace_back();
        for (size_t c = 0; c < table.columns.size(); ++c) {
            cells.back().push_back(cellText(table, c, r, context));
            width[c] = std::max(width[c], cells.back().back().size());
        }
    }
    auto line = [&](const std::vector<std::string>& texts) {
        std::string out;
        for (size_t c = 0; c < texts.size(); ++c) {
            const std::string pad(width[c] - texts[c].size(), ' ');
            const bool right = isNumberColumn(table.columns[c].kind);
            out += (c ? "  " : "") + (right ? pad + texts[c] : texts[c] + (c + 1 < texts.size() ? pad : ""));
        }
        return out + "\n";
    };
    // A histogram's counts also as bars of up to 40 characters, to their largest.
    const StatsTable::Column* bars =
        table.barColumn >= 0 && size_t(table.barColumn) < table.columns.size() ? &table.columns[size_t(table.barColumn)]
                                                                                 : nullptr;
    int64_t most = 0;
    if (bars)
        for (int64_t n : bars->numbers) most = std::max(most, n);
    std::vector<std::string> titles;
    for (const auto& column : table.columns) titles.push_back(column.title);
    std::string out =
        "# " + table.title + "\n" + (table.note.empty() ? "" : "# Note: " + table.note + "\n") + line(titles);
    for (size_t r = 0; r < cells.size(); ++r) {
        out += line(cells[r]);
        if (bars && most > 0 && r < bars->numbers.size() && bars->numbers[r] > 0) {
            out.pop_back();
            out += "  " + std::string(size_t(std::max<int64_t>(1, (bars->numbers[r] * 40 + most / 2) / most)), '#') + "\n";
        }
    }
    return out;
}

} // namespace ringside
