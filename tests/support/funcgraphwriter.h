// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <cstdint>
#include <string>

namespace ringside::test {

// The shape of a made-up function_graph recording: tasks that enter and leave nested calls of
// a few hundred kernel functions on a few CPUs, with what real recordings have at their edges.
struct FuncGraphShape {
    uint64_t records = 1000; // funcgraph_entry + funcgraph_exit records, about
    int cpus = 2;
    int tasks = 4;
    int maxDepth = 8;           // as --max-graph-depth: no call deeper
    bool retval = false;        // exits carry the return value (kernels with funcgraph-retval)
    double migrateChance = 0;   // per record, besides 1/200: the CPU switches to any task (which may migrate)
    bool unbalanced = false;    // begins inside calls (exits without entries), ends with calls open
    double lostChance = 0;      // per record: the records just before it on its CPU are lost
    double interruptChance = 0; // per entry: an interrupt (hardirq flag) nests inside the call
    uint32_t seed = 1;
};

// A trace-cmd version 6 recording of that shape (see TraceWriter), with kallsyms naming the
// functions fn_0, fn_1, ... and err_N for those returning negative errno values.
std::string writeFuncGraphRecording(const FuncGraphShape& shape);

} // namespace ringside::test
