// SPDX-License-Identifier: GPL-2.0-or-later
#include "analysis/processgroups.h"

#include <algorithm>

namespace ringside {

std::vector<EventRequest> ProcessGroups::requests() const
{
    return {{"task", "task_newtask", {"pid", "clone_flags"}, false, {}, {"pid"}},
            {"sched", "sched_process_fork", {"parent_pid", "child_pid"}}};
}

void ProcessGroups::setTables(TableSink& tables)
{
    m_table = &tables.instants({"task_creations", "Tasks created", RowOwner::Task, {"new process", "new thread"}});
}

void ProcessGroups::consume(const ConsumedRecord& record)
{
    if (record.request == 1) { // sched_process_fork: who made whom, thread or process
        const auto parent = static_cast<int32_t>(record.field(0).asSigned());
        const auto child = static_cast<int32_t>(record.field(1).asSigned());
        const std::lock_guard lock(m_lock);
        m_creator[child] = parent;
        return;
    }
    const auto task = static_cast<int32_t>(record.field(0).asSigned());
    const bool thread = (record.field(1).asUnsigned() & kCloneThread) != 0;
    if (m_table && m_taskOf) m_table->add(record.timestamp, m_taskOf(task, record.timestamp), thread ? 1 : 0);
    const std::lock_guard lock(m_lock);
    // Every file carries the format; only a recording that enabled the event can say.
    m_available = true;
    // Records come in time order, so a thread's creator is placed before the thread.
    if (thread && task != record.pid) m_parent[task] = record.pid;
    m_creator[task] = record.pid;
}

int32_t ProcessGroups::creator(int32_t pid) const
{
    const std::lock_guard lock(m_lock);
    const auto it = m_creator.find(pid);
    return it == m_creator.end() ? -1 : it->second;
}

bool ProcessGroups::available() const
{
    const std::lock_guard lock(m_lock);
    return m_available;
}

void ProcessGroups::flush()
{
    const std::lock_guard lock(m_lock);
    m_members.clear();
    for (const auto& [thread, creator] : m_parent) {
        (void)creator;
        m_members[leaderLocked(thread)].push_back(thread);
    }
    for (auto& [leader, members] : m_members) {
        members.push_back(leader);
        std::sort(members.begin(), members.end());
        members.erase(std::unique(members.begin(), members.end()), members.end());
    }
}

int32_t ProcessGroups::leader(int32_t pid) const
{
    const std::lock_guard lock(m_lock);
    return leaderLocked(pid);
}

int32_t ProcessGroups::leaderLocked(int32_t pid) const
{
    // Follow creators up; a cycle (pid reuse) stops at the first repeat.
    int32_t current = pid;
    for (size_t steps = 0; steps <= m_parent.size(); ++steps) {
        auto it = m_parent.find(current);
        if (it == m_parent.end()) return current;
        current = it->second;
    }
    return current;
}

std::vector<int32_t> ProcessGroups::members(int32_t pid) const
{
    const std::lock_guard lock(m_lock);
    auto it = m_members.find(leaderLocked(pid));
    return it == m_members.end() ? std::vector<int32_t>{pid} : it->second;
}

} // namespace ringside
