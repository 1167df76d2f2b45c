// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "consume/recordconsumer.h"

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ringside {

// Which tasks belong to one process (thread group). trace-cmd files carry no tgid, so this
// comes from task_newtask events when the recording has them: a task created with
// CLONE_THREAD joins its creator's process, any other new task starts a process of its own.
// The group's leader is the earliest creator seen, the real tgid when the recording saw the
// process start. Tasks created before the recording began, with no threads created during it,
// are groups of one. Fed by the consumer registry while the recording loads.
class ProcessGroups : public RecordConsumer {
public:
    static constexpr const char* kName = "process-groups";
    static constexpr uint64_t kCloneThread = 0x00010000;

    std::string name() const override { return kName; }
    std::vector<EventRequest> requests() const override;
    void consume(const ConsumedRecord& record) override;
    void flush() override;

    // Whether the recording has task_newtask events at all.
    bool available() const { return m_available; }
    int32_t leader(int32_t pid) const;
    // Every task known to share `pid`'s process (pid included), ascending.
    std::vector<int32_t> members(int32_t pid) const;
    // Every creation seen, in time order: (the new task's pid, when).
    const std::vector<std::pair<int32_t, uint64_t>>& creations() const { return m_creations; }

private:
    bool m_available = false;
    std::unordered_map<int32_t, int32_t> m_parent;               // thread -> the task that created it
    std::unordered_map<int32_t, std::vector<int32_t>> m_members; // leader -> members
    std::vector<std::pair<int32_t, uint64_t>> m_creations;
};

} // namespace ringside
