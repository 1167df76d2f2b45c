// SPDX-License-Identifier: GPL-2.0-or-later
#include "latency/loadedpairs.h"

#include "consume/consumerfailure.h"
#include "decode/recordwalker.h"
#include "store/eventstore.h"
#include "store/recordtap.h"
#include "store/taskindex.h"
#include "trace.h"

#include <algorithm>
#include <cstring>

namespace ringside {

Result<std::unique_ptr<LoadedPairs>> LoadedPairs::run(const Trace& trace, const PairSpec& spec,
                                                      const Progress& progress)
{
    std::unique_ptr<LoadedPairs> result(new LoadedPairs);
    ConsumerRegistry& registry = result->m_registry;
    auto& pairs = static_cast<EventPairs&>(registry.add(std::make_unique<EventPairs>(spec)));
    result->m_pairs = &pairs;
    const TaskIndex& tasks = trace.taskIndex();
    registry.setTaskOf([&tasks](int32_t pid, uint64_t time, uint64_t* until) {
        *until = tasks.nextLifeAfter(pid, time);
        return tasks.taskAt(pid, time);
    });
    std::vector<RecordTap> taps;
    {
        const TepAccess tep = trace.tep(); // the formats are looked up while bind() runs
        taps = registry.bind(formatsOf(tep), eventsOf(tep), trace.file().info().bigEndian);
    }
    const std::string& path = trace.file().path();
    if (const std::string failure = registry.failure(pairs.name()); !failure.empty())
        return Error{path + ": the latency analysis failed: " + failure};

    // The taps' fields, copied from each stream's pages as the page parser copies them.
    const EventStore& store = trace.store();
    std::vector<bool> wanted(65536, false);
    std::vector<int> tapOfType(65536, -1);
    for (size_t t = 0; t < taps.size(); ++t) {
        wanted[taps[t].eventType] = taps[t].keep;
        tapOfType[taps[t].eventType] = int(t);
    }
    std::vector<std::vector<TapColumn>> columns(taps.size());
    for (std::vector<TapColumn>& tap : columns) tap.resize(store.streamCount());
    std::vector<size_t> limits(store.streamCount());
    uint64_t total = 0, walked = 0;
    for (size_t s = 0; s < store.streamCount(); ++s) total += store.stream(StreamId(uint16_t(s))).columns.size();
    bool stopped = false;
    for (size_t s = 0; s < store.streamCount() && !taps.empty(); ++s) {
        const StreamId stream(static_cast<uint16_t>(s));
        const CpuColumns& events = store.stream(stream).columns;
        limits[s] = events.size();
        std::vector<uint64_t> expected(taps.size(), 0), found(taps.size(), 0);
        for (size_t i = 0; i < events.size(); ++i)
            if (const int t = tapOfType[events.eventType[i]]; t >= 0 && taps[size_t(t)].keep) ++expected[size_t(t)];
        walkRecords(store, stream, wanted, [&](uint32_t index, const uint8_t* record, int bytes) {
            const auto t = size_t(tapOfType[events.eventType[index]]);
            // A run that could not be read again would shift every later record onto the
            // wrong event: stop at the first gap.
            if (stopped || found[t] == expected[t]) return;
            ++found[t];
            uint8_t* at = columns[t][s].append(taps[t].bytesPerHit()); // zeroed
            for (const auto& [offset, width] : taps[t].fields) {
                const int have = std::clamp(bytes - offset, 0, width);
                if (have > 0) std::memcpy(at, record + offset, size_t(have));
                at += width;
            }
            if ((++walked & 0xffff) == 0 && progress && !progress(walked, total * 2)) stopped = true;
        });
        if (stopped) return Error{path + ": the latency analysis was stopped"};
        for (size_t t = 0; t < taps.size(); ++t)
            if (found[t] != expected[t])
                return Error{path + ": the pages of CPU " + std::to_string(store.stream(stream).cpu) +
                             " could not be read again (the file changed or cannot be read)"};
    }
    registry.addColumns(std::move(columns));
    try {
        registry.deliver(store, limits, [&](uint64_t done, uint64_t all) {
            return !progress || progress(total + (all ? done * total / all : 0), total * 2);
        });
        registry.finish();
    } catch (...) {
        return Error{path + ": the latency analysis failed: " + failureOfCurrentException()};
    }
    if (const std::string failure = registry.failure(pairs.name()); !failure.empty())
        return Error{path + ": the latency analysis failed: " + failure};
    return result;
}

} // namespace ringside
