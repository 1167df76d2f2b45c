// SPDX-License-Identifier: GPL-2.0-or-later
#include "calls/callcontext.h"
#include "calls/calltree.h"
#include "calls/functioncalls.h"
#include "clitext.h"
#include "commands.h"
#include "jsonschema.h"
#include "pluginchoice.h"
#include "trace.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <numeric>

namespace ringside::cli {

namespace {

const char* const kCalltreeUsage =
    "usage: ringside-cli calltree FILE [--pid P] [--cpu C] [--from SEC] [--to SEC] [--json]\n"
    "       ringside-cli calltree FILE --calls [--pid P] [--cpu C] [--from SEC] [--to SEC]\n"
    "       ringside-cli calltree FILE --each FUNCTION [--pid P] [--cpu C] [--from SEC] [--to SEC] [--json]\n";
const char* const kFuncstatsUsage = "usage: ringside-cli funcstats FILE [--per-cpu] [--json]\n";

struct CallOptions {
    std::string path;
    CallSelection selection;
    bool json = false;
    bool calls = false;
    bool perCpu = false;
    std::string each;
};

// Parses FILE and the selection options; `extra` takes the command's own flags.
bool parseOptions(const std::vector<std::string>& args, CallOptions& options, bool calltree)
{
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        const bool hasValue = i + 1 < args.size();
        if (a == "--json") {
            options.json = true;
        } else if (calltree && a == "--calls") {
            options.calls = true;
        } else if (!calltree && a == "--per-cpu") {
            options.perCpu = true;
        } else if (calltree && a == "--each" && hasValue) {
            options.each = args[++i];
        } else if (calltree && a == "--pid" && hasValue) {
            options.selection.pids = {int32_t(std::strtol(args[++i].c_str(), nullptr, 10))};
        } else if (calltree && a == "--cpu" && hasValue) {
            options.selection.cpu = std::atoi(args[++i].c_str());
        } else if (calltree && (a == "--from" || a == "--to") && hasValue) {
            uint64_t ns = 0;
            if (!parseSeconds(args[++i], ns)) {
                std::fprintf(stderr, "ringside-cli: %s wants seconds such as 33.470282, not '%s'\n", a.c_str(),
                             args[i].c_str());
                return false;
            }
            (a == "--from" ? options.selection.from : options.selection.to) = ns;
        } else if (options.path.empty() && (a.empty() || a[0] != '-')) {
            options.path = a;
        } else {
            return false;
        }
    }
    return !options.path.empty() && !(options.calls && (options.json || !options.each.empty()));
}

// "returns -7 E2BIG (x3), 0 (x12)", or nothing when the kernel recorded no return values.
std::string returnsPhrase(const CallCost& cost)
{
    const std::string text = returnsText(cost);
    return text.empty() ? text : "returns " + text;
}

std::string returnsJson(const CallCost& cost)
{
    std::string json = "[";
    for (size_t k = 0; k < cost.returns.size(); ++k) {
        const ReturnCount& r = cost.returns[k];
        const std::string name = errnoName(r.value);
        json += (k ? ", " : "") + std::string("{\"value\": ") + std::to_string(r.value) +
                (name.empty() ? "" : ", \"error\": " + jsonString(name)) + ", \"count\": " + std::to_string(r.count) +
                "}";
    }
    return json + "]";
}

// The tree below `top` (not `top` itself), heaviest first, without recursion: a damaged
// recording can nest calls as deep as it has calls.
void printTree(const CallTree& tree, uint32_t top, const std::vector<std::string>& names, int indent)
{
    std::vector<std::pair<uint32_t, int>> todo;
    const auto first = tree.sortedChildren(top);
    for (auto it = first.rbegin(); it != first.rend(); ++it) todo.emplace_back(*it, indent);
    while (!todo.empty()) {
        const auto [n, level] = todo.back();
        todo.pop_back();
        const CallTree::Node& node = tree.node(n);
        const CallCost& c = node.cost;
        std::string line;
        if (c.open) line += "  (" + std::to_string(c.open) + " without exit)";
        const std::string returns = returnsPhrase(c);
        if (!returns.empty()) line += "  " + returns;
        std::printf("%9" PRIu64 " %14s %14s  %*s%s%s\n", c.calls, micros(c.total).c_str(), micros(c.self).c_str(),
                    level * 2, "", nodeLabel(node, names).c_str(), line.c_str());
        const auto children = tree.sortedChildren(n);
        for (auto it = children.rbegin(); it != children.rend(); ++it) todo.emplace_back(*it, level + 1);
    }
}

void printTreeJson(const CallTree& tree, uint32_t top, const std::vector<std::string>& names, int indent)
{
    // Each entry: a node to open, or (n == ~0) the closing of the innermost open node.
    struct Step {
        uint32_t node;
        bool close;
        bool first;
    };
    std::vector<Step> todo;
    auto pushChildren = [&](uint32_t n) {
        const auto children = tree.sortedChildren(n);
        for (size_t k = children.size(); k-- > 0;) todo.push_back({children[k], false, k == 0});
    };
    std::printf("[");
    pushChildren(top);
    int depth = indent;
    while (!todo.empty()) {
        const Step step = todo.back();
        todo.pop_back();
        if (step.close) {
            --depth;
            std::printf("]}");
            continue;
        }
        const CallTree::Node& node = tree.node(step.node);
        const CallCost& c = node.cost;
        std::printf("%s\n%*s{\"function\": %s, \"calls\": %" PRIu64 ", \"without_exit\": %" PRIu64
                    ", \"total_ns\": %" PRIu64 ", \"self_ns\": %" PRIu64 ", \"min_ns\": %" PRIu64
                    ", \"max_ns\": %" PRIu64 ", \"errors\": %" PRIu64 ", \"returns\": %s, \"children\": [",
                    step.first ? "" : ",", depth * 2, "", jsonString(nodeLabel(node, names)).c_str(), c.calls, c.open,
                    c.total, c.self, c.returned() ? c.min : 0, c.max, c.errors, returnsJson(c).c_str());
        ++depth;
        todo.push_back({step.node, true, false});
        pushChildren(step.node);
    }
    std::printf("]");
}

// The calls of `function` in start order, each with its own tree and the system call's end.
int printEach(const Trace& trace, const CallOptions& options, const std::vector<std::string>& names)
{
    const CallSlices& calls = trace.callSlices();
    std::vector<uint32_t> matches;
    for (size_t i = 0; i < calls.size(); ++i)
        if (names[calls.function(i)] == options.each && options.selection.contains(calls, i))
            matches.push_back(uint32_t(i));
    std::stable_sort(matches.begin(), matches.end(),
                     [&](uint32_t a, uint32_t b) { return calls.start(a) < calls.start(b); });
    if (matches.empty()) {
        std::fprintf(stderr, "ringside-cli: %s: no calls of %s\n", options.path.c_str(), options.each.c_str());
        return 1;
    }
    if (options.json)
        std::printf("{\"schema\": \"%s\", \"file\": %s, \"calls\": [", schema::kCallTreeEach,
                    jsonString(options.path).c_str());
    for (size_t m = 0; m < matches.size(); ++m) {
        const uint32_t i = matches[m];
        CallSelection one = options.selection;
        one.root = i;
        const CallTree tree = CallTree::topDown(calls, one);
        const auto exit = syscallAround(trace, calls.pid(i), calls.start(i));
        const bool open = calls.flags(i) & kCallOpen;
        std::string syscall;
        if (exit) {
            const std::string error = errnoName(exit->ret);
            syscall = exit->name + " = " + std::to_string(exit->ret) + (error.empty() ? "" : " " + error) + " at " +
                      seconds(exit->exit);
        }
        if (options.json) {
            std::printf("%s\n  {\"start\": %s, \"pid\": %d, \"cpu\": %d, \"duration_ns\": %s, \"syscall_exit\": %s, "
                        "\"tree\": ",
                        m ? "," : "", seconds(calls.start(i)).c_str(), calls.pid(i), calls.cpu(i),
                        open ? "null" : std::to_string(calls.duration(i)).c_str(),
                        exit ? ("{\"syscall\": " + jsonString(exit->name) + ", \"ret\": " + std::to_string(exit->ret) +
                                ", \"error\": " + jsonString(errnoName(exit->ret)) + ", \"at\": " + seconds(exit->exit) +
                                "}")
                                   .c_str()
                             : "null");
            printTreeJson(tree, 0, names, 2);
            std::printf("}");
        } else {
            std::printf("%s%s call %zu of %zu: %s pid %d cpu %d, %s us%s%s\n", m ? "\n" : "", options.each.c_str(),
                        m + 1, matches.size(), seconds(calls.start(i)).c_str(), calls.pid(i), calls.cpu(i),
                        open ? "-" : micros(calls.duration(i)).c_str(), syscall.empty() ? "" : ", then ",
                        syscall.c_str());
            std::printf("%9s %14s %14s  %s\n", "CALLS", "TOTAL_US", "SELF_US", "FUNCTION");
            printTree(tree, 0, names, 0);
        }
    }
    if (options.json) std::printf("\n]}\n");
    return 0;
}

int printCalls(const CallSlices& calls, const CallSelection& selection, const std::vector<std::string>& names)
{
    std::vector<uint32_t> order;
    for (size_t i = 0; i < calls.size(); ++i)
        if (selection.contains(calls, i)) order.push_back(uint32_t(i));
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return calls.start(a) < calls.start(b); });
    for (uint32_t i : order) {
        std::string duration = calls.flags(i) & kCallOpen ? "-" : std::to_string(calls.duration(i));
        std::string retval;
        if (calls.hasRetval(i)) {
            retval = " " + std::to_string(calls.retval(i));
            const std::string error = errnoName(calls.retval(i));
            if (!error.empty()) retval += "(" + error + ")";
        }
        std::printf("%" PRIu64 " %d %d %" PRId64 " %s %s%s\n", calls.start(i), calls.cpu(i), calls.pid(i),
                    calls.depth(i), duration.c_str(), names[calls.function(i)].c_str(), retval.c_str());
    }
    return 0;
}

// Opens a recording that has function_graph records (or, with `functionTracer`, function
// records instead).
Result<std::unique_ptr<Trace>> openWithCalls(const std::string& path, bool functionTracer = false,
                                             std::vector<std::unique_ptr<Plugin>> plugins = {})
{
    auto trace = Trace::open(path, LoadOptions(), {}, std::move(plugins));
    if (!trace) return trace.error();
    noteFailures(**trace, path);
    if ((*trace)->callSlices().available()) return trace;
    if ((*trace)->functionCalls().available()) {
        if (functionTracer) return trace;
        return Error{path + ": the recording has function tracer records, which have no durations or nesting; "
                            "`ringside-cli funcstats` counts them per function and caller"};
    }
    return Error{path + ": the recording has no function_graph records (funcgraph_entry/funcgraph_exit)"};
}

// The function tracer's counts: per function its hits and its callers, most hits first.
int printFunctionTracer(const Trace& trace, const CallOptions& options)
{
    const FunctionCallGraph graph = FunctionCallGraph::of(trace.functionCalls(), trace);
    if (options.json) {
        std::printf("{\"schema\": \"%s\", \"file\": %s, \"tracer\": \"function\", \"records\": %" PRIu64
                    ", \"functions\": [",
                    schema::kFunctionHits, jsonString(options.path).c_str(), trace.functionCalls().records());
        bool first = true;
        for (const FunctionCallGraph::Function& f : graph.functions) {
            if (!f.hits) continue;
            std::printf("%s\n  {\"function\": %s, \"hits\": %" PRIu64 ", \"callers\": [", first ? "" : ",",
                        jsonString(f.name).c_str(), f.hits);
            for (size_t k = 0; k < f.callers.size(); ++k)
                std::printf("%s{\"function\": %s, \"count\": %" PRIu64 "}", k ? ", " : "",
                            jsonString(f.callers[k].function).c_str(), f.callers[k].count);
            std::printf("]}");
            first = false;
        }
        std::printf("\n]}\n");
        return 0;
    }
    std::printf("# %s: function tracer, %" PRIu64 " records (no durations: hits and callers)\n", options.path.c_str(),
                trace.functionCalls().records());
    std::printf("%-40s %9s  %s\n", "FUNCTION", "HITS", "CALLERS (calls)");
    for (const FunctionCallGraph::Function& f : graph.functions) {
        if (!f.hits) continue;
        std::string callers;
        for (size_t k = 0; k < f.callers.size() && k < 4; ++k)
            callers += (k ? ", " : "") + f.callers[k].function + " (" + std::to_string(f.callers[k].count) + ")";
        if (f.callers.size() > 4) callers += ", ...";
        std::printf("%-40s %9" PRIu64 "  %s\n", f.name.c_str(), f.hits, callers.c_str());
    }
    return 0;
}

} // namespace

int calltreeCommand(const std::vector<std::string>& args)
{
    CallOptions options;
    if (!parseOptions(args, options, true)) {
        std::fputs(kCalltreeUsage, stderr);
        return 2;
    }
    // Each call's system call is the syscalls plugin's: the one pairing of entries and returns.
    std::vector<std::unique_ptr<Plugin>> plugins;
    if (!options.each.empty()) {
        PluginChoice choice;
        choice.only = {"syscalls"};
        std::string error;
        if (!choice.instantiate(plugins, error))
            std::fprintf(stderr, "ringside-cli: %s; the calls are printed without their system calls\n", error.c_str());
    }
    auto trace = openWithCalls(options.path, false, std::move(plugins));
    if (!trace) {
        std::fprintf(stderr, "ringside-cli: %s\n", trace.error().message.c_str());
        return 1;
    }
    static char buffer[1 << 20];
    std::setvbuf(stdout, buffer, _IOFBF, sizeof buffer);
    const CallSlices& calls = (*trace)->callSlices();
    const std::vector<std::string> names = calls.functionNames();
    if (options.calls) return printCalls(calls, options.selection, names);
    if (!options.each.empty()) return printEach(**trace, options, names);

    const CallTree tree = CallTree::topDown(calls, options.selection);
    const CallCost& all = tree.root().cost;
    const CallPairing& pairing = calls.pairing();
    if (options.json) {
        std::printf("{\"schema\": \"%s\", \"file\": %s, \"calls\": %" PRIu64 ", \"without_exit\": %" PRIu64
                    ", \"total_ns\": %" PRIu64 ", \"exits_without_entry\": %" PRIu64
                    ", \"entries_without_exit\": %" PRIu64 ", \"broken_by_lost_events\": %" PRIu64 ",\n \"tree\": ",
                    schema::kCallTree, jsonString(options.path).c_str(), tree.calls(), tree.openCalls(), all.total,
                    pairing.exitsWithoutEntry, pairing.entriesWithoutExit, pairing.brokenByLoss);
        printTreeJson(tree, 0, names, 1);
        std::printf("}\n");
        return 0;
    }
    std::printf("# %s: %" PRIu64 " calls (%" PRIu64 " without exit), %" PRIu64 " exits without entry, %" PRIu64
                " entries closed without exit, %" PRIu64 " broken by lost events\n",
                options.path.c_str(), tree.calls(), tree.openCalls(), pairing.exitsWithoutEntry,
                pairing.entriesWithoutExit, pairing.brokenByLoss);
    std::printf("%9s %14s %14s  %s\n", "CALLS", "TOTAL_US", "SELF_US", "FUNCTION");
    printTree(tree, 0, names, 0);
    return 0;
}

int funcstatsCommand(const std::vector<std::string>& args)
{
    CallOptions options;
    if (!parseOptions(args, options, false)) {
        std::fputs(kFuncstatsUsage, stderr);
        return 2;
    }
    auto trace = openWithCalls(options.path, true);
    if (!trace) {
        std::fprintf(stderr, "ringside-cli: %s\n", trace.error().message.c_str());
        return 1;
    }
    const CallSlices& calls = (*trace)->callSlices();
    if (!calls.available()) return printFunctionTracer(**trace, options);
    const std::vector<std::string> names = calls.functionNames();
    FunctionStats stats = FunctionStats::of(calls, options.selection);
    auto byTotal = [&](const FunctionStats::Row& a, const FunctionStats::Row& b) {
        if (a.cost.total != b.cost.total) return a.cost.total > b.cost.total;
        return names[a.function] < names[b.function];
    };
    std::vector<const std::vector<FunctionStats::Row>*> tables = {&stats.overall};
    std::sort(stats.overall.begin(), stats.overall.end(), byTotal);
    for (auto& rows : stats.cpus) std::sort(rows.begin(), rows.end(), byTotal);
    if (options.perCpu || options.json)
        for (const auto& rows : stats.cpus)
            if (!rows.empty()) tables.push_back(&rows);

    if (options.json)
        std::printf("{\"schema\": \"%s\", \"file\": %s, \"functions\": [", schema::kFuncstats,
                    jsonString(options.path).c_str());
    bool firstRow = true;
    for (const auto* rows : tables) {
        if (!options.json) {
            if (rows != &stats.overall) std::printf("\n# CPU %d\n", rows->front().cpu);
            std::printf("%-40s %9s %14s %14s %12s %12s %12s %12s %s\n", "FUNCTION", "HITS", "TOTAL_US", "SELF_US",
                        "AVG_US", "STDDEV_US", "MIN_US", "MAX_US", "RETURNS");
        }
        for (const FunctionStats::Row& row : *rows) {
            const CallCost& c = row.cost;
            const uint64_t min = c.returned() ? c.min : 0;
            if (options.json) {
                std::printf("%s\n  {\"function\": %s, \"cpu\": %d, \"hits\": %" PRIu64 ", \"without_exit\": %" PRIu64
                            ", \"total_ns\": %" PRIu64 ", \"self_ns\": %" PRIu64 ", \"avg_ns\": %" PRIu64
                            ", \"stddev_ns\": %.0f, \"min_ns\": %" PRIu64 ", \"max_ns\": %" PRIu64
                            ", \"errors\": %" PRIu64 ", \"returns\": %s}",
                            firstRow ? "" : ",", jsonString(names[row.function]).c_str(), row.cpu, c.calls, c.open,
                            c.total, c.self, c.average(), row.stddev(), min, c.max, c.errors, returnsJson(c).c_str());
                firstRow = false;
            } else {
                std::printf("%-40s %9" PRIu64 " %14s %14s %12s %12s %12s %12s %s\n", names[row.function].c_str(),
                            c.calls, micros(c.total).c_str(), micros(c.self).c_str(), micros(c.average()).c_str(),
                            micros(uint64_t(row.stddev() + 0.5)).c_str(), micros(min).c_str(), micros(c.max).c_str(),
                            returnsPhrase(c).c_str());
            }
        }
    }
    if (options.json) std::printf("\n]}\n");
    return 0;
}

} // namespace ringside::cli
