// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "calls/callslices.h"
#include "util/flatindex.h"

#include <atomic>
#include <cstdint>
#include <deque>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace ringside {

// Which calls a tree or a statistic covers: those running at some time in [from, to) (a call
// without an exit runs to the end), of the chosen tasks (none: all), that began on the chosen
// CPU (-1: all), within the call `root` if one is set. Every caller of a call in the range is
// in it too. An interrupt belongs to the task it interrupted.
struct CallSelection {
    std::vector<int32_t> pids; // ascending
    int cpu = -1;
    uint64_t from = 0;
    uint64_t to = std::numeric_limits<uint64_t>::max();
    uint32_t root = CallSlices::kNoParent; // a call: only it and what it called

    bool contains(const CallSlices& calls, size_t i) const;
};

// How often a merged node returned a value, for the few distinct values it returned.
struct ReturnCount {
    int64_t value = 0;
    uint64_t count = 0;
};

// Durations and counts of a set of calls: a tree node, a function's statistics.
struct CallCost {
    uint64_t calls = 0;
    uint64_t open = 0;  // calls without an exit: counted, no time
    uint64_t total = 0; // inclusive time of the calls that returned
    uint64_t self = 0;  // total less the time of their (non-interrupt) children
    uint64_t min = std::numeric_limits<uint64_t>::max();
    uint64_t max = 0;
    uint64_t errors = 0;              // returns of a negative errno value
    std::vector<ReturnCount> returns; // the first kMaxReturns distinct values, most recent order
    bool moreReturns = false;         // other values were returned too
    static constexpr size_t kMaxReturns = 6;

    uint64_t returned() const { return calls - open; }
    uint64_t average() const { return returned() ? total / returned() : 0; }
    void addCall(const CallSlices& slices, size_t i);
    void addReturn(int64_t value);
    void merge(const CallCost& other);
};

// Where a node's calls ran when they are not a task's own: interrupt trees hang under a
// context node of the task's root.
enum class CallContext : uint8_t { Task, HardIrq, SoftIrq, Nmi };

// A merged call tree: calls along the same path of functions are one node. Top-down, node 0
// is the root (the selection); its children are the outermost functions and the context
// nodes of the interrupts. Bottom-up, the root's children are the functions where time was
// spent (self time), and each node's children are its callers.
class CallTree {
public:
    static constexpr uint32_t kNoFunction = ~uint32_t(0);

    struct Node {
        uint32_t function = kNoFunction; // kNoFunction: the root or a context node
        CallContext context = CallContext::Task;
        uint32_t parent = 0;
        std::vector<uint32_t> children;
        CallCost cost;
    };

    // The top-down tree of the selected calls (an empty one when `cancel` is set). A call whose
    // caller is not selected starts a path of its own. A node's self time is its total less
    // that of its task-context children.
    static CallTree topDown(const CallSlices& calls, const CallSelection& selection,
                            const std::atomic<bool>* cancel = nullptr);
    // The bottom-up tree from a top-down one.
    static CallTree bottomUp(const CallTree& topDown);

    size_t size() const { return m_nodes.size(); }
    const Node& node(uint32_t n) const { return m_nodes[n]; }
    const Node& root() const { return m_nodes[0]; }
    bool empty() const { return m_nodes.size() <= 1; }
    // The calls the tree holds (the root's count is of the outermost ones only).
    uint64_t calls() const { return m_calls; }
    uint64_t openCalls() const { return m_openCalls; } // of them, without an exit
    // Children sorted by total time, largest first (ties by function id).
    std::vector<uint32_t> sortedChildren(uint32_t n) const;
    // From the root down, the child with the most time at each level.
    std::vector<uint32_t> hottestPath() const;

private:
    uint32_t child(uint32_t parent, uint32_t function, CallContext context);
    std::deque<Node> m_nodes; // grows without moving what it holds
    FlatIndex m_childIndex;   // (parent, function) -> node, while building
    uint64_t m_calls = 0;
    uint64_t m_openCalls = 0;
};

// One function's callers and callees in the selection, like hotspot's Caller/Callee view.
struct CallerCallee {
    CallCost cost;                                      // the function itself, outermost calls
    std::vector<std::pair<uint32_t, CallCost>> callers; // by function (kNoFunction: a root)
    std::vector<std::pair<uint32_t, CallCost>> callees;

    static CallerCallee of(const CallTree& topDown, uint32_t function);
};

// Per-function statistics like the kernel's function_profile, overall and per CPU.
struct FunctionStats {
    struct Row {
        uint32_t function = 0;
        int cpu = -1; // -1: all CPUs
        CallCost cost;
        double sumSquares = 0; // of the durations, for the standard deviation
        double stddev() const;
    };
    std::vector<Row> overall;           // one per function that was called
    std::vector<std::vector<Row>> cpus; // per CPU (index = CPU), same shape

    static FunctionStats of(const CallSlices& calls, const CallSelection& selection);
};

// One call's place among the others: what it called, as a details pane shows it.
struct CallFamily {
    uint64_t children = 0;    // calls it made itself (its task context)
    uint64_t interrupts = 0;  // interrupt trees that began inside it
    uint64_t descendants = 0; // every call below it, interrupts included
    uint64_t childTime = 0;   // time of its task-context children that returned
    // Its duration less its children's: what the top-down tree calls self time.
    uint64_t selfTime(const CallSlices& calls, size_t call) const;

    // Scans the calls stored while `call` ran (in the order their records arrived), so it
    // costs the calls of every task in that window.
    static CallFamily of(const CallSlices& calls, size_t call);
};

// A node's label: its function's name, or "[hard interrupts]" and the like for the nodes that
// group a context's trees ("[all]" for the root).
std::string nodeLabel(const CallTree::Node& node, const std::vector<std::string>& functionNames);

// "-7 E2BIG (x3), 0 (x12)": the values a node's calls returned, errors named.
std::string returnsText(const CallCost& cost);

// "E2BIG" for -7: the name of a negative errno value, or empty when `value` is not one.
std::string errnoName(int64_t value);

} // namespace ringside
