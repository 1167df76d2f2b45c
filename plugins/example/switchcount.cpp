// SPDX-License-Identifier: GPL-2.0-or-later
// An example plugin, built against the installed headers only (see ../README.md):
//
//     c++ -std=c++20 -shared -fPIC -fvisibility=hidden -I/usr/include/ringside
//         switchcount.cpp -o ~/.local/share/ringside/plugins/switchcount.so   (one command)
//     ringside-cli stats trace.dat --plugin switchcount
//
// It counts each task's context switches out (sched_switch, as prev) and marks them on the
// task rows.
#include "plugin/plugin.h"

#include <map>

namespace {

class SwitchCount : public ringside::Plugin {
public:
    std::string name() const override { return "switchcount"; }
    std::string description() const override { return "Context switches out per task (an example)"; }
    std::vector<ringside::EventRequest> requests() const override
    {
        return {{"sched", "sched_switch", {"prev_pid"}, false}};
    }
    // A track table of marks, one per switch out, on the task's row.
    void setTables(ringside::TableSink& tables) override
    {
        m_marks = &tables.instants({"switches_out", "Switches out", ringside::RowOwner::Task, {"switch out"}});
    }
    void bind(const std::vector<bool>& bound) override { m_bound = bound[0]; }
    // record.task is the task that switched out (the record's own task: prev).
    void consume(const ringside::ConsumedRecord& record) override
    {
        if (!record.task.valid()) return;
        ++m_switches[record.task.value];
        m_marks->add(record.timestamp, record.task.value, 0);
    }
    std::string nothingToShow() const override
    {
        if (!m_bound) return "the recording has no sched_switch events";
        return m_switches.empty() ? "no context switches were recorded" : "";
    }
    // A statistics table: a task column (the app names it) and a count.
    std::vector<ringside::StatsTable> statistics() const override
    {
        ringside::StatsTable stats{"tasks", "Context switches out", {}, false};
        auto& task = stats.column("task", "Task", ringside::StatsTable::Kind::Task);
        auto& count = stats.column("switches_out", "Switches out", ringside::StatsTable::Kind::Count);
        for (const auto& [id, n] : m_switches) {
            task.numbers.push_back(id);
            count.numbers.push_back(n);
        }
        return {stats};
    }

private:
    bool m_bound = false;
    std::map<uint32_t, int64_t> m_switches;
    ringside::InstantSink* m_marks = nullptr;
};

} // namespace

RINGSIDE_PLUGIN(SwitchCount)
