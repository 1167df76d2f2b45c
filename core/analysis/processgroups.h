// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "store/eventstore.h"
#include "store/recordtap.h"

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

struct tep_handle;

namespace ringside {

// Which tasks belong to one process (thread group). trace-cmd files carry no tgid, so this
// comes from task_newtask events when the recording has them: a task created with
// CLONE_THREAD joins its creator's process, any other new task starts a process of its own.
// The group's leader is the earliest creator seen, the real tgid when the recording saw the
// process start. Tasks created before the recording began, with no threads created during it,
// are groups of one. Built from a load-time tap, then read-only.
class ProcessGroups {
public:
    // task_newtask's pid and clone_flags.
    static std::optional<RecordTap> tap(tep_handle* tep);
    static ProcessGroups fromTap(const EventStore& store, const RecordTap& tap, const std::vector<TapColumn>& columns);

    // Whether the recording has task_newtask events at all.
    bool available() const { return m_available; }
    int32_t leader(int32_t pid) const;
    // Every task known to share `pid`'s process (pid included), ascending.
    std::vector<int32_t> members(int32_t pid) const;

private:
    bool m_available = false;
    std::unordered_map<int32_t, int32_t> m_parent; // thread -> the task that created it
    std::unordered_map<int32_t, std::vector<int32_t>> m_members; // leader -> members
};

} // namespace ringside
