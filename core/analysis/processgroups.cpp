// SPDX-License-Identifier: GPL-2.0-or-later
#include "analysis/processgroups.h"

#include <algorithm>

namespace ringside {

std::vector<EventRequest> ProcessGroups::requests() const
{
    return {{"task", "task_newtask", {"pid", "clone_flags"}}};
}

void ProcessGroups::consume(const ConsumedRecord& record)
{
    // Every file carries the format; only a recording that enabled the event can say.
    m_available = true;
    const auto task = static_cast<int32_t>(record.field(0).asSigned());
    const bool thread = (record.field(1).asUnsigned() & kCloneThread) != 0;
    m_creations.emplace_back(task, record.timestamp);
    // Records come in time order, so a thread's creator is placed before the thread.
    if (thread && task != record.pid) m_parent[task] = record.pid;
}

void ProcessGroups::flush()
{
    m_members.clear();
    for (const auto& [thread, creator] : m_parent) {
        (void)creator;
        m_members[leader(thread)].push_back(thread);
    }
    for (auto& [leader, members] : m_members) {
        members.push_back(leader);
        std::sort(members.begin(), members.end());
        members.erase(std::unique(members.begin(), members.end()), members.end());
    }
}

int32_t ProcessGroups::leader(int32_t pid) const
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
    auto it = m_members.find(leader(pid));
    return it == m_members.end() ? std::vector<int32_t>{pid} : it->second;
}

} // namespace ringside
