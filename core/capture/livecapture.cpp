// SPDX-License-Identifier: GPL-2.0-or-later
#include "capture/livecapture.h"

#include "capture/captureprotocol.h"
#include "file/datwriter.h"
#include "file/spoolpagesource.h"
#include "load/pageparser.h"
#include "load/storeappender.h"
#include "load/timestampconverter.h"

#include <traceevent/event-parse.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ringside {

namespace {

// Pages of a CPU parsed before they are handed to the store at the latest (1 MiB of 4 KiB pages).
constexpr size_t kBatchPages = 256;

// How far behind what the others reached an idle CPU is taken to be (ns): a round of reads.
constexpr uint64_t kAdvanceMargin = 20'000'000;

uint64_t statValue(const std::string& stats, const char* name)
{
    const std::string key = std::string("\n") + name + ": ";
    const size_t at = ("\n" + stats).find(key);
    return at == std::string::npos ? 0 : std::strtoull(stats.c_str() + at + key.size() - 1, nullptr, 10);
}

// Whether /proc may name the captured pids: the capture is of the kernel this process runs
// on (as ringside-capture describes it), and this process sees pids as that kernel records
// them (the initial pid namespace, whose inode number is fixed).
bool procNamesCapturedPids(const CaptureMetadata& metadata)
{
    if (metadata.uname.empty() || metadata.uname != CaptureMetadata::localUname()) return false;
    struct stat st {};
    return ::stat("/proc/self/ns/pid", &st) == 0 && st.st_ino == 0xEFFFFFFCu;
}

// The name of a living task, empty when it is gone.
std::string procComm(int32_t pid)
{
    const int fd = ::open(("/proc/" + std::to_string(pid) + "/comm").c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return {};
    char name[64];
    const ssize_t n = ::read(fd, name, sizeof name);
    ::close(fd);
    std::string comm(name, size_t(std::max<ssize_t>(n, 0)));
    while (!comm.empty() && (comm.back() == '\n' || comm.back() == '\0')) comm.pop_back();
    return comm;
}

// The kernel's saved names, then those seen of the tasks it did not keep (its list is short:
// 128 by default). Readers take a pid's first name: the kernel's stays the one.
std::string withSeenNames(const std::string& cmdlines, const std::map<int32_t, std::string>& seen)
{
    const std::map<int32_t, std::string> saved = parseCmdlines(cmdlines);
    std::string names = cmdlines;
    if (!names.empty() && names.back() != '\n') names += '\n';
    for (const auto& [pid, comm] : seen)
        if (!saved.count(pid)) names += std::to_string(pid) + ' ' + comm + '\n';
    return names;
}

} // namespace

// The parts the capture's thread works with, apart from the public object.
struct LiveCaptureState {
    std::unique_ptr<CaptureStreamReader> reader;
    std::unique_ptr<TimestampConverter> converter;
    std::vector<std::unique_ptr<PageParser>> parsers;
    std::vector<RecordTap> taps; // the records the trace's analyses read
};

Result<std::unique_ptr<LiveCapture>> LiveCapture::start(const std::vector<std::string>& helperArguments,
                                                        const std::string& workDir,
                                                        std::vector<std::unique_ptr<Plugin>> plugins)
{
    auto helper = CaptureProcess::start(helperArguments);
    if (!helper) return helper.error();
    std::unique_ptr<LiveCapture> capture(new LiveCapture);
    capture->m_helper = std::move(*helper);
    auto state = std::make_unique<LiveCaptureState>();
    // The pipe is emptied on a thread of its own: parsing, publishing and the views' locks may
    // hold up the capture's thread, never the helper.
    state->reader = std::make_unique<CaptureStreamReader>(capture->m_helper->streamFd(), true);
    // The helper's first words: notes, then the metadata or why there is none.
    std::string error;
    for (;;) {
        auto message = state->reader->next(&error);
        if (!message) {
            const int status = capture->m_helper->wait();
            return Error{error.empty() ? capture->m_helper->endedBeforeRecording(status) : error};
        }
        if (message->type == CaptureMessage::Error) return Error{message->body};
        if (message->type == CaptureMessage::Note) continue;
        if (message->type != CaptureMessage::Metadata) return Error{"the capture helper spoke out of turn"};
        auto metadata = CaptureMetadata::parse(message->body);
        if (!metadata) return metadata.error();
        capture->m_metadata = std::move(*metadata);
        break;
    }
    // The formats, as a recording without pages, for the trace to decode through.
    static std::atomic<int> serial{0};
    capture->m_metadataPath =
        workDir + "/ringside-live-" + std::to_string(::getpid()) + "-" + std::to_string(serial++) + ".dat";
    if (!writeDat(
            capture->m_metadataPath, capture->m_metadata, [](size_t, CpuDataSink&, std::string*) { return true; },
            "ringside", DatFormat::v6(), &error))
        return Error{error};
    auto trace = Trace::growing(capture->m_metadataPath, &capture->m_store, false, std::move(plugins));
    if (!trace) return trace.error();
    capture->m_trace = std::move(*trace);
    capture->m_traceRef = capture->m_trace.get();
    const FileInfo& info = capture->m_traceRef->file().info();

    // Task names come with the end's metadata; until then /proc names the tasks that still
    // live as they appear (read on the capture's thread, applied on the views' own).
    const bool namedByProc = procNamesCapturedPids(capture->m_metadata);
    capture->m_appender =
        std::make_unique<StoreAppender>(*capture->m_store, [raw = capture.get(), namedByProc](int32_t pid) {
            std::string comm = namedByProc && pid > 0 ? procComm(pid) : std::string();
            if (!comm.empty()) {
                std::lock_guard<std::mutex> lock(raw->m_lock);
                raw->m_seenComms += std::to_string(pid) + ' ' + comm + '\n';
                raw->m_seenNames.emplace(pid, comm);
            }
            return comm;
        });
    capture->m_appender->addBuffer({"", info.traceClock, info.pageSize, {}, {}});
    capture->m_appender->setLayout({info.kernelLongSize, info.bigEndian, 8});
    state->converter = std::make_unique<TimestampConverter>(info);
    state->taps = capture->m_traceRef->captureTaps();
    for (int cpu = 0; cpu < capture->m_metadata.cpus; ++cpu) {
        auto pages = std::make_unique<SpoolPageSource>(info.pageSize, workDir);
        capture->m_pages.push_back(pages.get());
        capture->m_appender->addStream(0, cpu, std::move(pages));
        state->parsers.push_back(
            std::make_unique<PageParser>(info.kernelLongSize, info.bigEndian, CommonLayout(), *state->converter, cpu));
    }
    capture->m_state = std::move(state);
    capture->m_thread = std::thread([raw = capture.get()] { raw->run(); });
    return capture;
}

LiveCapture::~LiveCapture()
{
    if (m_helper) m_helper->stop();
    if (m_thread.joinable()) m_thread.join();
    if (!m_metadataPath.empty()) std::remove(m_metadataPath.c_str());
}

void LiveCapture::setGrowthListener(std::function<void(size_t rows)> listener)
{
    std::lock_guard<std::mutex> lock(m_lock);
    m_growth = std::move(listener);
}

void LiveCapture::stop()
{
    m_helper->stop();
}

LiveCapture::Progress LiveCapture::progress() const
{
    std::lock_guard<std::mutex> lock(m_lock);
    return m_progress;
}

void LiveCapture::waitUntilEnded()
{
    if (m_thread.joinable()) m_thread.join();
}

void LiveCapture::run()
{
    LiveCaptureState* state = m_state.get();
    const uint32_t pageSize = m_metadata.pageSize;
    std::vector<uint64_t> perType(65536);
    std::vector<bool> hadPages(m_pages.size());
    std::vector<uint64_t> overrun(m_pages.size()), dropped(m_pages.size());
    uint64_t reached = 0;       // the latest event time appended on any CPU
    uint64_t reachedBefore = 0; // the same when the last round ended
    auto lastPublish = std::chrono::steady_clock::now();
    bool pending = false;
    std::string error;
    std::vector<CpuColumns> batch(m_pages.size());
    std::vector<std::vector<uint8_t>> batchPages(m_pages.size());
    // The records of the batch the analyses asked for: [tap][cpu], handed to the trace with it.
    auto newTapColumns = [&] {
        std::vector<std::vector<TapColumn>> columns(state->taps.size());
        for (auto& perCpu : columns) perCpu.resize(m_pages.size());
        return columns;
    };
    std::vector<std::vector<TapColumn>> tapColumns = newTapColumns();
    std::vector<std::vector<TapColumn>> cpuTaps(m_pages.size()); // per cpu: its parser's columns
    // Per cpu: what feeds the analyses fed in pieces the stretch being parsed, as a recording's
    // parser does; a stretch ends with each batch handed in.
    std::vector<RecordSink*> sinks(m_pages.size(), nullptr);
    for (size_t cpu = 0; cpu < m_pages.size(); ++cpu) {
        cpuTaps[cpu].resize(state->taps.size());
        sinks[cpu] = m_traceRef->captureSink(StreamId(uint16_t(cpu)));
        if (!state->taps.empty()) state->parsers[cpu]->setTaps(&state->taps, &cpuTaps[cpu], sinks[cpu]);
    }
    // The batches into the store: pages first, so that published rows can read them.
    auto handIn = [&] {
        bool tapped = false;
        for (size_t cpu = 0; cpu < batch.size(); ++cpu) {
            if (batchPages[cpu].empty()) continue;
            m_pages[cpu]->append(batchPages[cpu].data(), uint32_t(batchPages[cpu].size() / pageSize));
            batchPages[cpu].clear();
            // Also a batch of pages without events: the columns count pages as the source does.
            // The batch is filled again: its columns keep their first blocks.
            const StreamId stream(static_cast<uint16_t>(cpu));
            const size_t first = m_appender->stream(stream).columns.size();
            m_appender->appendBatch(stream, batch[cpu]);
            for (size_t t = 0; t < state->taps.size(); ++t)
                if (cpuTaps[cpu][t].size()) tapColumns[t][cpu].append(std::move(cpuTaps[cpu][t])), tapped = true;
            if (sinks[cpu]) {
                m_traceRef->capturePlaced(sinks[cpu], uint32_t(first),
                                          uint32_t(m_appender->stream(stream).columns.size() - first));
                sinks[cpu] = m_traceRef->captureSink(stream);
                state->parsers[cpu]->setSink(sinks[cpu]);
            }
        }
        // Before the rows are published: an analysis that sees the rows finds their records.
        if (tapped) {
            m_traceRef->addTapColumns(std::move(tapColumns));
            tapColumns = newTapColumns();
        }
    };
    auto publish = [&](bool final) {
        handIn();
        const size_t rows = m_appender->publish(final);
        pending = false;
        lastPublish = std::chrono::steady_clock::now();
        std::function<void(size_t)> growth;
        {
            std::lock_guard<std::mutex> lock(m_lock);
            m_progress.events = m_store->eventCount();
            growth = m_growth;
        }
        if (rows && growth) growth(m_store->eventCount());
    };
    // A CPU the store knows nothing of (no events, not advanced) would not hold the others
    // back: until every CPU is known, nothing is published early, or its first events would
    // come late.
    std::vector<bool> known(m_pages.size());
    auto allKnown = [&] { return std::all_of(known.begin(), known.end(), [](bool k) { return k; }); };
    for (;;) {
        // Nothing more buffered: what is appended is published before waiting for more.
        if (pending && !state->reader->hasMessage() && allKnown()) publish(false);
        auto message = state->reader->next(&error);
        if (!message) break;
        switch (message->type) {
        case CaptureMessage::Page: {
            const size_t cpu = size_t(message->cpu);
            if (message->cpu < 0 || cpu >= m_pages.size() || message->body.size() > pageSize) {
                std::lock_guard<std::mutex> lock(m_lock);
                if (!m_progress.refusedPages++)
                    m_progress.refusedPage = message->cpu < 0 || cpu >= m_pages.size()
                                                 ? "a page of CPU " + std::to_string(message->cpu) + ", of " +
                                                       std::to_string(m_pages.size()) + " CPUs"
                                                 : "a page of " + std::to_string(message->body.size()) +
                                                       " bytes, longer than the " + std::to_string(pageSize) +
                                                       "-byte pages";
                break;
            }
            // Pages are parsed into the CPU's batch and handed in together (before each
            // publish): one segment per page cost an allocation of every column each time.
            std::vector<uint8_t>& pages = batchPages[cpu];
            const size_t at = pages.size();
            pages.resize(at + pageSize);
            std::memcpy(pages.data() + at, message->body.data(), message->body.size());
            std::memset(pages.data() + at + message->body.size(), 0, pageSize - message->body.size());
            CpuLoadStats stats;
            CpuColumns& segment = batch[cpu];
            state->parsers[cpu]->parse(pages.data() + at, pageSize, segment, stats, perType.data());
            if (segment.size()) reached = std::max(reached, segment.timestamp[segment.size() - 1]);
            if (pages.size() >= kBatchPages * size_t(pageSize)) handIn();
            hadPages[cpu] = true;
            known[cpu] = true;
            pending = true;
            break;
        }
        case CaptureMessage::Round:
            // A CPU that was empty when this round read it will hold nothing older than what
            // the rounds before had read from the others: those events were written before
            // this round began. (Not what this round read: a CPU read early in the round may
            // get an event older than those of a CPU read after it.) Less a margin: CPUs'
            // clocks differ a little ("local" is per CPU), and an event may be stamped well
            // before it is committed.
            for (size_t cpu = 0; cpu < hadPages.size(); ++cpu) {
                if (!hadPages[cpu] && reachedBefore > kAdvanceMargin) {
                    m_appender->advance(StreamId(uint16_t(cpu)), reachedBefore - kAdvanceMargin);
                    known[cpu] = true;
                }
                hadPages[cpu] = false;
            }
            reachedBefore = reached;
            if (pending && allKnown() &&
                std::chrono::steady_clock::now() - lastPublish >= std::chrono::milliseconds(50))
                publish(false);
            break;
        case CaptureMessage::Stats:
            if (message->cpu >= 0 && size_t(message->cpu) < overrun.size()) {
                overrun[size_t(message->cpu)] = statValue(message->body, "overrun");
                dropped[size_t(message->cpu)] = statValue(message->body, "dropped events");
                std::lock_guard<std::mutex> lock(m_lock);
                m_progress.overrun = m_progress.dropped = 0;
                for (size_t c = 0; c < overrun.size(); ++c)
                    m_progress.overrun += overrun[c], m_progress.dropped += dropped[c];
            }
            break;
        case CaptureMessage::Metadata:
            if (auto metadata = CaptureMetadata::parse(message->body)) {
                std::lock_guard<std::mutex> lock(m_lock);
                m_metadata = std::move(*metadata);
            } else {
                // The start's metadata stays; the task names and counters of the end are lost.
                std::lock_guard<std::mutex> lock(m_lock);
                if (!m_progress.refusedMetadata++) m_progress.refusedMetadataWhy = metadata.error().message;
            }
            break;
        case CaptureMessage::Error: {
            std::lock_guard<std::mutex> lock(m_lock);
            m_progress.error = message->body;
            break;
        }
        case CaptureMessage::Note: break;
        case CaptureMessage::End: goto ended;
        }
    }
    if (!error.empty()) {
        std::lock_guard<std::mutex> lock(m_lock);
        if (m_progress.error.empty()) m_progress.error = error;
    }
ended:
    {
        // Said where a recording's damage is said (the trace health pane, `info`).
        const Progress p = progress();
        Diagnostics& diagnostics = m_appender->diagnostics();
        if (p.refusedPages)
            diagnostics.warn("capture-refused-pages",
                             std::to_string(p.refusedPages) + " pages the capture helper sent were left out (" +
                                 p.refusedPage + ")",
                             p.refusedPages);
        if (p.refusedMetadata)
            diagnostics.warn("capture-refused-metadata",
                             "the capture's metadata at its end did not parse (" + p.refusedMetadataWhy +
                                 "): the task names and counters of its start are kept",
                             p.refusedMetadata);
    }
    publish(true);
    m_helper->wait();
    std::lock_guard<std::mutex> lock(m_lock);
    m_progress.ended = true;
}

void LiveCapture::applyTaskNames()
{
    std::string names; // those seen, then the kernel's, which replace them
    {
        std::lock_guard<std::mutex> lock(m_lock);
        names.swap(m_seenComms);
        names += m_metadata.cmdlines;
    }
    const TepAccess tep = m_traceRef->tep();
    m_traceRef->file().addSavedComms(names);
}

bool LiveCapture::applySeenTaskNames()
{
    std::string seen;
    {
        std::lock_guard<std::mutex> lock(m_lock);
        seen.swap(m_seenComms);
    }
    if (seen.empty()) return false;
    const TepAccess tep = m_traceRef->tep();
    m_traceRef->file().addSavedComms(seen);
    return true;
}

bool LiveCapture::save(const std::string& path, DatFormat format, std::string* error,
                       const WriteProgress& progress) const
{
    CaptureMetadata metadata;
    {
        std::lock_guard<std::mutex> lock(m_lock);
        metadata = m_metadata;
        metadata.cmdlines = withSeenNames(m_metadata.cmdlines, m_seenNames);
    }
    // The pages of the CPUs as they are now (a running capture's grow on).
    std::vector<size_t> runs;
    uint64_t total = 0, done = 0;
    for (const SpoolPageSource* pages : m_pages) {
        runs.push_back(pages->runCount());
        for (size_t r = 0; r < runs.back(); ++r) total += uint64_t(pages->run(r).pages) * pages->pageSize();
    }
    return writeDat(
        path, metadata,
        [&](size_t cpu, CpuDataSink& out, std::string* why) {
            const SpoolPageSource& pages = *m_pages[cpu];
            std::vector<uint8_t> buffer, scratch;
            for (size_t r = 0; r < runs[cpu]; ++r) {
                if (progress.cancelled()) return *why = "cancelled", false;
                // The run's pages, not the padding a read adds after them.
                const size_t bytes = size_t(pages.run(r).pages) * pages.pageSize();
                if (!pages.readRun(pages.run(r), buffer, scratch, why) || !out.write(buffer.data(), bytes, why))
                    return false;
                progress.reached(done += bytes, total);
            }
            return true;
        },
        "ringside", format, error);
}

} // namespace ringside
