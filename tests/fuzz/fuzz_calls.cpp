// SPDX-License-Identifier: GPL-2.0-or-later
// Call-slice building from funcgraph records in any order and shape (depth jumps, exits
// without entries, rettime before calltime, lost events, interrupts, migrations), then every
// view built from them: the top-down and bottom-up trees, caller/callee, statistics, a
// single call's tree, a call's family and the flame-chart lanes.
#include "analysis/slicelanes.h"
#include "calls/calltree.h"

#include <cstring>

using namespace ringside;

namespace {

// One record per 16 input bytes: what, where, which function, depth, time.
struct Step {
    uint8_t kind;  // bit 0-1: entry, exit, lost events; bit 2: the exit records a return value
    uint8_t cpu;   // of 4
    uint8_t pid;   // of 6 (0: the idle tasks)
    uint8_t flags; // common_flags
    uint8_t function;
    uint8_t depthLow, depthHigh; // int16
    uint8_t delta;               // time since the previous record
    uint32_t duration;
    uint32_t retval;
};
static_assert(sizeof(Step) == 16);

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size < 1) return 0;
    CallSlices calls(data[0] & 1 ? 4 : 8);
    const bool retval = data[0] & 2;
    calls.bind({true, true, retval});
    calls.setStreams({{0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {3, 0, 0}});
    uint64_t now = 1000000;
    uint32_t index = 0;
    for (size_t at = 1; at + sizeof(Step) <= size; at += sizeof(Step)) {
        Step step;
        std::memcpy(&step, data + at, sizeof step);
        now += step.delta;
        const StreamId stream(uint16_t(step.cpu % 4));
        if ((step.kind & 3) == 2) {
            calls.eventsLost(stream, now);
            continue;
        }
        const int64_t depth = int16_t(uint16_t(step.depthLow | (step.depthHigh << 8)));
        std::vector<TypedValue> values = {TypedValue::number(0xffffffff81000000ull + step.function * 16u, false, 8),
                                          TypedValue::number(uint64_t(depth), true, 4)};
        ConsumedRecord record;
        record.request = 0;
        if (step.kind & 1) {
            record.request = retval ? 2 : 1;
            values.push_back(TypedValue::number(0, false, 4));
            values.push_back(TypedValue::number(now - step.duration, false, 8)); // may wrap: a damaged calltime
            values.push_back(TypedValue::number(now, false, 8));
            if (retval)
                values.push_back(
                    TypedValue::number(step.kind & 4 ? uint64_t(-int64_t(step.retval % 4096)) : step.retval, false, 8));
        }
        record.timestamp = now;
        record.stream = stream;
        record.index = index++;
        record.pid = step.pid % 6;
        record.flags = step.flags;
        record.values = values.data();
        record.valueCount = values.size();
        calls.consume(record);
    }
    calls.flush();

    const CallTree topDown = CallTree::topDown(calls, CallSelection());
    const CallTree bottomUp = CallTree::bottomUp(topDown);
    (void)topDown.hottestPath();
    (void)bottomUp.hottestPath();
    if (!calls.functionAddresses().empty()) (void)CallerCallee::of(topDown, 0);
    (void)FunctionStats::of(calls, CallSelection());
    if (calls.size()) {
        CallSelection one;
        one.root = uint32_t(calls.size() / 2);
        one.pids = {calls.pid(one.root)};
        (void)CallTree::topDown(calls, one);
        CallSelection window;
        window.from = calls.start(0);
        window.to = window.from + 5000;
        window.cpu = 1;
        (void)CallTree::topDown(calls, window);
        // What the timeline's flame-chart tracks and the details pane ask of them.
        (void)CallFamily::of(calls, one.root);
        const uint64_t end = calls.start(calls.size() - 1) + 100000;
        SliceLanes::Builder ofTask, ofStream;
        calls.forEachOf(0, [&](const SliceTable::View& v) { ofTask.add(v); });
        calls.forEachOnStream(StreamId(1), [&](const SliceTable::View& v) { ofStream.add(v); });
        (void)calls.slice(one.root);
        for (const SliceLanes& lanes : {std::move(ofTask).finish(end), std::move(ofStream).finish(end)}) {
            std::vector<SliceLanes::Span> spans;
            for (int lane = 0; lane < lanes.laneCount(); ++lane) {
                for (uint64_t grain : {uint64_t(0), uint64_t(7), uint64_t(5000)})
                    lanes.spans(lane, calls.start(0), end, grain, spans);
                (void)lanes.sliceAt(lane, calls.start(one.root), 100);
            }
        }
    }
    return 0;
}
