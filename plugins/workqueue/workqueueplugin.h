// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "plugin/plugin.h"

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace ringside::workqueue {

// Each work item's life, from workqueue_queue_work through activate and execute_start to
// execute_end, matched by the work struct's address: its run as a slice on the worker's task
// row named by the work function, a flow from the queuing event to the run, queue latency and
// run time per work function, and the items queued but never run (marked on the queuer's row
// once the recording ends). It keeps only the items queued or running: what ran is in its
// tables and sums.
class WorkqueuePlugin : public Plugin {
public:
    static constexpr const char* kName = "workqueue";

    // One queuing and run of a work item, while it waits or runs. Times are 0 where the event
    // was not recorded; tasks are TaskId values.
    struct Item {
        uint64_t work = 0, function = 0;
        uint64_t queued = 0, activated = 0, started = 0;
        uint32_t queuer = kNoTask, worker = kNoTask;
        int32_t cpu = -1; // the CPU it was queued for
        EventRef queuedEvent, startEvent;
        uint64_t latency() const { return queued && started >= queued ? started - queued : 0; }
    };
    // What ran of one work function.
    struct Sums {
        uint64_t count = 0, timedLatency = 0, totalLatency = 0, maxLatency = 0;
        uint64_t timedRuns = 0, totalRun = 0, maxRun = 0;
        EventRef maxLatencyAt, maxRunAt;
        uint32_t maxLatencyWorker = kNoTask, maxRunWorker = kNoTask;
    };
    static constexpr uint32_t kNoTask = UINT32_MAX;

    std::string name() const override { return kName; }
    std::string description() const override;
    std::vector<EventRequest> requests() const override;
    void setRecording(const RecordingInfo& info) override { m_info = info; }
    void setTables(TableSink& tables) override;
    void bind(const std::vector<bool>& bound) override { m_bound = bound; }
    void consume(const ConsumedRecord& record) override;
    void finish() override;
    std::string nothingToShow() const override;
    std::vector<StatsTable> statistics() const override;

    // The life of a work item, by plain values (what consume() calls).
    void queued(uint64_t t, uint64_t work, uint64_t function, uint32_t queuer, int32_t cpu, EventRef at = {});
    void activated(uint64_t t, uint64_t work);
    void started(uint64_t t, uint64_t work, uint64_t function, uint32_t worker, EventRef at = {});
    void ended(uint64_t t, uint64_t work, EventRef at = {});

    // Per work function address.
    const std::map<uint64_t, Sums>& sums() const { return m_sums; }
    // Queued and not yet run, in the order queued.
    std::vector<Item> waiting() const;
    // execute_end records whose start was not recorded.
    uint64_t endsWithoutStart() const { return m_endsWithoutStart; }

private:
    std::string functionName(uint64_t address) const;

    RecordingInfo m_info;
    std::vector<bool> m_bound;
    SliceSink* m_runs = nullptr;
    FlowSink* m_queuing = nullptr;
    InstantSink* m_neverRun = nullptr;
    std::unordered_map<uint64_t, uint32_t> m_labels; // by function address
    std::unordered_map<uint64_t, Item> m_pending;    // by work: queued, not yet started
    std::unordered_map<uint64_t, Item> m_running;    // by work: started, not yet ended
    std::map<uint64_t, Sums> m_sums;
    uint64_t m_endsWithoutStart = 0;
    bool m_any = false;
};

} // namespace ringside::workqueue
