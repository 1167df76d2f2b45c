// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "consume/recordconsumer.h"
#include "util/flatindex.h"

#include <cstdint>
#include <string>
#include <vector>

struct tep_handle;

namespace ringside {

// What the function tracer recorded: `function` records carry the traced function's address
// (ip) and the return address in its caller (parent_ip), no durations. Kept as counts of each
// (parent_ip, ip) pair, so memory follows the distinct call sites, not the records.
class FunctionCalls : public RecordConsumer {
public:
    static constexpr const char* kName = "function-calls";

    struct Edge {
        uint64_t parentIp = 0;
        uint64_t ip = 0;
        uint64_t count = 0;
    };

    std::string name() const override { return kName; }
    std::vector<EventRequest> requests() const override { return {{"ftrace", "function", {"ip", "parent_ip"}}}; }
    void consume(const ConsumedRecord& record) override;

    bool available() const { return m_records > 0; }
    uint64_t records() const { return m_records; }
    const std::vector<Edge>& edges() const { return m_edges; }

private:
    FlatIndex m_index; // hash of (parent_ip, ip) -> edge, confirmed against the edge itself
    std::vector<Edge> m_edges;
    uint64_t m_records = 0;
};

// The function tracer's counts by function name: hits, and who called whom (a caller is the
// function its return address lies in). The names are looked up first (Trace::functionNames,
// a few hundred at a time under the handle's lock), the graph built after, without it.
struct FunctionCallGraph {
    struct Link {
        std::string function;
        uint64_t count = 0;
    };
    struct Function {
        std::string name;
        uint64_t hits = 0;
        std::vector<Link> callers; // most calls first
        std::vector<Link> callees;
    };
    std::vector<Function> functions; // most hits first; callers that were not traced included, with 0 hits

    static FunctionCallGraph of(const FunctionCalls& calls, const class Trace& trace);
    const Function* find(const std::string& name) const;
};

} // namespace ringside
