// SPDX-License-Identifier: GPL-2.0-or-later
#include "calls/callcontext.h"

#include "calls/callslices.h"
#include "trace.h"

#include <traceevent/event-parse.h>

#include <cstring>

namespace ringside {

std::vector<std::string> functionNames(tep_handle* tep, const std::vector<uint64_t>& addresses)
{
    std::vector<std::string> names;
    names.reserve(addresses.size());
    for (uint64_t address : addresses) {
        const char* name = tep ? tep_find_function(tep, address) : nullptr;
        if (name) {
            names.emplace_back(name);
        } else {
            char hex[32];
            std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(address));
            names.emplace_back(hex);
        }
    }
    return names;
}

std::optional<EventRef> callRecord(const Trace& trace, const CallSlices& calls, size_t call)
{
    if (call >= calls.size()) return std::nullopt;
    // An exit record is written a little after its rettime; 4096 rows is far past that.
    return trace.store().taskEventAt(calls.pid(call),
                                     (calls.flags(call) & kCallNoEntry) ? calls.end(call) : calls.start(call));
}

namespace {

const SliceTable* syscallTable(const Trace& trace)
{
    // The first table an analysis declares as system calls.
    for (const Trace::Analysis& analysis : trace.analyses()) {
        if (!analysis.tables) continue;
        for (const auto& table : analysis.tables->tables())
            if (table->kind() == TrackTable::Kind::Slices && static_cast<const SliceTable&>(*table).spec().systemCalls)
                return static_cast<const SliceTable*>(table.get());
    }
    return nullptr;
}

// A number field of a record, sign-extended from 4 bytes (ret is a long of the kernel).
std::optional<int64_t> numberField(const Trace& trace, EventRef e, const char* name)
{
    const EventStore& store = trace.store();
    RawRecord raw;
    if (!store.readRecord(e, raw, nullptr)) return std::nullopt;
    const TepAccess tep = trace.tep(); // for this record only
    tep_event* event = tep_find_event(tep, store.stream(e.stream).columns.eventType[e.index]);
    tep_format_field* field = event ? tep_find_field(event, name) : nullptr;
    if (!field) return std::nullopt;
    unsigned long long value = 0;
    if (tep_read_number_field(field, raw.data, &value) != 0) return std::nullopt;
    if (field->size == 4) return int64_t(int32_t(uint32_t(value)));
    return int64_t(value);
}

SyscallSpan spanOf(const Trace& trace, const SliceTable& table, const SliceTable::View& v, EventRef exit)
{
    SyscallSpan span;
    const EventStore& store = trace.store();
    span.pid = store.stream(exit.stream).columns.pid[exit.index];
    span.enterSeen = !(v.flags & Slice::kNoStart);
    span.enter = span.enterSeen ? v.start : store.firstTimestamp();
    span.exit = v.end;
    span.exitEvent = exit;
    span.name = table.labelText(v.label);
    span.ret = table.valueFromEvent(v) ? numberField(trace, exit, table.spec().valueField.c_str()).value_or(0) : v.value;
    return span;
}

// The table's slice that ended at `e`: anchored there, or kept whole with its end at e's time
// on e's task.
std::optional<SliceTable::View> sliceEndingAt(const Trace& trace, const SliceTable& table, EventRef e)
{
    const EventStore& store = trace.store();
    const CpuColumns& c = store.stream(e.stream).columns;
    if (e.index >= c.size()) return std::nullopt;
    const TaskId task = trace.taskIndex().taskAt(c.pid[e.index], c.timestamp[e.index]);
    std::optional<SliceTable::View> found;
    table.forEachAnchored(store, e.stream, e.index, e.index + 1, task.value,
                          [&](const SliceTable::View& v) { found = v; });
    if (found || !task.valid()) return found;
    if (const GrowingList<SliceRow>* rows = table.explicitRows().of(task.value))
        for (size_t r = 0; r < rows->size() && !found; ++r) {
            const SliceRow& row = (*rows)[r];
            if (row.end != c.timestamp[e.index] || (row.flags & Slice::kOpen)) continue;
            found = SliceTable::View{row.start, row.end, row.value, task.value, row.label, row.depth, row.flags, {}, e, false};
        }
    return found;
}

// A system call's return: raw_syscalls:sys_exit or syscalls:sys_exit_*.
bool isReturnEvent(const Trace& trace, EventRef e)
{
    const TepAccess tep = trace.tep();
    const tep_event* event = tep_find_event(tep, trace.store().stream(e.stream).columns.eventType[e.index]);
    if (!event) return false;
    if (!std::strcmp(event->system, "raw_syscalls")) return !std::strcmp(event->name, "sys_exit");
    return !std::strcmp(event->system, "syscalls") && !std::strncmp(event->name, "sys_exit_", 9);
}

bool hasCallsIn(const CallSlices& calls, int32_t pid, uint64_t from, uint64_t to)
{
    for (size_t i = 0; i < calls.size(); ++i)
        if (calls.pid(i) == pid && calls.start(i) >= from && calls.start(i) <= to) return true;
    return false;
}

} // namespace

bool hasSyscallTable(const Trace& trace)
{
    return syscallTable(trace) != nullptr;
}

std::optional<SyscallSpan> syscallEndedBy(const Trace& trace, EventRef exit)
{
    const SliceTable* table = syscallTable(trace);
    if (!table) return std::nullopt;
    if (!isReturnEvent(trace, exit)) return std::nullopt;
    if (auto v = sliceEndingAt(trace, *table, exit)) return spanOf(trace, *table, *v, exit);
    // Both kinds of events recorded: the call's other return event, beside this one, ended it.
    const CpuColumns& c = trace.store().stream(exit.stream).columns;
    for (const int64_t beside : {int64_t(exit.index) - 1, int64_t(exit.index) + 1}) {
        if (beside < 0 || size_t(beside) >= c.size() || c.pid[size_t(beside)] != c.pid[exit.index]) continue;
        const EventRef other{exit.stream, uint32_t(beside)};
        if (!isReturnEvent(trace, other)) continue;
        if (auto v = sliceEndingAt(trace, *table, other)) return spanOf(trace, *table, *v, other);
    }
    return std::nullopt;
}

std::optional<SyscallSpan> syscallAround(const Trace& trace, int32_t pid, uint64_t time, uint64_t horizon)
{
    const SliceTable* table = syscallTable(trace);
    if (!table) return std::nullopt;
    const EventStore& store = trace.store();
    const TaskIndex& tasks = trace.taskIndex();
    const TaskId task = tasks.taskAt(pid, time);
    if (!task.valid()) return std::nullopt;
    // The task's first event at or after `time` that ended a call of the table, on any CPU.
    std::optional<std::pair<SliceTable::View, EventRef>> found;
    for (const TaskIndex::StreamRuns& runs : tasks.streams(task)) {
        const CpuColumns& columns = store.stream(runs.stream).columns;
        for (uint64_t k = TaskIndex::countBefore(store, runs, time); k < runs.events(); ++k) {
            const EventRef e = TaskIndex::eventAt(runs, k);
            const uint64_t ts = columns.timestamp[e.index];
            if (ts > time + horizon || (found && ts >= found->first.end)) break;
            std::optional<SliceTable::View> v;
            table->forEachAnchored(store, e.stream, e.index, e.index + 1, task.value,
                                   [&](const SliceTable::View& view) { v = view; });
            if (v && !(v->flags & Slice::kOpen)) {
                found = {*v, e};
                break;
            }
        }
    }
    // Or a call kept whole (its events not in one stretch).
    if (const GrowingList<SliceRow>* rows = table->explicitRows().of(task.value))
        for (size_t r = 0; r < rows->size(); ++r) {
            const SliceRow& row = (*rows)[r];
            if ((row.flags & Slice::kOpen) || row.end < time || row.end > time + horizon ||
                (found && row.end >= found->first.end))
                continue;
            if (const auto e = store.taskEventAt(pid, row.end))
                found = {SliceTable::View{row.start, row.end, row.value, task.value, row.label, row.depth, row.flags, {}, *e,
                                          false},
                         *e};
        }
    if (!found) return std::nullopt;
    return spanOf(trace, *table, found->first, found->second);
}

std::optional<SyscallSpan> similarSucceededSyscall(const Trace& trace, const SyscallSpan& failed)
{
    const SliceTable* table = syscallTable(trace);
    if (!table) return std::nullopt;
    const EventStore& store = trace.store();
    const uint16_t type = store.stream(failed.exitEvent.stream).columns.eventType[failed.exitEvent.index];
    const size_t at = store.rowOf(failed.exitEvent);
    auto candidate = [&](size_t row) -> std::optional<SyscallSpan> {
        const EventRef e = store.eventAt(row);
        if (store.stream(e.stream).columns.eventType[e.index] != type) return std::nullopt;
        const std::optional<SliceTable::View> v = sliceEndingAt(trace, *table, e);
        if (!v || table->labelText(v->label) != failed.name) return std::nullopt;
        const SyscallSpan span = spanOf(trace, *table, *v, e);
        if (span.ret < 0 || !hasCallsIn(trace.callSlices(), span.pid, span.enter, span.exit)) return std::nullopt;
        return span;
    };
    for (size_t row = at; row-- > 0;)
        if (auto span = candidate(row)) return span;
    for (size_t row = at + 1; row < store.eventCount(); ++row)
        if (auto span = candidate(row)) return span;
    return std::nullopt;
}

} // namespace ringside
