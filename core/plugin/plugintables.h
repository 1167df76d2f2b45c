// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace ringside {

// What a plugin produces, as typed tables the app draws generically: the timeline, the table
// and details panes and `ringside-cli stats` read the same tables. Plain columns, no Qt.

// Where a row of a table belongs on the timeline.
enum class RowOwner : uint8_t { Task, Cpu };

// A state over time: one state at a time per owner (a task's running/runnable/sleeping).
struct IntervalTable {
    struct State {
        std::string name;
        uint32_t rgb = 0x808080;
    };
    std::string name;
    RowOwner owner = RowOwner::Task;
    std::vector<State> states;
    std::vector<uint64_t> start, end;
    std::vector<int32_t> ownerId; // pid, or stream for RowOwner::Cpu
    std::vector<uint16_t> state;  // index into states

    size_t size() const { return start.size(); }
    void add(uint64_t from, uint64_t to, int32_t who, uint16_t s)
    {
        start.push_back(from), end.push_back(to), ownerId.push_back(who), state.push_back(s);
    }
};

// Named spans that may nest (depth 0 outermost): a system call, a work item's run.
struct SliceTable {
    enum Flag : uint8_t { kError = 0x01, kOpen = 0x02 };
    std::string name;
    RowOwner owner = RowOwner::Task;
    std::vector<std::string> labels; // label ids index this
    std::vector<uint64_t> start, end;
    std::vector<int32_t> ownerId;
    std::vector<uint8_t> depth;
    std::vector<uint32_t> label;
    std::vector<int64_t> value; // what the slice returned or measured (a return value)
    std::vector<uint8_t> flags;
    // What `value` is: empty for a return value ("= -7"), else a duration in ns shown as
    // "(valueLabel 1.2 ms)".
    std::string valueLabel;

    size_t size() const { return start.size(); }
    void add(uint64_t from, uint64_t to, int32_t who, uint8_t d, uint32_t l, int64_t v, uint8_t f)
    {
        start.push_back(from), end.push_back(to), ownerId.push_back(who), depth.push_back(d), label.push_back(l),
            value.push_back(v), flags.push_back(f);
    }
};

// Moments: a fork, an exec, a migration.
struct InstantTable {
    std::string name;
    RowOwner owner = RowOwner::Task;
    std::vector<std::string> labels;
    std::vector<uint64_t> time;
    std::vector<int32_t> ownerId;
    std::vector<uint32_t> label;

    size_t size() const { return time.size(); }
};

// A value over time per owner.
struct CounterTable {
    std::string name;
    RowOwner owner = RowOwner::Task;
    std::vector<uint64_t> time;
    std::vector<int32_t> ownerId;
    std::vector<int64_t> value;

    size_t size() const { return time.size(); }
};

// Arrows from one event to another: a wakeup to the switch that ran the woken task.
struct FlowTable {
    std::string name;
    RowOwner owner = RowOwner::Task;
    std::vector<uint64_t> fromTime, toTime;
    std::vector<int32_t> fromOwner, toOwner;
    std::vector<int64_t> value; // e.g. the latency

    size_t size() const { return fromTime.size(); }
};

// A statistics table: named columns, rows of cells. `key` names it in JSON output, each column
// key a member of a row's object.
struct StatsTable {
    // A count per name ({"E2BIG": 1}), kept in the order first seen.
    using Counts = std::vector<std::pair<std::string, int64_t>>;
    using Cell = std::variant<int64_t, uint64_t, double, std::string, Counts>;
    struct Column {
        std::string key, title;
    };
    std::string key, title;
    std::vector<Column> columns;
    std::vector<std::vector<Cell>> rows;
};

// Everything a plugin shows for one recording.
struct PluginTables {
    std::vector<IntervalTable> intervals;
    std::vector<SliceTable> slices;
    std::vector<InstantTable> instants;
    std::vector<CounterTable> counters;
    std::vector<FlowTable> flows;
    std::vector<StatsTable> statistics;
};

} // namespace ringside
