// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "store/eventstore.h"
#include "store/recordtap.h"

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

struct tep_handle;

namespace ringside {

// Which task ran on each CPU when, from sched_switch: per stream, the times at which a task
// started running. Before the first switch of a CPU its previous task is assumed to run; a
// buffer without sched_switch shares the runs of another buffer's same CPU. Also the names
// tasks had in those switches, which cover tasks the recording's saved comms missed.
// Built from a load-time tap (no second pass over the pages), then read-only.
class CpuOccupancy {
public:
    struct Run {
        uint64_t start;
        int32_t pid;
    };

    // The fields to capture while loading: prev_pid, next_pid, next_comm of sched_switch.
    static std::optional<RecordTap> tap(tep_handle* tep);
    static CpuOccupancy fromTap(const EventStore& store, const RecordTap& tap, const std::vector<TapColumn>& columns);

    bool available() const { return m_available; }
    const std::vector<Run>& runs(StreamId stream) const { return m_runs[stream.value]; }

    // The task running at `ts` on the stream, or -1 when unknown.
    int32_t pidAt(StreamId stream, uint64_t ts) const;
    // The last name a switch gave the task, or nullptr.
    const std::string* name(int32_t pid) const;

private:
    bool m_available = false;
    std::vector<std::vector<Run>> m_runs;
    std::unordered_map<int32_t, std::string> m_names;
};

} // namespace ringside
