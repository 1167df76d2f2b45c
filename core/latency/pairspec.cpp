// SPDX-License-Identifier: GPL-2.0-or-later
#include "latency/pairspec.h"

namespace ringside {

namespace {

struct Preset {
    const char* name;
    const char* from;
    const char* to;
    std::vector<std::pair<std::string, std::string>> fields;
    bool sameTask, sameCpu, nesting;
    const char* filterFrom = "";
    const char* filterTo = "";
    PairSpec::TextPrefix startText = {}, endText = {};
};

const std::vector<Preset>& presets()
{
    static const std::vector<Preset> all = {
        // A hard interrupt's handler runs on the CPU it entered, without being interrupted by
        // the same line.
        {"irq", "irq/irq_handler_entry", "irq/irq_handler_exit", {{"irq", "irq"}}, false, true, false},
        {"softirq", "irq/softirq_entry", "irq/softirq_exit", {{"vec", "vec"}}, false, true, false},
        {"block",
         "block/block_rq_issue",
         "block/block_rq_complete",
         {{"dev", "dev"}, {"sector", "sector"}},
         false,
         false,
         false},
        // From the wakeup to the context switch that runs the woken task.
        {"wakeup", "sched/sched_wakeup", "sched/sched_switch", {{"pid", "next_pid"}}, false, false, false},
        {"waking", "sched/sched_waking", "sched/sched_switch", {{"pid", "next_pid"}}, false, false, false},
        {"syscall", "raw_syscalls/sys_enter", "raw_syscalls/sys_exit", {{"id", "id"}}, true, false, false},
        {"workqueue",
         "workqueue/workqueue_execute_start",
         "workqueue/workqueue_execute_end",
         {{"work", "work"}},
         true,
         false,
         false},
        {"kmalloc", "kmem/kmalloc", "kmem/kfree", {{"ptr", "ptr"}}, false, false, false},
        // Off the CPU: from the switch that took a task off to the one that ran it again.
        {"offcpu", "sched/sched_switch", "sched/sched_switch", {{"prev_pid", "next_pid"}}, false, false, false},
        // Marks written to trace_marker as systrace's (and Perfetto's) begin and end marks: a
        // task's "B|pid|name" opens a span that its next "E|pid" closes, innermost first.
        {"print", "ftrace/print", "ftrace/print", {}, true, false, true, "", "", {"buf", "B|"}, {"buf", "E|"}},
    };
    return all;
}

} // namespace

std::pair<std::string, std::string> PairSpec::parseField(std::string_view text)
{
    const size_t eq = text.find('=');
    if (eq == std::string_view::npos) return {std::string(text), std::string(text)};
    return {std::string(text.substr(0, eq)), std::string(text.substr(eq + 1))};
}

std::string PairSpec::matchDescription() const
{
    std::string out;
    for (const auto& [start, end] : fields) {
        if (!out.empty()) out += ", ";
        out += start == end ? start : start + "=" + end;
    }
    auto add = [&out](const char* what) { out += (out.empty() ? "" : ", ") + std::string(what); };
    if (sameTask) add("on the same task");
    if (sameCpu) add("on the same CPU");
    if (out.empty()) out = "the previous start";
    if (nesting) out += " (nested: the innermost start)";
    if (!startText.empty()) out += "; starts where " + startText.field + " begins with " + startText.prefix;
    if (!endText.empty()) out += "; ends where " + endText.field + " begins with " + endText.prefix;
    if (!filterFrom.empty()) out += "; starts where " + filterFrom;
    if (!filterTo.empty()) out += "; ends where " + filterTo;
    return out;
}

void PairSpec::refineFilters(const std::string& from, const std::string& to)
{
    auto both = [](std::string& mine, const std::string& more) {
        if (more.empty()) return;
        mine = mine.empty() ? more : "(" + mine + ") && (" + more + ")";
    };
    both(filterFrom, from);
    both(filterTo, to);
}

std::optional<PairSpec> presetPair(std::string_view name)
{
    for (const Preset& p : presets()) {
        if (name != p.name) continue;
        PairSpec spec;
        spec.name = p.name;
        spec.from = p.from;
        spec.to = p.to;
        spec.fields = p.fields;
        spec.sameTask = p.sameTask;
        spec.sameCpu = p.sameCpu;
        spec.nesting = p.nesting;
        spec.filterFrom = p.filterFrom;
        spec.filterTo = p.filterTo;
        spec.startText = p.startText;
        spec.endText = p.endText;
        return spec;
    }
    return std::nullopt;
}

std::vector<std::string> presetPairNames()
{
    std::vector<std::string> names;
    for (const Preset& p : presets()) names.push_back(p.name);
    return names;
}

} // namespace ringside
