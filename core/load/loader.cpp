// SPDX-License-Identifier: GPL-2.0-or-later
#include "load/loader.h"

#include "file/datfile.h"
#include "load/pageparser.h"
#include "load/storebuilder.h"

#include <traceevent/event-parse.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <future>
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
    layout.minSize = std::max({layout.typeOffset + layout.typeSize, layout.flagsOffset + 1,
                               layout.preemptOffset + 1, layout.pidOffset + layout.pidSize});
    return layout;
}

struct Shared {
    std::atomic<uint64_t> bytesDone{0};
    std::atomic<uint64_t> events{0};
    const std::atomic<bool>* cancel = nullptr;
    bool cancelled() const { return cancel && cancel->load(std::memory_order_relaxed); }
};

void loadStream(Stream& stream, const FileInfo& info, const CommonLayout& layout,
                const TimestampConverter& converter, Shared& shared, CpuLoadStats& stats)
{
    PageParser parser(info.kernelLongSize, info.bigEndian, layout, converter, stream.cpu);
    const PageSource& source = *stream.pages;
    const uint32_t pageSize = source.pageSize();
    std::vector<uint8_t> scratch(pageSize + PageSource::kPadding, 0);
    uint64_t expectedPage = 0;

    auto onError = [&](uint64_t first, uint64_t pages, const std::string& reason) {
        for (; expectedPage < first + pages; ++expectedPage)
            stream.columns.pageFirstEvent.push_back(static_cast<uint32_t>(stream.columns.size()));
        stats.unreadablePages += pages;
        if (stats.firstProblem.empty())
            stats.firstProblem = "pages " + std::to_string(first) + "-" +
                                 std::to_string(first + pages - 1) + ": " + reason;
        shared.bytesDone += pages * pageSize;
    };
    auto onRun = [&](uint64_t first, const uint8_t* data, uint64_t pages) {
        const bool mapped = !source.data().compressed;
        const uint8_t* runEnd = data + pages * pageSize;
        uint64_t pendingBytes = 0, pendingEvents = 0;
        for (uint64_t p = 0; p < pages && !shared.cancelled(); ++p) {
            const uint8_t* page = data + p * pageSize;
            // A mapped page at the end of the data is copied, so that reading past a corrupt
            // record stays inside our memory.
            if (mapped && page + pageSize + PageSource::kPadding > runEnd) {
                std::memcpy(scratch.data(), page, pageSize);
                page = scratch.data();
            }
            const size_t before = stream.columns.size();
            parser.parse(page, pageSize, stream.columns, stats);
            expectedPage = first + p + 1;
            pendingBytes += pageSize;
            pendingEvents += stream.columns.size() - before;
            if ((p & 63) == 63) {
                shared.bytesDone += pendingBytes;
                shared.events += pendingEvents;
                pendingBytes = pendingEvents = 0;
            }
        }
        shared.bytesDone += pendingBytes;
        shared.events += pendingEvents;
    };
    source.forEachRun(onRun, onError);
}

std::string streamLabel(const BufferSummary& buffer, int cpu)
{
    return (buffer.name.empty() ? std::string() : "buffer '" + buffer.name + "' ") + "CPU " +
           std::to_string(cpu);
}

void reportStreamStats(StoreBuilder& builder, const BufferSummary& buffer, const Stream& stream,
                       const CpuLoadStats& st)
{
    Diagnostics& d = builder.diagnostics();
    const std::string where = streamLabel(buffer, stream.cpu);
    if (st.corruptPages)
        d.warn("corrupt-page", where + ": " + std::to_string(st.corruptPages) +
                   " corrupt pages skipped (" + st.firstProblem + ")", st.corruptPages);
    if (st.unreadablePages)
        d.warn("unreadable-page", where + ": " + std::to_string(st.unreadablePages) +
                   " pages could not be decompressed (" + st.firstProblem + ")", st.unreadablePages);
    if (st.shortRecords)
        d.warn("short-record", where + ": " + std::to_string(st.shortRecords) +
                   " records too short to hold an event header were skipped", st.shortRecords);
    if (st.backwardsTimestamps)
        d.warn("time-backwards", where + ": timestamps went backwards " +
                   std::to_string(st.backwardsTimestamps) + " times", st.backwardsTimestamps);
    if (stream.columns.lostTotal || stream.columns.unknownLostPages)
        d.warn("lost-events", where + ": " + std::to_string(stream.columns.lostTotal) +
                   " events lost in the ring buffer" +
                   (stream.columns.unknownLostPages
                        ? " (plus " + std::to_string(stream.columns.unknownLostPages) +
                              " gaps of unknown size)"
                        : std::string()),
               stream.columns.lostTotal);
    if (stream.statsOverrun)
        d.warn("overrun", where + ": the kernel overwrote " + std::to_string(stream.statsOverrun) +
                   " events before they were saved (CPU stats)", stream.statsOverrun);
}

} // namespace

Result<std::unique_ptr<EventStore>> loadEvents(const DatFile& file, const LoadOptions& options)
{
    auto store = std::make_unique<EventStore>();
    StoreBuilder builder(*store);
    const FileInfo& info = file.info();
    builder.setLayout({info.kernelLongSize, info.bigEndian});
    builder.diagnostics().append(file.diagnostics());

    uint64_t totalBytes = 0;
    for (size_t b = 0; b < file.buffers().size(); ++b) {
        const BufferInfo& buffer = file.buffers()[b];
        BufferSummary summary{buffer.name, buffer.clock, buffer.pageSize, {}, buffer.stats};
        if (buffer.latency)
            builder.diagnostics().add(Diagnostic::Severity::Info, "latency-buffer",
                                      "buffer '" + buffer.name + "' holds latency text, not events");
        if (buffer.pageSize > 65536) {
            builder.diagnostics().warn("page-size", "buffer '" + buffer.name + "': page size " +
                                       std::to_string(buffer.pageSize) + " is not supported");
        } else if (!buffer.latency) {
            for (const CpuDataInfo& cpu : buffer.cpus) {
                auto pages = std::make_unique<PageSource>(file.mapping(), cpu, info.codec,
                                                          buffer.pageSize);
                totalBytes += pages->streamBytes();
                Stream& s = builder.addStream(static_cast<uint16_t>(b), cpu.cpu, std::move(pages));
                for (const CpuStats& st : buffer.stats)
                    if (st.cpu == cpu.cpu) s.statsOverrun = st.overrun;
                summary.streams.push_back(StreamId(static_cast<uint16_t>(builder.streams().size() - 1)));
            }
        }
        builder.addBuffer(std::move(summary));
    }

    const CommonLayout layout = commonLayout(file.tep());
    const TimestampConverter converter(info);
    auto& streams = builder.streams();
    std::vector<CpuLoadStats> stats(streams.size());
    Shared shared;
    shared.cancel = options.cancel;

    // Largest streams first, so the workers finish together.
    std::vector<size_t> order(streams.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return streams[a]->pages->streamBytes() > streams[b]->pages->streamBytes();
    });
    int threads = options.threads > 0 ? options.threads
                                      : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    threads = std::max(1, std::min<int>(threads, static_cast<int>(streams.size())));
    std::atomic<size_t> next{0};
    auto worker = [&] {
        for (size_t k = next++; k < order.size(); k = next++) {
            size_t i = order[k];
            loadStream(*streams[i], info, layout, converter, shared, stats[i]);
        }
    };
    std::vector<std::future<void>> workers;
    for (int t = 0; t < threads; ++t) workers.push_back(std::async(std::launch::async, worker));
    auto report = [&] {
        if (options.progress)
            options.progress({shared.bytesDone.load(), totalBytes, shared.events.load()});
    };
    for (auto& w : workers) {
        while (w.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready) report();
    }
    report();
    if (shared.cancelled()) return Error{file.path() + ": loading was cancelled"};

    for (size_t i = 0; i < streams.size(); ++i)
        reportStreamStats(builder, store->buffers()[streams[i]->buffer], *streams[i], stats[i]);
    builder.finalize(stats, file.tep());
    return store;
}

} // namespace ringside
