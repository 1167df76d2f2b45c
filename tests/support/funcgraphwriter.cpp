// SPDX-License-Identifier: GPL-2.0-or-later
#include "support/funcgraphwriter.h"

#include "support/tracewriter.h"

#include <random>
#include <vector>

namespace ringside::test {

namespace {

constexpr uint16_t kEntryId = 11, kExitId = 10;
constexpr int kFunctions = 400;
constexpr int kCallers = 40; // functions a task's outermost call is one of
constexpr int kCallees = 3;  // functions each function calls
constexpr uint64_t kTextBase = 0xffffffff81000000ull;

uint64_t functionAddress(int f)
{
    return kTextBase + uint64_t(f) * 0x100;
}

// Formats as a 6.1 kernel prints them; with retval, as 6.5+ with funcgraph-retval.
std::string entryFormat()
{
    return std::string("name: funcgraph_entry\nID: 11\nformat:\n") + TraceWriter::commonFields() +
           "\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
           "\tfield:int depth;\toffset:16;\tsize:4;\tsigned:1;\n\n"
           "print fmt: \"--> %ps (%d)\", (void *)REC->func, REC->depth\n";
}

std::string exitFormat(bool retval)
{
    if (!retval)
        return std::string("name: funcgraph_exit\nID: 10\nformat:\n") + TraceWriter::commonFields() +
               "\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
               "\tfield:int depth;\toffset:16;\tsize:4;\tsigned:1;\n"
               "\tfield:unsigned int overrun;\toffset:20;\tsize:4;\tsigned:0;\n"
               "\tfield:unsigned long long calltime;\toffset:24;\tsize:8;\tsigned:0;\n"
               "\tfield:unsigned long long rettime;\toffset:32;\tsize:8;\tsigned:0;\n\n"
               "print fmt: \"<-- %ps (%d) (start: %llx  end: %llx) over: %d\", (void *)REC->func, REC->depth, "
               "REC->calltime, REC->rettime, REC->depth\n";
    return std::string("name: funcgraph_exit\nID: 10\nformat:\n") + TraceWriter::commonFields() +
           "\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
           "\tfield:unsigned long retval;\toffset:16;\tsize:8;\tsigned:0;\n"
           "\tfield:int depth;\toffset:24;\tsize:4;\tsigned:1;\n"
           "\tfield:unsigned int overrun;\toffset:28;\tsize:4;\tsigned:0;\n"
           "\tfield:unsigned long long calltime;\toffset:32;\tsize:8;\tsigned:0;\n"
           "\tfield:unsigned long long rettime;\toffset:40;\tsize:8;\tsigned:0;\n\n"
           "print fmt: \"<-- %ps (%d) (start: %llx  end: %llx) over: %d retval: %lx\", (void *)REC->func, "
           "REC->depth, REC->calltime, REC->rettime, REC->depth, REC->retval\n";
}

struct Call {
    int function;
    uint64_t calltime;
    bool interrupt;
};

struct Task {
    int32_t pid;
    int cpu;
    std::vector<Call> stack;
};

} // namespace

std::string writeFuncGraphRecording(const FuncGraphShape& shape)
{
    std::mt19937_64 random(shape.seed);
    auto chance = [&](double p) { return p > 0 && std::uniform_real_distribution<double>(0, 1)(random) < p; };
    auto below = [&](uint64_t n) { return uint64_t(random() % n); };

    TraceWriter writer;
    writer.ftraceFormats = {entryFormat(), exitFormat(shape.retval)};
    for (int f = 0; f < kFunctions; ++f) {
        char line[96];
        std::snprintf(line, sizeof line, "%llx T %s_%d\n", static_cast<unsigned long long>(functionAddress(f)),
                      f % 50 == 7 ? "err" : "fn", f);
        writer.kallsyms += line;
    }
    std::vector<Task> tasks;
    for (int t = 0; t < shape.tasks; ++t) {
        tasks.push_back({1000 + t, t % shape.cpus, {}});
        writer.cmdlines += std::to_string(1000 + t) + " task" + std::to_string(t) + "\n";
    }
    writer.cpus.resize(size_t(shape.cpus));
    std::vector<uint64_t> cpuTime(size_t(shape.cpus), writer.firstTimestamp);
    uint64_t now = writer.firstTimestamp;

    // Calls already running when the recording begins: their exits come without entries.
    if (shape.unbalanced)
        for (Task& task : tasks)
            for (int d = 0; d < 3 && d < shape.maxDepth; ++d)
                task.stack.push_back({int(below(kFunctions)), now - 1000 + uint64_t(d) * 100, false});

    std::vector<bool> lostPending(size_t(shape.cpus), false);
    auto writeRecord = [&](Task& task, std::string payload) {
        const size_t cpu = size_t(task.cpu);
        if (lostPending[cpu] || !chance(shape.lostChance)) {
            TraceWriter::Record record{uint32_t(now - cpuTime[cpu]), std::move(payload), bool(lostPending[cpu])};
            writer.cpus[cpu].push_back(std::move(record));
            cpuTime[cpu] = now;
            lostPending[cpu] = false;
        } else {
            lostPending[cpu] = true; // this record is lost; the next one says so
        }
    };

    // Each CPU runs one task for a stretch of records, then switches to any task, as a
    // scheduler does: one that last ran on another CPU migrates, maybe in the middle of a call.
    std::vector<size_t> running(size_t(shape.cpus));
    for (size_t c = 0; c < running.size(); ++c) running[c] = c % tasks.size();
    for (uint64_t r = 0; r < shape.records; ++r) {
        now += 100 + below(2000);
        const size_t cpu = size_t(below(uint64_t(shape.cpus)));
        if (chance(0.005 + shape.migrateChance)) running[cpu] = size_t(below(tasks.size()));
        Task& task = tasks[running[cpu]];
        task.cpu = int(cpu); // a task that last ran elsewhere migrated, maybe mid-call
        const bool inInterrupt = !task.stack.empty() && task.stack.back().interrupt;
        const int depth = int(task.stack.size());
        // Deeper calls more often return than call further, as in kernel code.
        const bool enter = depth == 0 || (depth < shape.maxDepth && int(below(100)) < 62 - 6 * depth);
        if (enter) {
            const bool interrupt = inInterrupt || chance(shape.interruptChance);
            // Each function calls a few of its own callees, as kernel code does: the merged
            // trees repeat like real ones instead of every path being new.
            const int caller = task.stack.empty() ? int(below(kCallers)) : task.stack.back().function;
            const int f = int((uint64_t(caller) * 7 + 13 * (1 + below(kCallees))) % kFunctions);
            std::string fields;
            put<uint64_t>(fields, functionAddress(f));
            put<int32_t>(fields, depth);
            put<int32_t>(fields, 0); // padding
            writeRecord(task, TraceWriter::payload(kEntryId, task.pid, fields, interrupt ? 0x09 : 0x01));
            task.stack.push_back({f, now, interrupt});
        } else {
            const Call call = task.stack.back();
            task.stack.pop_back();
            // Durations are rettime - calltime; the kernel's clock runs a little ahead of the
            // record's timestamp, as in real recordings.
            const uint64_t calltime = call.calltime + 3, rettime = now + 2;
            std::string fields;
            put<uint64_t>(fields, functionAddress(call.function));
            if (shape.retval) put<uint64_t>(fields, call.function % 50 == 7 ? uint64_t(-7 - call.function % 3) : 0);
            put<int32_t>(fields, depth - 1);
            put<uint32_t>(fields, 0);
            put<uint64_t>(fields, calltime);
            put<uint64_t>(fields, rettime);
            writeRecord(task, TraceWriter::payload(kExitId, task.pid, fields, call.interrupt ? 0x09 : 0x01));
        }
    }
    // A balanced recording ends with every call returned.
    if (!shape.unbalanced)
        for (Task& task : tasks)
            while (!task.stack.empty()) {
                now += 100 + below(2000);
                const Call call = task.stack.back();
                task.stack.pop_back();
                std::string fields;
                put<uint64_t>(fields, functionAddress(call.function));
                if (shape.retval) put<uint64_t>(fields, 0);
                put<int32_t>(fields, int(task.stack.size()));
                put<uint32_t>(fields, 0);
                put<uint64_t>(fields, call.calltime + 3);
                put<uint64_t>(fields, now + 2);
                lostPending[size_t(task.cpu)] = false;
                writeRecord(task, TraceWriter::payload(kExitId, task.pid, fields, call.interrupt ? 0x09 : 0x01));
            }
    return writer.write();
}

} // namespace ringside::test
