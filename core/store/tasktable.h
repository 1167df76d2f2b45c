// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "store/ids.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace ringside {

struct Task {
    int32_t pid = 0;
    std::string comm;
    uint64_t events = 0;
};

// Interned tasks: each pid seen in the trace gets one TaskId, with the name the recording
// saved for it. Read-only once the store is finalized.
class TaskTable {
public:
    TaskId intern(int32_t pid, const std::string& comm)
    {
        auto it = m_byPid.find(pid);
        if (it != m_byPid.end()) return it->second;
        TaskId id(static_cast<uint32_t>(m_tasks.size()));
        m_tasks.push_back({pid, comm, 0});
        m_byPid.emplace(pid, id);
        return id;
    }
    TaskId find(int32_t pid) const
    {
        auto it = m_byPid.find(pid);
        return it == m_byPid.end() ? TaskId() : it->second;
    }
    const Task& operator[](TaskId id) const { return m_tasks[id.value]; }
    Task& operator[](TaskId id) { return m_tasks[id.value]; }
    size_t size() const { return m_tasks.size(); }
    const std::vector<Task>& all() const { return m_tasks; }

private:
    std::vector<Task> m_tasks;
    std::unordered_map<int32_t, TaskId> m_byPid;
};

} // namespace ringside
