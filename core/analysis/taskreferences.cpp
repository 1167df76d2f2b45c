// SPDX-License-Identifier: GPL-2.0-or-later
#include "analysis/taskreferences.h"

#include <algorithm>
#include <set>
#include <string>
#include <tuple>

namespace ringside {

namespace {

// Fields that name a task, in the kernel's own events: what Perfetto and trace-cmd read as
// tasks too. The same for every recording, whichever plugins are on, so that the tasks the
// index makes (and their ids) do not depend on which analyses ran.
const std::vector<std::tuple<const char*, const char*, std::vector<std::string>>> kKnown = {
    {"sched", "sched_switch", {"prev_pid", "next_pid"}},
    {"sched", "sched_wakeup", {"pid"}},
    {"sched", "sched_wakeup_new", {"pid"}},
    {"sched", "sched_waking", {"pid"}},
    {"sched", "sched_migrate_task", {"pid"}},
    {"sched", "sched_process_fork", {"parent_pid", "child_pid"}},
    {"sched", "sched_process_exec", {"pid", "old_pid"}},
    {"sched", "sched_process_exit", {"pid"}},
    {"sched", "sched_process_free", {"pid"}},
    {"sched", "sched_process_wait", {"pid"}},
    {"sched", "sched_process_hang", {"pid"}},
    {"sched", "sched_kthread_stop", {"pid"}},
    {"sched", "sched_pi_setprio", {"pid"}},
    {"sched", "sched_stat_runtime", {"pid"}},
    {"sched", "sched_stat_wait", {"pid"}},
    {"sched", "sched_stat_sleep", {"pid"}},
    {"sched", "sched_stat_iowait", {"pid"}},
    {"sched", "sched_stat_blocked", {"pid"}},
    {"task", "task_rename", {"pid"}},
    {"signal", "signal_generate", {"pid"}},
};

} // namespace

TaskReferences::TaskReferences(const std::vector<EventRequest>& declared)
{
    m_requests.push_back({"task", "task_newtask", {"pid"}});
    // One request per event and field: a field a recording's format lacks leaves the others.
    std::set<std::tuple<std::string, std::string, std::string>> seen;
    auto add = [&](const std::string& system, const std::string& event, const std::string& field) {
        if (seen.emplace(system, event, field).second) m_requests.push_back({system, event, {field}});
    };
    for (const auto& [system, event, fields] : kKnown)
        for (const std::string& field : fields) add(system, event, field);
    for (const EventRequest& request : declared)
        if (!request.prefix)
            for (const std::string& field : request.tasks) add(request.system, request.event, field);
}

void TaskReferences::consume(const ConsumedRecord& record)
{
    const int64_t value = record.field(0).asSigned();
    // A negative or wider value names no task (pid 0 names the idle task, always there: the
    // mentions time it when it has no events).
    if (value < 0 || value > INT32_MAX) return;
    const auto pid = int32_t(value);
    if (record.request == 0) {
        m_creations.emplace_back(pid, record.timestamp);
        m_open.set(uint32_t(pid), kClosed); // a mention from now on may be of its next life
    }
    if (pid != record.pid) mention(pid, record.timestamp);
}

void TaskReferences::mention(int32_t pid, uint64_t time)
{
    bool added = false;
    const uint32_t open = m_open.findOrAdd(uint32_t(pid), uint32_t(m_mentions.size()), &added);
    if (added || open == kClosed) {
        if (!added) m_open.set(uint32_t(pid), uint32_t(m_mentions.size()));
        m_mentions.push_back({pid, time, time});
        return;
    }
    TaskIndex::Mention& span = m_mentions[open];
    span.first = std::min(span.first, time);
    span.last = std::max(span.last, time);
}

std::vector<TaskIndex::Mention> TaskReferences::takeMentions()
{
    m_open.clear();
    return std::move(m_mentions);
}

} // namespace ringside
