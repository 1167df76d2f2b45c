// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "consume/recordconsumer.h"

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

namespace ringside {

// The names events give tasks, for the tasks the recording's saved comms lack (the kernel
// keeps a short list): the first name any event gave a pid, in time order, as trace-cmd's
// sched plugin registers it (sched_switch's prev then next, sched_wakeup, sched_wakeup_new),
// and also from the fork and task_newtask events that name the new task. A task that execs
// keeps its first name here, as in trace-cmd report. Trace::taskName puts this behind the
// saved comms.
//
// Fed in pieces while the pages are parsed, so that a window showing the store names its tasks
// as soon as the batch's pieces are joined, before the other analyses walk their records:
// each piece keeps the first name of each pid in its stretch, and the join keeps the earliest
// (ties in stream order, as the merged order has them).
//
// Threading: pieces on the parser's threads, the rest on the analysis thread; name() on any
// thread (under a lock).
class TaskNames : public RecordConsumer {
public:
    static constexpr const char* kName = "task-names";

    std::string name() const override { return kName; }
    std::vector<EventRequest> requests() const override;
    void consume(const ConsumedRecord& record) override;
    bool fedInPieces() const override { return true; }
    std::unique_ptr<StreamPiece> newPiece(StreamId stream) override;
    void join(std::vector<FedPiece> pieces) override;

    // The first name an event gave `pid`, or empty.
    std::string name(int32_t pid) const;
    size_t size() const;

private:
    class Piece;
    void learn(int64_t pid, std::string_view comm);

    mutable std::mutex m_lock;
    std::unordered_map<int32_t, std::string> m_names;
};

} // namespace ringside
