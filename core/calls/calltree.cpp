// SPDX-License-Identifier: GPL-2.0-or-later
#include "calls/calltree.h"

#include "util/errnonames.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <unordered_map>

namespace ringside {

namespace {

constexpr uint32_t kUnresolved = ~uint32_t(0);
constexpr uint32_t kNotSelected = kUnresolved - 1;

CallContext callContextOf(uint8_t flags)
{
    if (flags & kCallNmi) return CallContext::Nmi;
    if (flags & kCallHardIrq) return CallContext::HardIrq;
    if (flags & kCallSoftIrq) return CallContext::SoftIrq;
    return CallContext::Task;
}

bool isErrno(int64_t value)
{
    return value < 0 && value >= -4095;
}

} // namespace

bool CallSelection::contains(const CallSlices& calls, size_t i) const
{
    if (cpu >= 0 && calls.cpu(i) != cpu) return false;
    if (!pids.empty() && !std::binary_search(pids.begin(), pids.end(), calls.pid(i))) return false;
    const uint64_t start = calls.start(i);
    if (start >= to) return false;
    if (!(calls.flags(i) & kCallOpen) && std::max(calls.end(i), start + 1) <= from) return false;
    if (root == CallSlices::kNoParent) return true;
    if (calls.pid(i) != calls.pid(root) || start < calls.start(root)) return false;
    for (uint32_t a = uint32_t(i); a != CallSlices::kNoParent; a = calls.parent(a))
        if (a == root) return true;
    return false;
}

void CallCost::addCall(const CallSlices& slices, size_t i)
{
    ++calls;
    if (slices.flags(i) & kCallOpen) {
        ++open;
    } else {
        const uint64_t d = slices.duration(i);
        total += d;
        min = std::min(min, d);
        max = std::max(max, d);
    }
    if (slices.hasRetval(i)) addReturn(slices.retval(i));
}

void CallCost::addReturn(int64_t value)
{
    if (isErrno(value)) ++errors;
    for (ReturnCount& r : returns)
        if (r.value == value) {
            ++r.count;
            return;
        }
    if (returns.size() < kMaxReturns)
        returns.push_back({value, 1});
    else
        moreReturns = true;
}

void CallCost::merge(const CallCost& other)
{
    calls += other.calls;
    open += other.open;
    total += other.total;
    self += other.self;
    min = std::min(min, other.min);
    max = std::max(max, other.max);
    errors += other.errors;
    moreReturns |= other.moreReturns;
    for (const ReturnCount& r : other.returns) {
        auto it =
            std::find_if(returns.begin(), returns.end(), [&](const ReturnCount& x) { return x.value == r.value; });
        if (it != returns.end())
            it->count += r.count;
        else if (returns.size() < kMaxReturns)
            returns.push_back(r);
        else
            moreReturns = true;
    }
}

uint32_t CallTree::child(uint32_t parent, uint32_t function, CallContext context)
{
    // The last child found is checked first: consecutive calls often repeat it.
    std::vector<uint32_t>& children = m_nodes[parent].children;
    if (!children.empty()) {
        const Node& last = m_nodes[children.back()];
        if (last.function == function && last.context == context) return children.back();
    }
    const uint64_t key =
        (uint64_t(parent) << 32) | (function == kNoFunction ? 0xffffff00u | uint32_t(context) : function);
    bool added = false;
    const uint32_t n = m_childIndex.findOrAdd(key, uint32_t(m_nodes.size()), &added);
    if (!added) return n;
    Node node;
    node.function = function;
    node.context = context;
    node.parent = parent;
    m_nodes.push_back(std::move(node));
    m_nodes[parent].children.push_back(n);
    return n;
}

CallTree CallTree::topDown(const CallSlices& calls, const CallSelection& selection, const std::atomic<bool>* cancel)
{
    CallTree tree;
    tree.m_nodes.emplace_back();
    const size_t count = calls.size();
    std::vector<uint32_t> nodeOf(count, kUnresolved);
    std::vector<uint32_t> chain;

    auto resolve = [&](size_t i) -> uint32_t {
        if (!selection.contains(calls, i)) return kNotSelected;
        uint32_t base = 0;
        if (calls.isInterruptRoot(i)) {
            base = tree.child(0, kNoFunction, callContextOf(calls.flags(i)));
        } else {
            const uint32_t p = calls.parent(i);
            if (p != CallSlices::kNoParent && nodeOf[p] != kNotSelected) base = nodeOf[p];
        }
        const uint32_t node = tree.child(base, calls.function(i), CallContext::Task);
        tree.m_nodes[node].cost.addCall(calls, i);
        ++tree.m_calls;
        if (calls.flags(i) & kCallOpen) ++tree.m_openCalls;
        return node;
    };

    for (size_t i = 0; i < count; ++i) {
        if ((i & 0xffff) == 0 && cancel && cancel->load(std::memory_order_relaxed)) return CallTree();
        if (nodeOf[i] != kUnresolved) continue;
        // Callers first: a call whose entry was not recorded is stored after its callees.
        chain.clear();
        size_t j = i;
        for (;;) {
            chain.push_back(uint32_t(j));
            const uint32_t p = calls.parent(j);
            if (p == CallSlices::kNoParent || calls.isInterruptRoot(j) || nodeOf[p] != kUnresolved) break;
            j = p;
        }
        for (size_t k = chain.size(); k-- > 0;) nodeOf[chain[k]] = resolve(chain[k]);
    }

    // Children come after their parents: sum bottom-up.
    for (size_t n = tree.m_nodes.size(); n-- > 0;) {
        Node& node = tree.m_nodes[n];
        uint64_t children = 0;
        for (uint32_t c : node.children) {
            const Node& child = tree.m_nodes[c];
            if (child.context != CallContext::Task || child.function == kNoFunction) continue;
            children += child.cost.total;
        }
        if (node.function == kNoFunction) {
            // The root and the context nodes: what their children cost.
            node.cost = CallCost();
            for (uint32_t c : node.children) {
                const CallCost& cc = tree.m_nodes[c].cost;
                node.cost.calls += cc.calls;
                node.cost.open += cc.open;
                node.cost.total += cc.total;
                node.cost.errors += cc.errors;
                node.cost.min = std::min(node.cost.min, cc.min);
                node.cost.max = std::max(node.cost.max, cc.max);
            }
        } else {
            node.cost.self = node.cost.total > children ? node.cost.total - children : 0;
        }
    }
    tree.m_childIndex.clear();
    return tree;
}

CallTree CallTree::bottomUp(const CallTree& topDown)
{
    CallTree tree;
    tree.m_nodes.emplace_back();
    for (size_t n = 1; n < topDown.m_nodes.size(); ++n) {
        const Node& leaf = topDown.m_nodes[n];
        if (leaf.function == kNoFunction) continue;
        uint32_t at = 0;
        for (uint32_t t = uint32_t(n); t != 0; t = topDown.m_nodes[t].parent) {
            const Node& step = topDown.m_nodes[t];
            at = tree.child(at, step.function, step.context);
            CallCost& cost = tree.m_nodes[at].cost;
            cost.calls += leaf.cost.calls;
            cost.open += leaf.cost.open;
            cost.total += leaf.cost.self;
            cost.errors += leaf.cost.errors;
            if (t == n) {
                cost.self += leaf.cost.self;
                cost.min = std::min(cost.min, leaf.cost.min);
                cost.max = std::max(cost.max, leaf.cost.max);
            }
        }
    }
    for (uint32_t c : tree.m_nodes[0].children) {
        tree.m_nodes[0].cost.calls += tree.m_nodes[c].cost.calls;
        tree.m_nodes[0].cost.total += tree.m_nodes[c].cost.total;
    }
    tree.m_childIndex.clear();
    return tree;
}

std::vector<uint32_t> CallTree::sortedChildren(uint32_t n) const
{
    std::vector<uint32_t> children = m_nodes[n].children;
    std::sort(children.begin(), children.end(), [this](uint32_t a, uint32_t b) {
        const Node &x = m_nodes[a], &y = m_nodes[b];
        if (x.cost.total != y.cost.total) return x.cost.total > y.cost.total;
        if (x.cost.calls != y.cost.calls) return x.cost.calls > y.cost.calls;
        return a < b;
    });
    return children;
}

std::vector<uint32_t> CallTree::hottestPath() const
{
    std::vector<uint32_t> path;
    uint32_t n = 0;
    while (!m_nodes[n].children.empty()) {
        n = sortedChildren(n).front();
        path.push_back(n);
    }
    return path;
}

CallerCallee CallerCallee::of(const CallTree& tree, uint32_t function)
{
    CallerCallee result;
    auto add = [](std::vector<std::pair<uint32_t, CallCost>>& list, uint32_t f, const CallCost& cost) {
        auto it = std::find_if(list.begin(), list.end(), [f](const auto& e) { return e.first == f; });
        if (it == list.end()) {
            list.emplace_back(f, cost);
        } else {
            it->second.merge(cost);
        }
    };
    for (size_t n = 1; n < tree.size(); ++n) {
        const CallTree::Node& node = tree.node(uint32_t(n));
        if (node.function != function) continue;
        bool recursive = false;
        for (uint32_t a = node.parent; a != 0 && !recursive; a = tree.node(a).parent)
            recursive = tree.node(a).function == function;
        if (!recursive) result.cost.merge(node.cost);
        add(result.callers, tree.node(node.parent).function, node.cost);
        for (uint32_t c : node.children)
            if (tree.node(c).function != CallTree::kNoFunction)
                add(result.callees, tree.node(c).function, tree.node(c).cost);
    }
    auto byTotal = [](const auto& a, const auto& b) {
        return a.second.total != b.second.total ? a.second.total > b.second.total : a.first < b.first;
    };
    std::sort(result.callers.begin(), result.callers.end(), byTotal);
    std::sort(result.callees.begin(), result.callees.end(), byTotal);
    return result;
}

double FunctionStats::Row::stddev() const
{
    const uint64_t n = cost.returned();
    if (n < 2) return 0;
    const double mean = double(cost.total) / double(n);
    const double variance = (sumSquares - double(n) * mean * mean) / double(n - 1);
    return variance > 0 ? std::sqrt(variance) : 0;
}

FunctionStats FunctionStats::of(const CallSlices& calls, const CallSelection& selection)
{
    const size_t count = calls.size();
    std::vector<bool> selected(count);
    std::vector<uint64_t> childTime(count, 0);
    for (size_t i = 0; i < count; ++i) {
        selected[i] = selection.contains(calls, i);
        if (!selected[i] || (calls.flags(i) & kCallOpen) || calls.isInterruptRoot(i)) continue;
        const uint32_t p = calls.parent(i);
        if (p != CallSlices::kNoParent) childTime[p] += calls.duration(i);
    }

    FunctionStats stats;
    const size_t functions = calls.functionAddresses().size();
    std::vector<uint32_t> overallRow(functions, kUnresolved);
    std::vector<std::vector<uint32_t>> cpuRow;
    auto rowIn = [&](std::vector<Row>& rows, std::vector<uint32_t>& index, uint32_t f, int cpu) -> Row& {
        if (index[f] == kUnresolved) {
            index[f] = uint32_t(rows.size());
            rows.push_back(Row{f, cpu, CallCost(), 0});
        }
        return rows[index[f]];
    };
    for (size_t i = 0; i < count; ++i) {
        if (!selected[i]) continue;
        const uint32_t f = calls.function(i);
        const int cpu = calls.cpu(i);
        if (size_t(cpu) >= stats.cpus.size()) {
            stats.cpus.resize(size_t(cpu) + 1);
            cpuRow.resize(size_t(cpu) + 1);
        }
        if (cpuRow[size_t(cpu)].empty()) cpuRow[size_t(cpu)].assign(functions, kUnresolved);
        const bool returned = !(calls.flags(i) & kCallOpen);
        const uint64_t d = returned ? calls.duration(i) : 0;
        const uint64_t self = d > childTime[i] ? d - childTime[i] : 0;
        for (Row* row :
             {&rowIn(stats.overall, overallRow, f, -1), &rowIn(stats.cpus[size_t(cpu)], cpuRow[size_t(cpu)], f, cpu)}) {
            row->cost.addCall(calls, i);
            if (returned) {
                row->cost.self += self;
                row->sumSquares += double(d) * double(d);
            }
        }
    }
    return stats;
}

namespace {

// When a call's record arrived: its entry's time, or its exit's for a call whose entry was not
// recorded (stored when the exit came).
uint64_t arrival(const CallSlices& calls, size_t i)
{
    return (calls.flags(i) & kCallNoEntry) ? calls.end(i) : calls.start(i);
}

} // namespace

uint64_t CallFamily::selfTime(const CallSlices& calls, size_t call) const
{
    const uint64_t duration = calls.duration(call);
    return duration > childTime ? duration - childTime : 0;
}

CallFamily CallFamily::of(const CallSlices& calls, size_t call)
{
    CallFamily family;
    if (call >= calls.size()) return family;
    const int32_t pid = calls.pid(call);
    const uint64_t start = calls.start(call);
    const uint64_t end = (calls.flags(call) & kCallOpen) ? std::numeric_limits<uint64_t>::max() : calls.end(call);
    auto visit = [&](size_t j) {
        if (calls.pid(j) != pid) return;
        // Up the parents to `call`; a call's parent was stored before it or adopted it, and
        // depths only shrink on the way up.
        bool direct = true;
        for (uint32_t p = calls.parent(j); p != CallSlices::kNoParent; p = calls.parent(p), direct = false) {
            if (p == call) {
                ++family.descendants;
                if (!direct) return;
                if (calls.isInterruptRoot(j)) {
                    ++family.interrupts;
                } else {
                    ++family.children;
                    if (!(calls.flags(j) & kCallOpen)) family.childTime += calls.duration(j);
                }
                return;
            }
            if (calls.depth(p) < calls.depth(call)) return;
        }
    };
    // Calls entered while it ran were stored after it; those it adopted (it has no entry)
    // before it, after its start.
    for (size_t j = call + 1; j < calls.size() && arrival(calls, j) <= end; ++j) visit(j);
    if (calls.flags(call) & kCallNoEntry)
        for (size_t j = call; j-- > 0 && arrival(calls, j) >= start;) visit(j);
    return family;
}

std::string nodeLabel(const CallTree::Node& node, const std::vector<std::string>& functionNames)
{
    if (node.function != CallTree::kNoFunction)
        return node.function < functionNames.size() ? functionNames[node.function] : std::string("?");
    switch (node.context) {
    case CallContext::HardIrq: return "[hard interrupts]";
    case CallContext::SoftIrq: return "[soft interrupts]";
    case CallContext::Nmi: return "[NMIs]";
    case CallContext::Task: break;
    }
    return "[all]";
}

std::string returnsText(const CallCost& cost)
{
    std::string text;
    for (const ReturnCount& r : cost.returns) {
        if (!text.empty()) text += ", ";
        text += std::to_string(r.value);
        const std::string name = errnoName(r.value);
        if (!name.empty()) text += " " + name;
        if (cost.calls > 1) text += " (x" + std::to_string(r.count) + ")";
    }
    if (cost.moreReturns) text += ", ...";
    return text;
}

std::string errnoName(int64_t value)
{
    const char* name = kernelErrnoName(value);
    return name ? name : std::string();
}

} // namespace ringside
