// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "consume/recordconsumer.h"
#include "store/taskindex.h"
#include "util/flatindex.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace ringside {

// What the task index needs of a batch's records before any analysis asks for a task: the
// pids task_newtask gives new tasks (a pid handed out again is a new task from then on), and
// every pid a record names besides its own (a task switched to, woken, forked), from the
// fields the core knows to name tasks and those the analyses declare (EventRequest::tasks).
// Fed first and alone (ConsumerRegistry::Stage::Tasks), in merged order. A pid's mentions
// are kept as one span per life (from one creation of the pid to the next), not one entry per
// record: a recording of 100 million events names tasks tens of millions of times.
class TaskReferences : public RecordConsumer {
public:
    static constexpr const char* kName = "task-references";

    // `declared`: the analyses' requests, whose `tasks` fields are read too.
    explicit TaskReferences(const std::vector<EventRequest>& declared = {});

    std::string name() const override { return kName; }
    std::vector<EventRequest> requests() const override { return m_requests; }
    void consume(const ConsumedRecord& record) override;

    // The creations fed since the last call: (pid, time).
    std::vector<std::pair<int32_t, uint64_t>> takeCreations() { return std::move(m_creations); }
    // The pids named since the last call, each with the span of times it was named in.
    std::vector<TaskIndex::Mention> takeMentions();

private:
    void mention(int32_t pid, uint64_t time);

    std::vector<EventRequest> m_requests; // the first: task_newtask
    std::vector<std::pair<int32_t, uint64_t>> m_creations;
    std::vector<TaskIndex::Mention> m_mentions;
    FlatMap<uint32_t> m_open; // pid -> its span in m_mentions since its last creation (or kClosed)
    static constexpr uint32_t kClosed = UINT32_MAX;
};

} // namespace ringside
