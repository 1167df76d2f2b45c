// SPDX-License-Identifier: GPL-2.0-or-later
#include "calls/functioncalls.h"

#include "trace.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace ringside {

void FunctionCalls::consume(const ConsumedRecord& record)
{
    ++m_records;
    const uint64_t ip = record.field(0).asUnsigned(), parent = record.field(1).asUnsigned();
    // Probe the edges by a mixed key; a collision moves on to the next key, checked in full.
    uint64_t key = (ip * 0x9e3779b97f4a7c15ull) ^ parent;
    for (;;) {
        if (key == ~uint64_t(0)) key = 0;
        bool added = false;
        const uint32_t e = m_index.findOrAdd(key, uint32_t(m_edges.size()), &added);
        if (added) {
            m_edges.push_back({parent, ip, 1});
            return;
        }
        if (m_edges[e].ip == ip && m_edges[e].parentIp == parent) {
            ++m_edges[e].count;
            return;
        }
        ++key;
    }
}

FunctionCallGraph FunctionCallGraph::of(const FunctionCalls& calls, const Trace& trace)
{
    std::vector<uint64_t> addresses;
    for (const FunctionCalls::Edge& e : calls.edges()) addresses.push_back(e.ip), addresses.push_back(e.parentIp);
    std::sort(addresses.begin(), addresses.end());
    addresses.erase(std::unique(addresses.begin(), addresses.end()), addresses.end());
    const std::vector<std::string> names = trace.functionNames(addresses);
    auto nameOf = [&](uint64_t address) {
        return names[size_t(std::lower_bound(addresses.begin(), addresses.end(), address) - addresses.begin())];
    };
    std::unordered_map<std::string, size_t> index;
    FunctionCallGraph graph;
    auto functionOf = [&](const std::string& name) -> Function& {
        auto [it, added] = index.try_emplace(name, graph.functions.size());
        if (added) graph.functions.push_back({name, 0, {}, {}});
        return graph.functions[it->second];
    };
    std::map<std::pair<std::string, std::string>, uint64_t> links;
    for (const FunctionCalls::Edge& e : calls.edges()) {
        const std::string callee = nameOf(e.ip), caller = nameOf(e.parentIp);
        functionOf(callee).hits += e.count;
        functionOf(caller);
        links[{caller, callee}] += e.count;
    }
    for (const auto& [pair, count] : links) {
        graph.functions[index[pair.second]].callers.push_back({pair.first, count});
        graph.functions[index[pair.first]].callees.push_back({pair.second, count});
    }
    auto byCount = [](const Link& a, const Link& b) {
        return a.count != b.count ? a.count > b.count : a.function < b.function;
    };
    for (Function& f : graph.functions) {
        std::sort(f.callers.begin(), f.callers.end(), byCount);
        std::sort(f.callees.begin(), f.callees.end(), byCount);
    }
    std::sort(graph.functions.begin(), graph.functions.end(), [](const Function& a, const Function& b) {
        return a.hits != b.hits ? a.hits > b.hits : a.name < b.name;
    });
    return graph;
}

const FunctionCallGraph::Function* FunctionCallGraph::find(const std::string& name) const
{
    for (const Function& f : functions)
        if (f.name == name) return &f;
    return nullptr;
}

} // namespace ringside
