// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "consume/recordconsumer.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace ringside {

// Which task ran on each CPU when, from sched_switch: per stream, the times at which a task
// started running. Before the first switch of a CPU its previous task is assumed to run from
// the CPU's first event; a buffer without sched_switch shares the runs of another buffer's
// same CPU. Also the names tasks had in those switches, which cover tasks the recording's
// saved comms missed. Fed by the consumer registry while the recording loads.
class CpuOccupancy : public RecordConsumer {
public:
    struct Run {
        uint64_t start;
        int32_t pid;
    };
    static constexpr const char* kName = "cpu-occupancy";

    std::string name() const override { return kName; }
    std::vector<EventRequest> requests() const override;
    void bind(const std::vector<bool>& bound) override { m_available = bound.at(0); }
    void setStreams(const std::vector<StreamInfo>& streams) override;
    void consume(const ConsumedRecord& record) override;
    void flush() override;

    bool available() const { return m_available; }
    const std::vector<Run>& runs(StreamId stream) const;

    // The task running at `ts` on the stream, or -1 when unknown.
    int32_t pidAt(StreamId stream, uint64_t ts) const;
    // The last name a switch gave the task, or nullptr.
    const std::string* name(int32_t pid) const;

private:
    bool m_available = false;
    std::vector<StreamInfo> m_streams;
    std::vector<std::vector<Run>> m_runs;
    std::vector<size_t> m_runsOf; // the stream whose runs a stream shows (itself, or a sibling buffer's CPU)
    std::unordered_map<int32_t, std::string> m_names;
};

} // namespace ringside
