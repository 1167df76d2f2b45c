// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "store/ids.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ringside {

// What analyses produce: typed tables the app draws without knowing the analysis (the
// timeline, the details and statistics panes, `ringside-cli stats`), the built-in analyses and
// the plugins alike. Track tables (intervals, slices, instants, counters, flows) are filled
// row by row as records arrive, through the sinks the core hands out (TableSink); the core
// keeps them (compactly: a row anchored at events of the store costs a few bytes) and shows
// them as they grow. Statistics are plain tables an analysis makes on request.

// Where a row belongs on the timeline: a task's row or a CPU's, or (counters only) one row for
// the whole recording. Owners are numbers: a task is one life of a pid (ConsumedRecord::task, a
// TaskId's value), a CPU one stream of one buffer (StreamId's value), the recording 0.
enum class RowOwner : uint8_t { Task, Cpu, Recording };

// ---- Track tables: what each is, then its sink.

// A named state with its colour (0xRRGGBB).
struct StateName {
    std::string name;
    uint32_t rgb = 0x808080;
};

// A state over time, one at a time per owner: a task running, runnable, sleeping.
struct IntervalTableSpec {
    std::string key;   // stable, for scripts and SQL: "task_states"
    std::string title; // as shown: "Task states"
    RowOwner owner = RowOwner::Task;
    std::vector<StateName> states; // a row's state indexes this
    // The state is a task (a TaskId's value), named and coloured as the task is everywhere:
    // which task ran on a CPU.
    bool statesAreTasks = false;
    // The Perfetto table these rows also are in SQL, with Perfetto's columns, or empty:
    // "thread_state" (a task's scheduling states, named as sched_switch's prev_state reads)
    // or "sched_slice" (the tasks that ran on each CPU: states are tasks, owners CPUs).
    std::string perfettoTable = {};
    // The rows are a task's stays in a KVM guest, each from a kvm_entry to the kvm_exit that
    // ends it (an event of the task at the row's end): what the host–guest view draws on a
    // vCPU thread's row, and says the exit of.
    bool guestStays = false;
};

// Named spans that may nest (depth 0 outermost): a system call, a work item's run.
struct SliceTableSpec {
    std::string key, title;
    RowOwner owner = RowOwner::Task;
    // What a slice's value is: empty for a return value ("= -7"), else a duration in ns shown
    // as "(valueLabel 1.2 ms)".
    std::string valueLabel;
    // The value is the field of this name of the slice's end event (a system call's `ret`):
    // not stored, read from the event when shown.
    std::string valueField;
    uint32_t rgb = 0x3a6ea5; // the slices' colour (0xRRGGBB); failed ones are red
    // The slices are system calls, each ending at its exit event: what a function_graph
    // call's context pairs with (the call that ran it, its return value).
    bool systemCalls = false;
    // Drawn as a flame chart in a row of its own under its owner's (a lane per depth, each
    // label in a colour of its own), not along the owner's bar: function calls, deep and many.
    bool flameChart = false;
    // Drawn in a row of its own under its owner's, always shown, the labels inside the slices
    // (a CPU's idle states: a track under each CPU), not along the owner's bar.
    bool ownRow = false;
};

// Moments: a fork, an exec, a migration.
struct InstantTableSpec {
    std::string key, title;
    RowOwner owner = RowOwner::Task;
    std::vector<std::string> labels; // a row's label indexes this
};

// A value over time per owner, drawn as a line: a queue's depth, a frequency.
struct CounterTableSpec {
    std::string key, title;
    RowOwner owner = RowOwner::Task;
    std::string unit; // "", "ns", "bytes", "%", "kHz"
    // In SQL each owner's values are a track of Perfetto's `counter` table, named as Perfetto
    // names it ("cpufreq"; "{cpu}" stands for the owner's CPU: "Cpu {cpu} Max Freq Limit") and
    // of its type ("cpu_frequency"); empty: the key.
    std::string trackName = {}, trackType = {};
    // Drawn on the timeline; false for values only SQL reads (cpuidle's raw states, which the
    // idle slices show).
    bool drawn = true;
};

// Arrows from a moment of one owner to a moment of another: a wakeup to the switch that ran
// the woken task, a work item's queuing to its run.
struct FlowTableSpec {
    std::string key, title;
    RowOwner owner = RowOwner::Task;
    std::string valueLabel; // what the value is ("latency"): a duration in ns
};

// A slice as an analysis adds it.
struct Slice {
    enum Flag : uint8_t {
        kError = 0x01,     // failed (a system call's negative errno): drawn in red at any zoom
        kOpen = 0x02,      // no end seen: it runs to the end of the recording
        kNoStart = 0x04,   // its start was not recorded: began before the recording or a gap
        kNoValue = 0x08,   // its value was not recorded (a call whose exit has no return value)
        kInterrupt = 0x10, // ran in interrupt context (a function_graph call): a shade of its own
    };
    uint64_t start = 0, end = 0;
    uint32_t owner = 0;
    uint32_t label = 0; // SliceSink::label()
    int64_t value = 0;  // see SliceTableSpec::valueLabel and valueField
    uint8_t depth = 0;
    uint8_t flags = 0;
    // The events the slice began and ended at, when the analysis knows them: a row anchored at
    // events of one stream is kept in a few bytes (its times and owner are the store's).
    // ConsumedRecord::stream and ::index name them; fed in pieces, index counts from the
    // stretch's start, as the record's does.
    EventRef startEvent, endEvent;
};

// The sinks: every add() may come from any thread (consumers fed in pieces add from the
// parser's threads); rows become visible when the batch that made them ends. An owner's rows
// come in time order (of their start, within a depth); different owners' in any order.
class IntervalSink {
public:
    virtual ~IntervalSink() = default;
    virtual void add(uint64_t start, uint64_t end, uint32_t owner, uint32_t state) = 0;
    // The state `owner` is in now: from `start` until its next row (or the end of the
    // recording). The owner's next add() or open() replaces it.
    virtual void open(uint64_t start, uint32_t owner, uint32_t state) = 0;
};

// A slice table's rows anchored at events of the stretch a piece is being fed (see
// StreamPiece), for a consumer that adds millions: what add(const Slice&) would keep of such a
// slice, without working out per row where it goes.
class AnchoredSliceRows {
public:
    virtual ~AnchoredSliceRows() = default;
    // A slice that ends at the stretch's event `end` (index as ConsumedRecord::index), began
    // `back` events before it (0: its start was not recorded, and `flags` says kNoStart), with
    // depth 0; after the last one's end. False when it cannot be kept so: add it as a Slice.
    virtual bool add(uint32_t end, uint32_t back, uint32_t label, uint8_t flags) = 0;
};

class SliceSink {
public:
    virtual ~SliceSink() = default;
    // The id of a label ("read", a function's name): the same text, the same id.
    virtual uint32_t label(std::string_view text) = 0;
    virtual void add(const Slice& slice) = 0;
    // The rows of the stretch whose piece this thread is feeding, or nullptr (outside a piece,
    // or a table that keeps none). Valid until the piece's end().
    virtual AnchoredSliceRows* anchoredRows() { return nullptr; }
};

class InstantSink {
public:
    virtual ~InstantSink() = default;
    virtual void add(uint64_t time, uint32_t owner, uint32_t label) = 0;
};

class CounterSink {
public:
    virtual ~CounterSink() = default;
    virtual void add(uint64_t time, uint32_t owner, int64_t value) = 0;
};

class FlowSink {
public:
    virtual ~FlowSink() = default;
    virtual void add(uint64_t fromTime, uint32_t fromOwner, uint64_t toTime, uint32_t toOwner, int64_t value) = 0;
};

// Where an analysis declares its track tables (RecordConsumer::setTables, before bind): each
// call makes a table and returns its sink, which stays valid as long as the analysis.
class TableSink {
public:
    virtual ~TableSink() = default;
    virtual IntervalSink& intervals(const IntervalTableSpec& spec) = 0;
    virtual SliceSink& slices(const SliceTableSpec& spec) = 0;
    virtual InstantSink& instants(const InstantTableSpec& spec) = 0;
    virtual CounterSink& counters(const CounterTableSpec& spec) = 0;
    virtual FlowSink& flows(const FlowTableSpec& spec) = 0;
};

// ---- Statistics: named, typed columns.

// A statistics column's numbers, read and appended as int64_t: 4 bytes a cell while every
// value fits (counts, tasks, labels, return values), 8 from the first that does not (an
// event, a long duration). A table of hundreds of thousands of failures is made while the
// sums it comes from are still held: its width is the load's peak.
class NumberCells {
public:
    void push_back(int64_t value)
    {
        if (!m_wide && fits(value)) {
            m_narrow.push_back(value == kUnknownValue ? kNarrowUnknown : int32_t(value));
            return;
        }
        if (!m_wide) widen();
        m_values.push_back(value);
    }
    void reserve(size_t cells) { m_wide ? m_values.reserve(cells) : m_narrow.reserve(cells); }
    size_t size() const { return m_wide ? m_values.size() : m_narrow.size(); }
    bool empty() const { return size() == 0; }
    int64_t operator[](size_t i) const
    {
        if (m_wide) return m_values[i];
        const int32_t v = m_narrow[i];
        return v == kNarrowUnknown ? kUnknownValue : v;
    }
    int64_t back() const { return (*this)[size() - 1]; }
    size_t memoryBytes() const { return m_narrow.capacity() * sizeof(int32_t) + m_values.capacity() * sizeof(int64_t); }
    bool operator==(const NumberCells& other) const
    {
        if (size() != other.size()) return false;
        for (size_t i = 0; i < size(); ++i)
            if ((*this)[i] != other[i]) return false;
        return true;
    }

    class Iterator {
    public:
        using value_type = int64_t;
        using difference_type = std::ptrdiff_t;
        Iterator(const NumberCells* cells, size_t i) : m_cells(cells), m_i(i) {}
        int64_t operator*() const { return (*m_cells)[m_i]; }
        Iterator& operator++()
        {
            ++m_i;
            return *this;
        }
        bool operator==(const Iterator& other) const { return m_i == other.m_i; }

    private:
        const NumberCells* m_cells;
        size_t m_i;
    };
    Iterator begin() const { return {this, 0}; }
    Iterator end() const { return {this, size()}; }

private:
    // StatsTable::kUnknown, kept narrow as the one int32_t no narrow value is.
    static constexpr int64_t kUnknownValue = std::numeric_limits<int64_t>::min();
    static constexpr int32_t kNarrowUnknown = std::numeric_limits<int32_t>::min();
    static bool fits(int64_t v) { return v == kUnknownValue || (v > kNarrowUnknown && v <= std::numeric_limits<int32_t>::max()); }
    void widen()
    {
        m_values.reserve(std::max(m_narrow.capacity(), m_narrow.size() + 1));
        for (size_t i = 0; i < m_narrow.size(); ++i) m_values.push_back((*this)[i]);
        m_wide = true;
        std::vector<int32_t>().swap(m_narrow);
    }

    bool m_wide = false;
    std::vector<int32_t> m_narrow;
    std::vector<int64_t> m_values;
};

// A Counts column's cells, most of them empty (the errors of calls that never failed): only
// the others are kept, with their rows.
template <typename Counts>
class SparseCells {
public:
    void push_back(Counts counts)
    {
        if (!counts.empty()) m_held.emplace_back(uint32_t(m_size), std::move(counts));
        ++m_size;
    }
    void reserve(size_t) {}
    size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    const Counts& operator[](size_t row) const
    {
        static const Counts none;
        const auto it = std::partition_point(m_held.begin(), m_held.end(), [row](const auto& held) { return held.first < row; });
        return it != m_held.end() && it->first == row ? it->second : none;
    }
    bool operator==(const SparseCells& other) const { return m_size == other.m_size && m_held == other.m_held; }

private:
    std::vector<std::pair<uint32_t, Counts>> m_held; // by row
    size_t m_size = 0;
};

// A statistics table, column by column. The kind of a column says how its cells read and are
// shown: counts with separators, durations in one adaptive unit (exact in tooltips and JSON),
// a task by its name beside its pid, an event as its time (the app goes to it). `ringside-cli
// stats` prints tables as aligned text or JSON keyed by the table's and columns' keys.
struct StatsTable {
    enum class Kind : uint8_t {
        Count,    // uint64_t
        Number,   // int64_t (a return value, a CPU, an address); kUnknown where it is not known
        Real,     // double
        Text,     // a string
        Duration, // int64_t ns; kUnknown where it is not known
        Task,     // a TaskId's value (kUnknown: none): shown by its name and pid
        Event,    // an event (EventRef, see eventCell; kUnknown: none): shown as its time, goes to it
        Counts,   // counts per name ({"ENOENT": 3}), in the order first seen
        Label,    // a text from a few (a system call's name, an errno): numbers index labels
    };
    static constexpr int64_t kUnknown = std::numeric_limits<int64_t>::min();
    using Counts = std::vector<std::pair<std::string, int64_t>>;

    struct Column {
        std::string key, title;
        Kind kind = Kind::Number;
        NumberCells numbers; // Count (as bits), Number, Duration, Task, Event
        std::vector<double> reals;
        std::vector<std::string> texts;
        SparseCells<Counts> counts;
        std::vector<std::string> labels; // Label: the texts its numbers name (8 bytes a row, not 32)
        // An Event column: the Duration column (by key) of the interval its event ends (a
        // failed call's return, the switch that ended a wait) or, with spanStarts, begins. A
        // "go to" shows that interval, not only the event.
        std::string spanKey;
        bool spanStarts = false;
        // What its numbers mean, where a title cannot say it (a definition): the header's tooltip.
        std::string description;
        // How many cells it holds.
        size_t size() const
        {
            return kind == Kind::Real ? reals.size()
                   : kind == Kind::Text ? texts.size()
                   : kind == Kind::Counts ? counts.size()
                                          : numbers.size();
        }
    };

    std::string key, title;
    std::deque<Column> columns; // column() hands out references that stay valid
    // The table to show first, offered where the user looks when it has rows ("12 failed
    // system calls — show"): an analysis marks at most one.
    bool headline = false;
    // What a reader of the analysis's numbers must know first, said where they are shown (the
    // plugin pane, the trace health pane, `stats` as text): a caveat this table holds the
    // evidence of ("12 tasks ran before their first recorded switch in: ..."). Empty: none.
    std::string note = {};
    // A histogram's counts: the column whose cells the app draws as bars (their length to the
    // column's largest), -1 for none.
    int barColumn = -1;

    size_t rows() const { return columns.empty() ? 0 : columns.front().size(); }
    Column& column(const std::string& key, const std::string& title, Kind kind)
    {
        columns.push_back({key, title, kind, {}, {}, {}, {}, {}, {}, false, {}});
        return columns.back();
    }
    // A Label cell's text ("" for an index it does not hold).
    static const std::string& labelOf(const Column& c, size_t row)
    {
        static const std::string none;
        const int64_t id = c.numbers[row];
        return id >= 0 && size_t(id) < c.labels.size() ? c.labels[size_t(id)] : none;
    }
    static int64_t eventCell(EventRef e) { return int64_t(uint64_t(e.stream.value) << 32 | e.index); }
    static EventRef eventOf(int64_t cell)
    {
        return {StreamId(uint16_t(uint64_t(cell) >> 32)), uint32_t(uint64_t(cell) & 0xffffffffu)};
    }
};

} // namespace ringside
