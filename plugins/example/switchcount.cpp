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
    void bind(const std::vector<bool>& bound) override { m_bound = bound[0]; }
    void consume(const ringside::ConsumedRecord& record) override
    {
        const int32_t pid = int32_t(record.field(0).asSigned());
        ++m_switches[pid];
        m_marks.time.push_back(record.timestamp);
        m_marks.ownerId.push_back(pid);
        m_marks.label.push_back(0);
    }
    std::string nothingToShow() const override
    {
        if (!m_bound) return "the recording has no sched_switch events";
        return m_switches.empty() ? "no context switches were recorded" : "";
    }
    ringside::PluginTables tables(const ringside::RecordingInfo& info) const override
    {
        ringside::PluginTables out;
        ringside::InstantTable marks = m_marks;
        marks.name = "Switches out";
        marks.labels = {"switch out"};
        out.instants.push_back(std::move(marks));
        ringside::StatsTable stats{
            "tasks", "Context switches out", {{"pid", "PID"}, {"comm", "Task"}, {"switches_out", "Switches out"}}, {}};
        for (const auto& [pid, n] : m_switches)
            stats.rows.push_back({int64_t(pid), info.taskName ? info.taskName(pid) : std::string(), n});
        out.statistics.push_back(std::move(stats));
        return out;
    }

private:
    bool m_bound = false;
    std::map<int32_t, int64_t> m_switches;
    ringside::InstantTable m_marks;
};

} // namespace

RINGSIDE_PLUGIN(SwitchCount)
