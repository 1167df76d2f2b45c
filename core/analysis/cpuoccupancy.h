// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "store/eventstore.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

struct tep_handle;

namespace ringside {

// Which task ran on each CPU when, from sched_switch: per stream, the times at which a task
// started running. Before the first switch of a CPU its previous task is assumed to run.
// Also the names tasks had in those switches, which cover the tasks the recording's saved
// comms missed. Built once after loading (streams in parallel), then read-only.
class CpuOccupancy {
public:
    struct Run {
        uint64_t start;
        int32_t pid;
    };

    static CpuOccupancy build(const EventStore& store, tep_handle* tep);

    bool available() const { return m_available; }
    const std::vector<Run>& runs(StreamId stream) const { return m_runs[stream.value]; }

    // The task running at `ts` on the stream, or -1 when unknown.
    int32_t pidAt(StreamId stream, uint64_t ts) const;
    // The last name a switch gave the task, or nullptr.
    const std::string* name(int32_t pid) const;

private:
    std::unordered_map<int32_t, std::string> m_names;
    bool m_available = false;
    std::vector<std::vector<Run>> m_runs;
};

} // namespace ringside
