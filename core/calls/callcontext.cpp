// SPDX-License-Identifier: GPL-2.0-or-later
#include "calls/callcontext.h"

#include "decode/teprecord.h"
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

namespace {

bool isSyscallExit(tep_event* event)
{
    if (!event) return false;
    if (!std::strcmp(event->system, "raw_syscalls")) return !std::strcmp(event->name, "sys_exit");
    return !std::strcmp(event->system, "syscalls") && !std::strncmp(event->name, "sys_exit_", 9);
}

} // namespace

std::optional<SyscallExit> syscallExitAfter(const Trace& trace, int32_t pid, uint64_t time, uint64_t horizon)
{
    const EventStore& store = trace.store();
    tep_handle* tep = trace.file().tep();
    const TaskId task = trace.taskIndex().taskAt(pid, time);
    if (!task.valid()) return std::nullopt;
    std::optional<SyscallExit> found;
    for (const TaskIndex::StreamRuns& runs : trace.taskIndex().streams(task)) {
        const CpuColumns& columns = store.stream(runs.stream).columns;
        for (uint64_t k = TaskIndex::countBefore(store, runs, time); k < runs.events(); ++k) {
            const EventRef e = TaskIndex::eventAt(runs, k);
            const uint64_t ts = columns.timestamp[e.index];
            if (ts > time + horizon || (found && ts >= found->timestamp)) break;
            tep_event* event = tep_find_event(tep, columns.eventType[e.index]);
            if (!isSyscallExit(event)) continue;
            RawRecord raw;
            if (!store.readRecord(e, raw, nullptr)) continue;
            tep_record record = toTepRecord(store, e, raw);
            unsigned long long ret = 0, id = 0;
            if (tep_get_field_val(nullptr, event, "ret", &record, &ret, 0) != 0) continue;
            SyscallExit exit;
            exit.event = e;
            exit.timestamp = ts;
            exit.name = event->name;
            tep_format_field* retField = tep_find_field(event, "ret");
            exit.ret = retField && retField->size == 4 ? int64_t(int32_t(uint32_t(ret))) : int64_t(ret);
            if (!tep_get_field_val(nullptr, event, "id", &record, &id, 0)) exit.number = int64_t(id);
            found = exit;
            break;
        }
    }
    return found;
}

} // namespace ringside
