// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "plugin/plugin.h"
#include "store/blocklist.h"

#include <string>
#include <unordered_map>
#include <vector>

namespace ringside::workqueue {

// Each work item's life, from workqueue_queue_work through activate and execute_start to
// execute_end, matched by the work struct's address: its run as a slice on the worker's task
// row named by the work function, a flow from the queuing event to the run, queue latency and
// run time per work function, and the items queued but never run.
class WorkqueuePlugin : public Plugin {
public:
    static constexpr const char* kName = "workqueue";

    // One queuing and run of a work item. Times are 0 where the event was not recorded.
    struct Item {
        uint64_t work = 0, function = 0;
        uint64_t queued = 0, activated = 0, started = 0, ended = 0;
        int32_t queuer = -1, worker = -1;
        int32_t cpu = -1; // the CPU it was queued for
        bool ran() const { return started != 0; }
        bool finished() const { return started != 0 && ended != 0; }
        uint64_t latency() const { return queued && started >= queued ? started - queued : 0; }
        uint64_t runTime() const { return finished() && ended >= started ? ended - started : 0; }
    };

    std::string name() const override { return kName; }
    std::string description() const override;
    std::vector<EventRequest> requests() const override;
    void bind(const std::vector<bool>& bound) override { m_bound = bound; }
    void consume(const ConsumedRecord& record) override;
    std::string nothingToShow() const override;
    PluginTables tables(const RecordingInfo& info) const override;

    // The life of a work item, by plain values (what consume() calls).
    void queued(uint64_t t, uint64_t work, uint64_t function, int32_t pid, int32_t cpu);
    void activated(uint64_t t, uint64_t work);
    void started(uint64_t t, uint64_t work, uint64_t function, int32_t worker);
    void ended(uint64_t t, uint64_t work);

    // In the order they were queued (or, without a queuing, started).
    const BlockList<Item>& items() const { return m_items; }
    // execute_end records whose start was not recorded.
    uint64_t endsWithoutStart() const { return m_endsWithoutStart; }

private:
    std::vector<bool> m_bound;
    BlockList<Item> m_items;
    std::unordered_map<uint64_t, size_t> m_pending; // by work: queued, not yet started
    std::unordered_map<uint64_t, size_t> m_running; // by work: started, not yet ended
    uint64_t m_endsWithoutStart = 0;
};

} // namespace ringside::workqueue
