// SPDX-License-Identifier: GPL-2.0-or-later
#include "sql/threadstatecolumns.h"

#include "analysis/tracktables.h"
#include "trace.h"

#include <traceevent/event-parse.h>

#include <algorithm>
#include <optional>
#include <string>

namespace ringside::sql {

namespace threadstaterows {

// common_flags: the event came from a hard or a soft interrupt.
constexpr uint8_t kHardIrq = 0x08, kSoftIrq = 0x10;

// The sched events among `names` the recording has a format of, each with its field
// `pidField`, in the names' order.
std::vector<std::pair<uint16_t, const tep_format_field*>>
typesWithPid(SqlContext& context, std::initializer_list<const char*> names, const char* pidField)
{
    std::vector<std::pair<uint16_t, const tep_format_field*>> types;
    for (const char* name : names)
        if (const std::optional<uint16_t> type = context.typeNamed("sched", name))
            if (const tep_format_field* pid = context.field(*type, pidField)) types.emplace_back(*type, pid);
    return types;
}

} // namespace threadstaterows

// The wakeups (sched_wakeup, sched_wakeup_new, then sched_waking: the sched plugin's
// preference) by the task they woke and their time, read in stream order: each record read
// where its stream's reader already is, not looked for per row.
class ThreadStateColumns::Wakeups {
public:
    struct Entry {
        uint32_t utid = 0;
        uint64_t ts = 0;
        size_t rank = 0;
        EventRef event;
        bool operator<(const Entry& o) const
        {
            return utid != o.utid ? utid < o.utid : ts != o.ts ? ts < o.ts : rank < o.rank;
        }
    };
    explicit Wakeups(SqlContext& context) : m_made(context.mark())
    {
        const EventStore& store = context.store();
        const auto types =
            threadstaterows::typesWithPid(context, {"sched_wakeup", "sched_wakeup_new", "sched_waking"}, "pid");
        if (types.empty()) return;
        TaskOfEvents taskOf(context.trace());
        for (size_t s = 0; s < store.streamCount(); ++s) {
            const StreamId stream{uint16_t(s)};
            const CpuColumns& columns = store.stream(stream).columns;
            const size_t size = columns.size();
            for (size_t i = 0; i < size; ++i) {
                const uint16_t type = columns.eventType[i];
                for (size_t rank = 0; rank < types.size(); ++rank) {
                    if (types[rank].first != type) continue;
                    const std::optional<int64_t> pid = context.integerField({stream, uint32_t(i)}, types[rank].second);
                    if (!pid) break;
                    const uint64_t ts = columns.timestamp[i];
                    const uint32_t woken = taskOf(stream, int32_t(*pid), ts);
                    if (woken < m_made.tasks) m_entries.push_back({woken, ts, rank, {stream, uint32_t(i)}});
                    break;
                }
            }
            context.countRows(size);
        }
        std::sort(m_entries.begin(), m_entries.end());
    }
    bool current(const SqlContext& context) const { return m_made == context.mark(); }
    // The preferred wakeup of `utid` at `ts`, or null.
    const Entry* at(uint32_t utid, uint64_t ts) const
    {
        const auto it = std::lower_bound(m_entries.begin(), m_entries.end(), Entry{utid, ts, 0, {}});
        return it != m_entries.end() && it->utid == utid && it->ts == ts ? &*it : nullptr;
    }

private:
    RecordingMark m_made; // what it was made from
    std::vector<Entry> m_entries;
};

// sched_blocked_reason (Android's kernels) is recorded as a task blocked in D is woken: the
// function it blocked in (`caller`) and whether it waited for I/O. As in Perfetto it belongs
// to the task's last blocked (D) state begun by then (looked for among its last few states:
// the one being woken is the last but for a wakeup's runnable state).
class ThreadStateColumns::BlockedReasons {
public:
    struct Entry {
        uint32_t utid = 0;
        uint64_t place = 0;
        std::optional<bool> ioWait;
        size_t function = SIZE_MAX; // in m_functions
        bool operator<(const Entry& o) const { return utid != o.utid ? utid < o.utid : place < o.place; }
    };
    BlockedReasons(SqlContext& context, const IntervalTable& table) : m_made(context.mark())
    {
        const EventStore& store = context.store();
        const std::optional<uint16_t> type = context.typeNamed("sched", "sched_blocked_reason");
        const tep_format_field* pidField = type ? context.field(*type, "pid") : nullptr;
        const auto& states = table.spec().states;
        const auto blocked =
            std::find_if(states.begin(), states.end(), [](const auto& s) { return s.name == kBlocked; });
        if (!pidField || blocked == states.end()) return;
        const uint32_t blockedState = uint32_t(blocked - states.begin());
        const tep_format_field* ioWaitField = context.field(*type, "io_wait");
        const tep_format_field* callerField = context.field(*type, "caller");
        TaskOfEvents taskOf(context.trace());
        std::vector<uint64_t> callers;
        for (size_t s = 0; s < store.streamCount(); ++s) {
            const StreamId stream{uint16_t(s)};
            const CpuColumns& columns = store.stream(stream).columns;
            const size_t size = columns.size();
            for (size_t i = 0; i < size; ++i) {
                if (columns.eventType[i] != *type) continue;
                const EventRef event{stream, uint32_t(i)};
                const std::optional<int64_t> pid = context.integerField(event, pidField);
                if (!pid) continue;
                const uint64_t ts = columns.timestamp[i];
                const uint32_t utid = taskOf(stream, int32_t(*pid), ts);
                if (utid >= m_made.tasks) continue;
                const std::optional<uint64_t> place = lastBlocked(table, utid, ts, blockedState);
                if (!place) continue;
                Entry entry{utid, *place, std::nullopt, SIZE_MAX};
                if (const std::optional<int64_t> io =
                        ioWaitField ? context.integerField(event, ioWaitField) : std::nullopt)
                    entry.ioWait = *io != 0;
                if (const std::optional<int64_t> caller =
                        callerField ? context.integerField(event, callerField) : std::nullopt) {
                    entry.function = callers.size();
                    callers.push_back(uint64_t(*caller));
                }
                m_entries.push_back(entry);
            }
            context.countRows(size);
        }
        // Names looked up together, after the scan: the lookup takes the handle's lock.
        m_functions = context.trace().functionNames(callers);
        // The last reason recorded for a state is the one kept (as Perfetto, which overwrites).
        std::stable_sort(m_entries.begin(), m_entries.end());
    }
    bool current(const SqlContext& context) const { return m_made == context.mark(); }
    const Entry* at(uint32_t utid, uint64_t place) const
    {
        auto it = std::upper_bound(m_entries.begin(), m_entries.end(), Entry{utid, place, std::nullopt, 0});
        return it != m_entries.begin() && (--it)->utid == utid && it->place == place ? &*it : nullptr;
    }
    const std::string* function(const Entry& entry) const
    {
        return entry.function < m_functions.size() ? &m_functions[entry.function] : nullptr;
    }

    static constexpr const char* kBlocked = "blocked (D)";

private:
    // The place of utid's last blocked state begun by ts, among its last few states.
    static std::optional<uint64_t> lastBlocked(const IntervalTable& table, uint32_t utid, uint64_t ts,
                                               uint32_t blockedState)
    {
        constexpr size_t kLooked = 4;
        const GrowingList<IntervalRow>* lane = table.byOwner().of(utid);
        const size_t rows = lane ? lane->size() : 0;
        size_t k = rows ? lane->lowerBound(ts + 1, 0, rows, [](const IntervalRow& r) { return r.start; }) : 0;
        if (k == rows && utid < table.openOwners()) {
            const IntervalRow open = table.openOf(utid);
            if (open.end && open.start <= ts && open.state == blockedState) return rows;
        }
        for (size_t looked = 0; k > 0 && looked < kLooked; --k, ++looked)
            if ((*lane)[k - 1].state == blockedState) return k - 1;
        return std::nullopt;
    }

    RecordingMark m_made; // what it was made from
    std::vector<Entry> m_entries;
    std::vector<std::string> m_functions;
};

std::vector<Column> ThreadStateColumns::columns()
{
    return {
        {"id", ColumnType::Integer},       {"cpu", ColumnType::Integer},           {"ucpu", ColumnType::Integer},
        {"io_wait", ColumnType::Integer},  {"blocked_function", ColumnType::Text}, {"waker_utid", ColumnType::Integer},
        {"waker_id", ColumnType::Integer}, {"irq_context", ColumnType::Integer}};
}

ThreadStateColumns::ThreadStateColumns(SqlContext& context, const IntervalTable& table, std::shared_ptr<Shared> shared)
    : m_context(context), m_table(table), m_shared(std::move(shared)), m_tasks(context.trace())
{}

std::shared_ptr<const ThreadStateColumns::Wakeups> ThreadStateColumns::wakeups()
{
    if (m_wakeups && m_wakeups->current(m_context)) return m_wakeups;
    const std::lock_guard lock(m_shared->lock);
    if (!m_shared->wakeups || !m_shared->wakeups->current(m_context))
        m_shared->wakeups = std::make_shared<const Wakeups>(m_context);
    m_wakeups = m_shared->wakeups;
    return m_wakeups;
}

std::shared_ptr<const ThreadStateColumns::BlockedReasons> ThreadStateColumns::blockedReasons()
{
    if (m_blockedReasons && m_blockedReasons->current(m_context)) return m_blockedReasons;
    const std::lock_guard lock(m_shared->lock);
    if (!m_shared->blockedReasons || !m_shared->blockedReasons->current(m_context))
        m_shared->blockedReasons = std::make_shared<const BlockedReasons>(m_context, m_table);
    m_blockedReasons = m_shared->blockedReasons;
    return m_blockedReasons;
}

std::optional<int64_t> ThreadStateColumns::cpuOfRun(uint32_t utid, uint64_t ts)
{
    const TaskIndex& index = m_context.trace().taskIndex();
    if (utid >= index.size()) return std::nullopt;
    const TaskIndex::Runs runs = index.running(TaskId(utid));
    const size_t k = runs.firstEndingFrom(0, ts + 1);
    if (k < runs.size() && runs[k].start <= ts) return m_context.store().stream(runs[k].stream).columns.cpu;
    // A run of no length (at the recording's last event) is in no table of runs: its switch.
    const int32_t pid = index.task(TaskId(utid)).pid;
    const EventStore& store = m_context.store();
    for (const auto& [type, nextPid] : threadstaterows::typesWithPid(m_context, {"sched_switch"}, "next_pid"))
        for (size_t s = 0; s < store.streamCount(); ++s) {
            const StreamId stream{uint16_t(s)};
            const CpuColumns& columns = store.stream(stream).columns;
            const size_t size = columns.size();
            for (size_t i = columns.timestamp.lowerBound(ts, 0, size); i < size && columns.timestamp[i] == ts; ++i) {
                if (columns.eventType[i] != type) continue;
                if (m_context.integerField({stream, uint32_t(i)}, nextPid) == pid) return columns.cpu;
            }
        }
    return std::nullopt;
}

std::optional<uint64_t> ThreadStateColumns::placeAt(uint32_t utid, uint64_t ts) const
{
    const GrowingList<IntervalRow>* lane = m_table.byOwner().of(utid);
    const size_t rows = lane ? lane->size() : 0;
    // The last row begun by `ts`; the open state after them all.
    size_t k = rows ? lane->lowerBound(ts + 1, 0, rows, [](const IntervalRow& r) { return r.start; }) : 0;
    if (k > 0 && (*lane)[k - 1].end > ts) return k - 1;
    if (k == rows) {
        const IntervalRow open = utid < m_table.openOwners() ? m_table.openOf(utid) : IntervalRow{};
        if (open.end && open.start <= ts) return rows;
    }
    return std::nullopt;
}

void ThreadStateColumns::add(std::vector<Value>& cells, const IntervalRow& row, uint32_t utid, uint64_t place,
                             const std::string& stateName)
{
    const auto used = [&](int column) { return columnUsed(m_used, column); };
    cells.push_back(Value::ofInteger(idOf(utid, place)));
    Value cpu;
    if (stateName == "running" && (used(kCpu) || used(kUcpu)))
        if (const std::optional<int64_t> c = cpuOfRun(utid, row.start)) cpu = Value::ofInteger(*c);
    cells.push_back(cpu);
    cells.push_back(cpu);
    Value ioWait, blockedFunction;
    if (stateName == BlockedReasons::kBlocked && (used(kIoWait) || used(kBlockedFunction)))
        if (const BlockedReasons::Entry* reason = blockedReasons()->at(utid, place)) {
            if (reason->ioWait) ioWait = Value::ofInteger(*reason->ioWait);
            if (const std::string* function = blockedReasons()->function(*reason))
                blockedFunction = Value::ofText(*function);
        }
    cells.push_back(ioWait);
    cells.push_back(blockedFunction);
    Value wakerUtid, wakerId, irq;
    if (stateName == "runnable" && (used(kWakerUtid) || used(kWakerId) || used(kIrqContext)))
        if (const Wakeups::Entry* wakeup = wakeups()->at(utid, row.start)) {
            const CpuColumns& columns = m_context.store().stream(wakeup->event.stream).columns;
            const uint32_t waker = m_tasks(wakeup->event.stream, columns.pid[wakeup->event.index], row.start);
            if (TaskId(waker).valid()) {
                wakerUtid = Value::ofInteger(waker);
                if (const std::optional<uint64_t> at = placeAt(waker, row.start))
                    wakerId = Value::ofInteger(idOf(waker, *at));
            }
            irq = Value::ofInteger(
                (columns.flags[wakeup->event.index] & (threadstaterows::kHardIrq | threadstaterows::kSoftIrq)) != 0);
        }
    cells.push_back(wakerUtid);
    cells.push_back(wakerId);
    cells.push_back(irq);
}

} // namespace ringside::sql
