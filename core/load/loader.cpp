// SPDX-License-Identifier: GPL-2.0-or-later
#include "load/loader.h"

#include "file/datfile.h"
#include "load/pageparser.h"
#include "load/storeappender.h"

#include <traceevent/event-parse.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <future>
#include <mutex>
#include <thread>

namespace ringside {

namespace {

CommonLayout commonLayout(tep_handle* tep)
{
    CommonLayout layout;
    tep_event** events = tep_list_events(tep, TEP_EVENT_SORT_ID);
    if (!events || !events[0]) return layout;
    auto field = [&](const char* name, int* offset, int* size) {
        tep_format_field* f = tep_find_common_field(events[0], name);
        if (!f) return;
        *offset = f->offset;
        if (size) *size = f->size;
    };
    int flagsSize = 1, preemptSize = 1;
    field("common_type", &layout.typeOffset, &layout.typeSize);
    field("common_flags", &layout.flagsOffset, &flagsSize);
    field("common_preempt_count", &layout.preemptOffset, &preemptSize);
    field("common_pid", &layout.pidOffset, &layout.pidSize);
    layout.typeSize = std::clamp(layout.typeSize, 1, 8);
    layout.pidSize = std::clamp(layout.pidSize, 1, 8);
    layout.minSize = std::max({layout.typeOffset + layout.typeSize, layout.flagsOffset + 1, layout.preemptOffset + 1,
                               layout.pidOffset + layout.pidSize});
    return layout;
}

struct Shared {
    std::atomic<uint64_t> bytesDone{0};
    std::atomic<uint64_t> events{0};
    const std::atomic<bool>* cancel = nullptr;
    bool growing = false;
    std::atomic<bool> failed{false};
    bool cancelled() const { return cancel && cancel->load(std::memory_order_relaxed); }
    // No more segments are begun; those begun stop at once, unless they are kept (a growing
    // load's, cancelled).
    bool stopping() const { return failed.load(std::memory_order_relaxed) || cancelled(); }
    bool abandoned() const { return failed.load(std::memory_order_relaxed) || (!growing && cancelled()); }
};

// A stretch of consecutive runs of one stream, loaded on its own so that every core has
// work even when one CPU holds most of the events; its columns are appended in order later.
struct Segment {
    size_t stream = 0;
    size_t firstRun = 0;
    size_t endRun = 0;
    CpuColumns columns;
    CpuLoadStats stats;
    std::vector<TapColumn> taps;
    RecordSink* sink = nullptr; // of the consumers fed in pieces
};

std::vector<Segment> planSegments(const std::vector<const Stream*>& streams, int threads, uint64_t segmentBytes,
                                  bool growing)
{
    uint64_t total = 0;
    for (const auto& s : streams) total += s->pages->streamBytes();
    // Several segments per thread balance the load; a floor keeps the appends cheap. A growing
    // store is published as segments are done: a stream's first one is small, so that rows
    // come early, and each next one twice as big up to the bulk size (each segment's pieces
    // keep their consumers' state until they are joined: 64 small ones cost 130 MB more).
    const uint64_t target =
        segmentBytes ? segmentBytes : std::max<uint64_t>(total / (uint64_t(threads) * 4), 8u << 20);
    const uint64_t firstTarget =
        growing && !segmentBytes ? std::min(target, std::max<uint64_t>(total / (uint64_t(threads) * 32), 8u << 20))
                                 : target;
    std::vector<Segment> segments;
    std::vector<double> startsAt; // where in its stream each segment starts, as a fraction
    for (size_t i = 0; i < streams.size(); ++i) {
        const PageSource& source = *streams[i]->pages;
        const size_t runs = source.runCount();
        const uint32_t pageSize = source.pageSize();
        const double streamBytes = double(std::max<uint64_t>(source.streamBytes(), 1));
        size_t first = 0;
        uint64_t bytes = 0, before = 0, wanted = firstTarget;
        for (size_t r = 0; r < runs; ++r) {
            bytes += uint64_t(source.run(r).pages) * pageSize;
            if (bytes >= wanted || r + 1 == runs) {
                wanted = std::min(target, wanted * 2);
                Segment seg;
                seg.stream = i;
                seg.firstRun = first;
                seg.endRun = r + 1;
                seg.columns.cpu = streams[i]->cpu;
                segments.push_back(std::move(seg));
                startsAt.push_back(double(before) / streamBytes);
                first = r + 1;
                before += bytes;
                bytes = 0;
            }
        }
    }
    if (growing) {
        // The CPUs read side by side (a page's time is not known before it is read: its place in
        // its stream stands for it), so that the store's order can be published early.
        std::vector<size_t> order(segments.size());
        for (size_t k = 0; k < order.size(); ++k) order[k] = k;
        std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return startsAt[a] < startsAt[b]; });
        std::vector<Segment> interleaved;
        interleaved.reserve(segments.size());
        for (size_t k : order) interleaved.push_back(std::move(segments[k]));
        segments = std::move(interleaved);
    }
    return segments;
}

void loadSegment(Segment& seg, const Stream& stream, const FileInfo& info, const CommonLayout& layout,
                 const TimestampConverter& converter, const std::vector<RecordTap>& taps, Shared& shared,
                 uint64_t* perType, std::vector<uint8_t>& buffer, std::vector<uint8_t>& scratch)
{
    PageParser parser(info.kernelLongSize, info.bigEndian, layout, converter, stream.cpu);
    if (!taps.empty()) parser.setTaps(&taps, &seg.taps, seg.sink);
    const PageSource& source = *stream.pages;
    const uint32_t pageSize = source.pageSize();
    for (size_t r = seg.firstRun; r < seg.endRun && !shared.abandoned(); ++r) {
        const PageRun run = source.run(r);
        std::string reason;
        if (!source.readRun(run, buffer, scratch, &reason)) {
            for (uint32_t p = 0; p < run.pages; ++p)
                seg.columns.pageFirstEvent.push_back(static_cast<uint32_t>(seg.columns.size()));
            seg.stats.unreadablePages += run.pages;
            if (seg.stats.firstProblem.empty())
                seg.stats.firstProblem = "pages " + std::to_string(run.firstPage) + "-" +
                                         std::to_string(run.firstPage + run.pages - 1) + ": " + reason;
            shared.bytesDone += uint64_t(run.pages) * pageSize;
            continue;
        }
        const size_t before = seg.columns.size();
        for (uint32_t p = 0; p < run.pages; ++p)
            parser.parse(buffer.data() + size_t(p) * pageSize, pageSize, seg.columns, seg.stats, perType);
        shared.bytesDone += uint64_t(run.pages) * pageSize;
        shared.events += seg.columns.size() - before;
    }
}

std::string streamLabel(const BufferSummary& buffer, int cpu)
{
    return (buffer.name.empty() ? std::string() : "buffer '" + buffer.name + "' ") + "CPU " + std::to_string(cpu);
}

void reportStreamStats(StoreAppender& appender, const BufferSummary& buffer, const Stream& stream,
                       const CpuLoadStats& st)
{
    Diagnostics& d = appender.diagnostics();
    const std::string where = streamLabel(buffer, stream.cpu);
    if (st.corruptPages)
        d.warn("corrupt-page",
               where + ": " + std::to_string(st.corruptPages) + " corrupt pages skipped (" + st.firstProblem + ")",
               st.corruptPages);
    if (st.unreadablePages)
        d.warn("unreadable-page",
               where + ": " + std::to_string(st.unreadablePages) + " pages could not be decompressed (" +
                   st.firstProblem + ")",
               st.unreadablePages);
    if (st.shortRecords)
        d.warn("short-record",
               where + ": " + std::to_string(st.shortRecords) +
                   " records too short to hold an event header were skipped",
               st.shortRecords);
    if (st.backwardsTimestamps)
        d.warn("time-backwards",
               where + ": timestamps went backwards " + std::to_string(st.backwardsTimestamps) + " times",
               st.backwardsTimestamps);
    if (stream.columns.lostTotal || stream.columns.unknownLostPages)
        d.warn("lost-events",
               where + ": " + std::to_string(stream.columns.lostTotal) + " events lost in the ring buffer" +
                   (stream.columns.unknownLostPages
                        ? " (plus " + std::to_string(stream.columns.unknownLostPages) + " gaps of unknown size)"
                        : std::string()),
               stream.columns.lostTotal);
    if (stream.statsOverrun)
        d.warn("overrun",
               where + ": the kernel overwrote " + std::to_string(stream.statsOverrun) +
                   " events before they were saved (CPU stats)",
               stream.statsOverrun);
}

} // namespace

namespace {

Result<LoadEnd> loadAll(const DatFile& file, tep_handle* tep, const LoadOptions& options, EventStore& store,
                        std::vector<std::vector<TapColumn>>* tapsOut);

} // namespace

void shapeStore(const DatFile& file, tep_handle* tep, EventStore& store)
{
    StoreAppender appender(store, {});
    const FileInfo& info = file.info();
    appender.diagnostics().append(file.diagnostics());

    for (size_t b = 0; b < file.buffers().size(); ++b) {
        const BufferInfo& buffer = file.buffers()[b];
        appender.addBuffer({buffer.name, buffer.clock, buffer.pageSize, {}, buffer.stats});
        if (buffer.latency)
            appender.diagnostics().add(Diagnostic::Severity::Info, "latency-buffer",
                                       "buffer '" + buffer.name + "' holds latency text, not events");
        if (buffer.pageSize > 65536) {
            appender.diagnostics().warn("page-size", "buffer '" + buffer.name + "': page size " +
                                                         std::to_string(buffer.pageSize) + " is not supported");
        } else if (!buffer.latency) {
            for (const CpuDataInfo& cpu : buffer.cpus) {
                auto pages = std::make_unique<FilePageSource>(file.mapping(), cpu, info.codec, buffer.pageSize);
                const StreamId id = appender.addStream(static_cast<uint16_t>(b), cpu.cpu, std::move(pages));
                appender.stream(id).endsEarly = cpu.cut;
                for (const CpuStats& st : buffer.stats)
                    if (st.cpu == cpu.cpu) appender.stream(id).statsOverrun = st.overrun;
            }
        }
    }

    const CommonLayout layout = commonLayout(tep);
    appender.setLayout({info.kernelLongSize, info.bigEndian, layout.minSize});
}

Result<LoadEnd> loadEvents(const DatFile& file, tep_handle* tep, const LoadOptions& options, EventStore& store,
                           std::vector<std::vector<TapColumn>>* taps)
{
    try {
        return loadAll(file, tep, options, store, taps);
    } catch (...) {
        return errorFromException(file.path(), std::current_exception());
    }
}

namespace {

Result<LoadEnd> loadAll(const DatFile& file, tep_handle* tep, const LoadOptions& options, EventStore& store,
                        std::vector<std::vector<TapColumn>>* tapsOut)
{
    // The saved comms of the file name its tasks as their first events come.
    StoreAppender::CommLookup comms = options.savedComm;
    if (!comms)
        comms = [tep](int32_t pid) {
            const char* comm = tep ? tep_data_comm_from_pid(tep, pid) : nullptr;
            return std::string(comm ? comm : "<...>");
        };
    const FileInfo& info = file.info();
    if (store.streamCount() == 0 && store.buffers().empty()) shapeStore(file, tep, store);
    StoreAppender appender(store, std::move(comms)); // after the streams: it keeps a mark per stream
    uint64_t totalBytes = 0;
    std::vector<StreamId> ids;
    for (size_t i = 0; i < store.streamCount(); ++i) {
        ids.push_back(StreamId(uint16_t(i)));
        totalBytes += store.stream(ids.back()).pages->streamBytes();
    }

    const CommonLayout layout = commonLayout(tep);
    const TimestampConverter converter(info);
    std::vector<const Stream*> streams;
    for (const StreamId id : ids) streams.push_back(&store.stream(id));
    Shared shared;
    shared.cancel = options.cancel;
    shared.growing = options.growing;

    int threads =
        options.threads > 0 ? options.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    std::vector<Segment> segments = planSegments(streams, threads, options.segmentBytes, options.growing);
    threads = std::max(1, std::min<int>(threads, static_cast<int>(segments.size())));
    std::vector<std::vector<uint64_t>> perType(static_cast<size_t>(threads));
    // Which segments are parsed whole, and how many workers still run: the workers tell the
    // loading thread, which appends each stream's segments in order as they are done.
    std::mutex doneLock;
    std::condition_variable doneChanged;
    std::vector<char> parsed(segments.size(), 0);
    int running = threads;
    std::atomic<size_t> next{0};
    auto worker = [&](int t) {
        perType[static_cast<size_t>(t)].assign(65536, 0);
        std::vector<uint8_t> buffer, scratch;
        try {
            for (size_t k = next++; k < segments.size() && !shared.stopping(); k = next++) {
                Segment& seg = segments[k];
                if (options.beforeSegment) options.beforeSegment(k);
                if (options.sinkFor) seg.sink = options.sinkFor(seg.stream);
                loadSegment(seg, *streams[seg.stream], info, layout, converter, options.taps, shared,
                            perType[static_cast<size_t>(t)].data(), buffer, scratch);
                if (seg.sink) seg.sink->end();
                const bool whole = !shared.abandoned();
                {
                    const std::lock_guard lock(doneLock);
                    parsed[k] = whole;
                }
                doneChanged.notify_one();
            }
        } catch (...) {
            shared.failed = true; // the other workers stop at their next segment
            {
                const std::lock_guard lock(doneLock);
                --running;
            }
            doneChanged.notify_one();
            throw;
        }
        {
            const std::lock_guard lock(doneLock);
            --running;
        }
        doneChanged.notify_one();
    };
    std::vector<std::future<void>> workers;
    for (int t = 0; t < threads; ++t) workers.push_back(std::async(std::launch::async, worker, t));
    auto report = [&] {
        if (!options.progress) return;
        LoadProgress p;
        p.bytesDone = shared.bytesDone.load();
        p.bytesTotal = totalBytes;
        p.events = shared.events.load();
        options.progress(p);
    };
    if (options.alongside) options.alongside();

    // Each stream's segments, in order, are appended as a capture's batches are, as soon as
    // they are parsed; a growing store publishes what every stream has reached.
    std::vector<std::vector<size_t>> byStream(streams.size());
    for (size_t k = 0; k < segments.size(); ++k) byStream[segments[k].stream].push_back(k);
    std::vector<size_t> appended(streams.size(), 0); // of byStream[stream]
    if (options.growing)
        for (size_t i = 0; i < streams.size(); ++i)
            if (!byStream[i].empty()) appender.advance(ids[i], 1); // holds the others back until it has events
    std::vector<CpuLoadStats> stats(streams.size());
    std::vector<std::vector<TapColumn>> taps(options.taps.size());
    for (auto& perStream : taps) perStream.resize(streams.size());
    // Readers of a growing store see a type's count as soon as its rows are appended, and ask
    // its name by it: the formats of a segment's new types are parsed before it is appended.
    std::vector<uint64_t> typesAppended; // 1 for each type of the segments appended
    auto parseNewTypes = [&](const Segment& seg) {
        if (!options.growing || !options.typesSeen) return;
        if (typesAppended.empty()) typesAppended.assign(65536, 0);
        bool any = false;
        seg.columns.shapes.forEachDistinct([&](uint32_t shape) {
            uint64_t& seen = typesAppended[uint16_t(shape)];
            any |= seen == 0;
            seen = 1;
        });
        if (any) options.typesSeen(typesAppended, appender.diagnostics());
    };
    auto appendSegment = [&](Segment& seg) {
        parseNewTypes(seg);
        const CpuColumns& columns = streams[seg.stream]->columns;
        if (columns.size() && seg.columns.size() && seg.columns.timestamp[0] < columns.timestamp.back())
            ++stats[seg.stream].backwardsTimestamps;
        for (size_t t = 0; t < seg.taps.size(); ++t) taps[t][seg.stream].append(std::move(seg.taps[t]));
        if (seg.sink && options.sinkPlaced)
            options.sinkPlaced(seg.sink, seg.stream, uint32_t(columns.size()), uint32_t(seg.columns.size()));
        // A growing store's type counts are read as it grows (typesSeen): counted as appended.
        if (options.growing)
            appender.append(ids[seg.stream], std::move(seg.columns));
        else
            appender.appendCounted(ids[seg.stream], std::move(seg.columns));
        stats[seg.stream].add(seg.stats);
        seg = Segment();
    };
    // Appends what is ready; true when the store's streams grew.
    auto appendReady = [&] {
        bool grew = false;
        for (size_t i = 0; i < streams.size(); ++i) {
            while (appended[i] < byStream[i].size()) {
                const size_t k = byStream[i][appended[i]];
                {
                    const std::lock_guard lock(doneLock);
                    if (!parsed[k]) break;
                }
                appendSegment(segments[k]);
                grew = true;
                if (++appended[i] == byStream[i].size() && options.growing) appender.advance(ids[i], UINT64_MAX);
            }
        }
        return grew;
    };
    std::exception_ptr failure;
    try {
        for (bool last = false; !last;) {
            {
                std::unique_lock lock(doneLock);
                doneChanged.wait_for(lock, std::chrono::milliseconds(50));
                last = running == 0;
            }
            if (appendReady() && options.growing && !shared.stopping()) appender.publish(false);
            report();
        }
    } catch (...) {
        // This thread's own work failed (memory for the appends): the workers stop at their
        // next segment, and are waited for below.
        shared.failed = true;
        failure = std::current_exception();
    }
    for (auto& w : workers) {
        try {
            w.get();
        } catch (...) {
            if (!failure) failure = std::current_exception(); // the first one is reported
        }
    }
    if (failure) std::rethrow_exception(failure);
    const bool stopped = shared.cancelled();
    if (stopped && !options.growing) return Error{file.path() + ": loading was cancelled"};
    segments.clear();
    std::vector<uint64_t> typeCounts(65536, 0);
    for (const auto& counts : perType)
        for (size_t t = 0; t < counts.size(); ++t) typeCounts[t] += counts[t];
    if (!options.growing) appender.addTypeCounts(typeCounts); // else counted as appended

    for (size_t i = 0; i < streams.size(); ++i)
        reportStreamStats(appender, store.buffers()[streams[i]->buffer], *streams[i], stats[i]);
    if (stopped) {
        for (size_t i = 0; i < streams.size(); ++i)
            if (appended[i] < byStream[i].size()) appender.stream(ids[i]).endsEarly = true;
        const uint64_t done = shared.bytesDone.load();
        appender.diagnostics().warn("load-stopped", "loading was stopped after " + std::to_string(done >> 20) + " of " +
                                                        std::to_string(totalBytes >> 20) +
                                                        " MB of pages: each CPU's later events are not shown");
    }
    const bool sorted =
        std::all_of(stats.begin(), stats.end(), [](const CpuLoadStats& st) { return st.backwardsTimestamps == 0; });
    if (options.typesKnown) options.typesKnown(store.eventTypeCounts(), appender.diagnostics());
    appender.publish(true, threads, sorted); // a recording is a capture that ends at once
    if (tapsOut) *tapsOut = std::move(taps);
    return stopped ? LoadEnd::Stopped : LoadEnd::Whole;
}

} // namespace

} // namespace ringside
