// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "store/ids.h"

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace ringside {

struct Task {
    int32_t pid = 0;
    std::string comm;
    uint64_t events = 0;
};

// The pids of the trace: each pid seen gets an entry (its index is its id here), with the
// name the recording saved for it and its event count. Tasks as the views know them (a pid's
// lives, split where the pid is reused) are TaskIndex's. Written by the store's writer;
// all(), operator[] and size() are for the owner's thread (or any thread once the store no
// longer grows); snapshot() may be called from any thread while the writer interns.
class TaskTable {
public:
    TaskId intern(int32_t pid, const std::string& comm)
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        auto it = m_byPid.find(pid);
        if (it != m_byPid.end()) return it->second;
        TaskId id(static_cast<uint32_t>(m_tasks.size()));
        m_tasks.push_back({pid, comm, 0});
        m_byPid.emplace(pid, id);
        return id;
    }
    TaskId find(int32_t pid) const
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        auto it = m_byPid.find(pid);
        return it == m_byPid.end() ? TaskId() : it->second;
    }
    // The name the recording saved for `pid` when it was interned, from any thread.
    std::string comm(int32_t pid) const
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        auto it = m_byPid.find(pid);
        return it == m_byPid.end() ? std::string() : m_tasks[it->second.value].comm;
    }
    // Adds events to pids' counts (the writer, once per appended segment).
    void addEvents(const std::unordered_map<int32_t, uint64_t>& perPid)
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        for (const auto& [pid, count] : perPid)
            if (auto it = m_byPid.find(pid); it != m_byPid.end()) m_tasks[it->second.value].events += count;
    }
    // A copy of every entry, consistent, from any thread.
    std::vector<Task> snapshot() const
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        return m_tasks;
    }
    const Task& operator[](TaskId id) const { return m_tasks[id.value]; }
    Task& operator[](TaskId id) { return m_tasks[id.value]; }
    size_t size() const { return m_tasks.size(); }
    const std::vector<Task>& all() const { return m_tasks; }

private:
    mutable std::mutex m_mutex;
    std::vector<Task> m_tasks;
    std::unordered_map<int32_t, TaskId> m_byPid;
};

} // namespace ringside
