// SPDX-License-Identifier: GPL-2.0-or-later
#include "sql/resulttrack.h"

#include "sql/eventtables.h"
#include "sql/sqlmodule.h"
#include "trace.h"

#include <algorithm>
#include <cctype>

namespace ringside::sql {

namespace {

std::string lower(std::string text)
{
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return text;
}

bool integerOf(const Value& v, int64_t& out)
{
    if (v.kind == Value::Kind::Integer) return out = v.integer, true;
    if (v.kind == Value::Kind::Real) return out = int64_t(v.real), true;
    return false;
}

} // namespace

TrackShape trackShape(const std::vector<std::string>& columns)
{
    TrackShape s;
    for (int i = 0; i < int(columns.size()); ++i) {
        const std::string c = lower(columns[size_t(i)]);
        int* slot = c == "ts"                  ? &s.ts
                    : c == "dur"               ? &s.dur
                    : c == "value"             ? &s.value
                    : c == "utid"              ? &s.utid
                    : c == "tid" || c == "pid" ? &s.pid
                    : c == "cpu"               ? &s.cpu
                    : c == "name"              ? &s.name
                    : c == "depth"             ? &s.depth
                                               : nullptr;
        if (slot && *slot < 0) *slot = i;
    }
    if (s.ts < 0 || (s.dur < 0 && s.value < 0)) {
        s.why = "a track needs a column ts and a column dur (slices) or value (a counter)";
        return s;
    }
    s.kind = s.dur >= 0 ? TrackShape::Kind::Slices : TrackShape::Kind::Counter;
    if (s.utid < 0 && s.pid < 0 && s.cpu < 0) {
        // A counter of no task or CPU is the recording's own (a row at the top); slices need one.
        if (s.kind == TrackShape::Kind::Counter) {
            s.owner = RowOwner::Recording;
            return s;
        }
        s.kind = TrackShape::Kind::None;
        s.why = "a track of slices needs a row to be drawn on: a column utid, tid, pid or cpu";
        return s;
    }
    s.owner = s.utid >= 0 || s.pid >= 0 ? RowOwner::Task : RowOwner::Cpu;
    return s;
}

std::string fieldCounterQuery(const Trace& trace, uint16_t type, const std::string& field, RowOwner owner)
{
    // The type's table, named as makeEventTables names it: the event's name, or system_name
    // when two systems share the name.
    const std::vector<Trace::EventFormatNames> formats = trace.recordedFormats();
    const auto it = std::find_if(formats.begin(), formats.end(), [&](const auto& f) { return f.type == type; });
    if (it == formats.end()) return {};
    const bool shared =
        std::count_if(formats.begin(), formats.end(), [&](const auto& f) { return f.name == it->name; }) > 1;
    const std::string table = eventTableName(it->system, it->name, shared);
    // A field named like a leading column keeps the name; the column is then common_<name>.
    auto leading = [&](const std::string& column) { return field == column ? "common_" + column : column; };
    std::string ownerColumn; // none for the recording's own counter
    if (owner == RowOwner::Task) ownerColumn = leading("utid") + " AS utid, ";
    if (owner == RowOwner::Cpu) ownerColumn = leading("cpu") + " AS cpu, ";
    return "SELECT " + leading("ts") + " AS ts, " + ownerColumn + quotedIdentifier(field) + " AS value FROM " +
           quotedIdentifier(table) + " WHERE " + quotedIdentifier(field) + " IS NOT NULL";
}

ResultTrack::ResultTrack(const Trace& trace, std::string key, std::string title)
    : m_trace(trace), m_key(std::move(key)), m_title(std::move(title))
{}

void ResultTrack::columns(const std::vector<std::string>& names)
{
    if (m_started) return; // the first statement's result makes the track
    m_started = true;
    m_shape = trackShape(names);
    if (m_shape.kind == TrackShape::Kind::None) return;
    m_tables = std::make_unique<AnalysisTables>();
    if (m_shape.kind == TrackShape::Kind::Slices)
        m_slices = &m_tables->slices({m_key, m_title, m_shape.owner, "dur", "", 0x7a4fb0});
    else
        // In SQL's track tables (when the window hands them over) by its title.
        m_counter = &m_tables->counters({m_key, m_title, m_shape.owner, "", m_title, "query_track"});
}

uint32_t ResultTrack::ownerOf(const std::vector<Value>& values, uint64_t ts)
{
    if (m_shape.owner == RowOwner::Recording) return 0;
    int64_t number = 0;
    if (m_shape.utid >= 0) {
        if (!integerOf(values[size_t(m_shape.utid)], number) || number < 0 ||
            uint64_t(number) >= m_trace.taskIndex().size())
            return TaskId().value;
        return uint32_t(number);
    }
    if (m_shape.pid >= 0) {
        if (!integerOf(values[size_t(m_shape.pid)], number)) return TaskId().value;
        return m_trace.taskIndex().taskAt(int32_t(number), ts).value;
    }
    // A CPU's row: the stream of that CPU in the first buffer that has it.
    if (!integerOf(values[size_t(m_shape.cpu)], number)) return TaskId().value;
    const EventStore& store = m_trace.store();
    for (size_t s = 0; s < store.streamCount(); ++s)
        if (store.stream(StreamId(uint16_t(s))).columns.cpu == number) return uint32_t(s);
    return TaskId().value;
}

bool ResultTrack::row(const std::vector<Value>& values)
{
    if (!m_tables || m_shape.kind == TrackShape::Kind::None) return false;
    int64_t ts = 0, second = 0;
    const int secondColumn = m_shape.kind == TrackShape::Kind::Slices ? m_shape.dur : m_shape.value;
    if (!integerOf(values[size_t(m_shape.ts)], ts) || ts < 0 || !integerOf(values[size_t(secondColumn)], second)) {
        ++m_skipped;
        return true;
    }
    const uint32_t owner = ownerOf(values, uint64_t(ts));
    if (owner == TaskId().value) {
        ++m_skipped;
        return true;
    }
    if (m_shape.owner == RowOwner::Task) {
        if (m_taskSeen.size() <= owner) m_taskSeen.resize(size_t(owner) + 1, false);
        if (!m_taskSeen[owner]) m_taskSeen[owner] = true, m_tasks.push_back(owner);
    }
    ++m_rows;
    if (m_counter) {
        m_counterRows.push_back({owner, uint64_t(ts), second});
        return true;
    }
    Slice slice;
    slice.start = uint64_t(ts);
    slice.end = uint64_t(ts) + uint64_t(std::max<int64_t>(second, 0));
    slice.owner = owner;
    slice.value = second;
    const std::string label = m_shape.name >= 0 ? values[size_t(m_shape.name)].toString() : m_title;
    slice.label = m_slices->label(label);
    int64_t depth = 0;
    if (m_shape.depth >= 0 && integerOf(values[size_t(m_shape.depth)], depth))
        slice.depth = uint8_t(std::clamp<int64_t>(depth, 0, 254));
    m_slices->add(slice);
    return true;
}

std::unique_ptr<AnalysisTables> ResultTrack::take()
{
    if (!m_tables) return nullptr;
    // A counter is drawn by binary search over each owner's values: in time order.
    std::sort(m_counterRows.begin(), m_counterRows.end(), [](const CounterValue& a, const CounterValue& b) {
        return a.owner != b.owner ? a.owner < b.owner : a.time < b.time;
    });
    for (const CounterValue& c : m_counterRows) m_counter->add(c.time, c.owner, c.value);
    m_counterRows.clear();
    m_tables->publish([](EventRef) { return uint32_t(0); });
    // Summarised here, on the query's thread: the timeline's first frame makes none.
    for (const auto& t : m_tables->tables())
        if (t->kind() == TrackTable::Kind::Counters) static_cast<CounterTable&>(*t).summarise();
    return std::move(m_tables);
}

} // namespace ringside::sql
