// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "consume/recordconsumer.h"

#include <cstdint>
#include <functional>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ringside {

// Which tasks belong to one process (thread group). trace-cmd files carry no tgid, so this
// comes from task_newtask events when the recording has them: a task created with
// CLONE_THREAD joins its creator's process, any other new task starts a process of its own.
// The group's leader is the earliest creator seen, the real tgid when the recording saw the
// process start. Tasks created before the recording began, with no threads created during it,
// are groups of one. Its table "task_creations" marks each creation on the new task's row.
// Fed by the consumer registry; readers on any thread (under its lock).
class ProcessGroups : public RecordConsumer {
public:
    static constexpr const char* kName = "process-groups";
    static constexpr uint64_t kCloneThread = 0x00010000;
    // The task of a pid at a time (the trace's task index), for the table's owners.
    using TaskOf = std::function<uint32_t(int32_t pid, uint64_t time)>;

    explicit ProcessGroups(TaskOf taskOf = {}) : m_taskOf(std::move(taskOf)) {}

    std::string name() const override { return kName; }
    std::vector<EventRequest> requests() const override;
    void setTables(TableSink& tables) override;
    void consume(const ConsumedRecord& record) override;
    void flush() override;

    // Whether the recording has task_newtask events at all.
    bool available() const;
    int32_t leader(int32_t pid) const;
    // The task that created `pid` (task_newtask's or sched_process_fork's parent), -1 when
    // the recording did not see it made.
    int32_t creator(int32_t pid) const;
    // Every task known to share `pid`'s process (pid included), ascending.
    std::vector<int32_t> members(int32_t pid) const;

private:
    int32_t leaderLocked(int32_t pid) const;

    TaskOf m_taskOf;
    InstantSink* m_table = nullptr;
    mutable std::mutex m_lock;
    bool m_available = false;
    std::unordered_map<int32_t, int32_t> m_parent;               // thread -> the task that created it
    std::unordered_map<int32_t, int32_t> m_creator;              // any task -> the task that created it
    std::unordered_map<int32_t, std::vector<int32_t>> m_members; // leader -> members
};

} // namespace ringside
