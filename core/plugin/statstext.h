// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "plugin/plugintables.h"

#include <functional>
#include <string>

namespace ringside {

// What cells that name a task or an event read as: the recording's names and times (a Trace
// gives them, see statsContext). Without them, a task reads as its id and an event as its
// place in its stream.
struct StatsContext {
    std::function<std::string(uint32_t task)> taskName;
    std::function<int32_t(uint32_t task)> taskPid;
    std::function<uint64_t(EventRef event)> eventTime; // ns
};

// A cell as text: counts and numbers plain, a duration in ns ("-" when unknown), a task as
// "name (pid)", an event as its time in ns, error counts as "E2BIG 3, ENOENT 1".
std::string cellText(const StatsTable& table, size_t column, size_t row, const StatsContext& context = {});
// The cell as a JSON value: a duration null when unknown, a task {"pid": 1, "comm": "init"},
// an event its time in ns, counts {"E2BIG": 3}.
std::string cellJson(const StatsTable& table, size_t column, size_t row, const StatsContext& context = {});
// Whether the column's cells are numbers (aligned right).
bool isNumberColumn(StatsTable::Kind kind);
// A JSON string literal.
std::string jsonQuoted(const std::string& text);
// The table as a JSON array of objects, one per row, keyed by the columns' keys.
std::string tableJson(const StatsTable& table, const StatsContext& context = {});
// The table as aligned text: a header line of titles, then the rows.
std::string tableText(const StatsTable& table, const StatsContext& context = {});

} // namespace ringside
