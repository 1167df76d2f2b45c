// SPDX-License-Identifier: GPL-2.0-or-later
// An example plugin that makes one table of each kind, built against the installed headers
// only (see ../README.md, which quotes its parts; tests/tst_timelinewidget.cpp builds it in
// and draws what it makes):
//
//     c++ -std=c++20 -shared -fPIC -fvisibility=hidden -I/usr/include/ringside
//         cpuruns.cpp -o ~/.local/share/ringside/plugins/cpuruns.so   (one command)
//
// From sched_switch and sched_wakeup: on each CPU's row, whether it idled (intervals), its
// busy stretches with the tasks that ran in them nested inside (slices with depth and
// labels), the moments it went idle (instants) and the priority of what it ran (a counter);
// on the task rows, their wakeups as arrows to the switch that ran them (flows).
#include "plugin/plugin.h"

#include <map>
#include <unordered_map>

namespace {

using namespace ringside;

class CpuRuns : public Plugin {
public:
    std::string name() const override { return "cpuruns"; }
    std::string description() const override { return "Busy stretches and runs per CPU (an example)"; }
    std::vector<EventRequest> requests() const override
    {
        // next_pid names a task (taskAt below): the core makes it before the batch is fed.
        return {{"sched", "sched_switch", {"prev_pid", "next_pid", "next_prio", "next_comm"}, false, {}, {"next_pid"}},
                {"sched", "sched_wakeup", {"pid"}}};
    }
    void setRecording(const RecordingInfo& info) override { m_info = info; }

    // [tables]
    void setTables(TableSink& tables) override
    {
        m_idle = &tables.intervals({"idle", "Idle", RowOwner::Cpu, {{"busy", 0x4a90d9}, {"idle", 0xe8e8e8}}});
        m_runs = &tables.slices({"runs", "Runs", RowOwner::Cpu, "", ""});
        m_wentIdle = &tables.instants({"went_idle", "Went idle", RowOwner::Cpu, {"went idle"}});
        m_prio = &tables.counters({"prio", "Priority run", RowOwner::Cpu, ""});
        m_wakeups = &tables.flows({"wakeups", "Wakeup to run", RowOwner::Task, "latency"});
        m_busy = m_runs->label("busy");
    }
    // [tables]

    void bind(const std::vector<bool>& bound) override { m_bound = bound[0]; }

    void consume(const ConsumedRecord& record) override
    {
        const uint64_t t = record.timestamp;
        if (record.request == 1) { // sched_wakeup: the woken task, until it runs
            const int32_t pid = int32_t(record.field(0).asSigned());
            m_woken[pid] = {t, record.task.value};
            return;
        }
        Cpu& cpu = m_cpus[record.stream.value];
        const uint32_t owner = record.stream.value;
        const int32_t nextPid = int32_t(record.field(1).asSigned());
        const bool idle = nextPid == 0;
        ++m_switches[owner];

        // [intervals]
        // A state per CPU: the last one closes here, the new one is open until the next switch.
        if (cpu.since) m_idle->add(cpu.since, t, owner, cpu.idle ? 1 : 0);
        m_idle->open(t, owner, idle ? 1 : 0);
        // [intervals]

        // [slices]
        // A busy stretch (depth 0) from leaving idle to going idle again, and each task's run
        // inside it (depth 1), labelled by the task's name.
        if (cpu.runStart && !cpu.idle)
            m_runs->add({cpu.runStart, t, owner, cpu.runLabel, 0, 1, 0, {}, {}});
        if (cpu.busyStart && idle) {
            m_runs->add({cpu.busyStart, t, owner, m_busy, 0, 0, 0, {}, {}});
            cpu.busyStart = 0;
        }
        if (!idle && !cpu.busyStart) cpu.busyStart = t;
        cpu.runStart = t;
        cpu.runLabel = m_runs->label(record.field(3).asText());
        // [slices]

        // [instants]
        if (idle && !cpu.idle) m_wentIdle->add(t, owner, 0);
        // [instants]

        // [counters]
        m_prio->add(t, owner, idle ? 0 : record.field(2).asSigned());
        // [counters]

        // [flows]
        // From the waker's task at the wakeup to the woken task when it runs.
        if (auto woken = m_woken.find(nextPid); woken != m_woken.end() && m_info.taskAt) {
            const uint32_t task = m_info.taskAt(nextPid, t);
            m_wakeups->add(woken->second.time, woken->second.waker, t, task, int64_t(t - woken->second.time));
            m_woken.erase(woken);
        }
        // [flows]

        cpu.since = t;
        cpu.idle = idle;
    }

    std::string nothingToShow() const override
    {
        return m_bound ? (m_switches.empty() ? "no context switches were recorded" : "")
                       : "the recording has no sched_switch events";
    }

    std::vector<StatsTable> statistics() const override
    {
        StatsTable stats{"cpus", "Switches per CPU", {}, false};
        auto& cpu = stats.column("stream", "CPU row", StatsTable::Kind::Number);
        auto& count = stats.column("switches", "Switches", StatsTable::Kind::Count);
        for (const auto& [stream, n] : m_switches) {
            cpu.numbers.push_back(stream);
            count.numbers.push_back(n);
        }
        return {stats};
    }

private:
    struct Cpu {
        uint64_t since = 0, busyStart = 0, runStart = 0;
        uint32_t runLabel = 0;
        bool idle = false;
    };
    struct Woken {
        uint64_t time;
        uint32_t waker;
    };
    RecordingInfo m_info;
    bool m_bound = false;
    std::map<uint32_t, Cpu> m_cpus;
    std::map<uint32_t, int64_t> m_switches;
    std::unordered_map<int32_t, Woken> m_woken;
    IntervalSink* m_idle = nullptr;
    SliceSink* m_runs = nullptr;
    InstantSink* m_wentIdle = nullptr;
    CounterSink* m_prio = nullptr;
    FlowSink* m_wakeups = nullptr;
    uint32_t m_busy = 0;
};

} // namespace

RINGSIDE_PLUGIN(CpuRuns)
