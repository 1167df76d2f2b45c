// SPDX-License-Identifier: GPL-2.0-or-later
#include "decode/reportprinter.h"

#include "decode/reportworker.h"
#include "trace.h"

#include <traceevent/event-parse.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace ringside {

namespace {

constexpr size_t kPieceRows = 16384; // ~1.5 MB of text: small enough to spread, big enough to amortize

// Whether libtraceevent's function plugin, whose indentation depends on every earlier
// function event of the CPU (kept in the plugin's globals), prints events of this trace.
bool needsOneThread(const Trace& trace)
{
    tep_event* function = tep_find_event_by_name(trace.file().tep(), "ftrace", "function");
    return function && function->id >= 0 && function->id < 65536 &&
           trace.store().eventTypeCount(uint16_t(function->id)) > 0;
}

} // namespace

ReportPrinter::ReportPrinter(const Trace& trace) : m_trace(trace) {}

size_t ReportPrinter::dump(FILE* out, int threads, size_t pieceRows)
{
    const EventStore& store = m_trace.store();
    const auto& buffers = m_trace.file().buffers();
    const FileInfo& info = m_trace.file().info();

    int cpus = info.cpuCount;
    if (info.version >= 7) {
        // trace-cmd prints the larger of CPUCOUNT and the top buffer's highest CPU + 1.
        if (!buffers.empty() && buffers[0].name.empty())
            for (const auto& c : buffers[0].cpus) cpus = std::max(cpus, c.cpu + 1);
    }
    std::fprintf(out, "cpus=%d\n", cpus);

    const size_t rows = store.eventCount();
    if (pieceRows == 0) pieceRows = kPieceRows;
    const size_t pieces = (rows + pieceRows - 1) / pieceRows;
    if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const bool oneThread = needsOneThread(m_trace);
    if (oneThread) threads = 1;
    threads = static_cast<int>(std::min<size_t>(size_t(threads), std::max<size_t>(pieces, 1)));

    // Every worker builds its own handle, so that comms an earlier print registered with the
    // trace's handle cannot leak into this one.
    std::vector<std::unique_ptr<ReportWorker>> workers;
    std::string error;
    for (int i = 0; i < threads; ++i)
        if (auto w = ReportWorker::create(m_trace, true, &error, oneThread)) workers.push_back(std::move(w));
    if (workers.empty()) {
        std::fprintf(out, "[cannot decode: %s]\n", error.c_str());
        return 0;
    }
    const std::vector<CommRegistration> comms =
        workers.size() > 1 ? workers[0]->commRegistrations() : std::vector<CommRegistration>();

    size_t lines = 0;
    if (workers.size() == 1) {
        std::string text;
        for (size_t p = 0; p < pieces; ++p) {
            text.clear();
            lines += workers[0]->dumpRows(p * pieceRows, std::min(rows, (p + 1) * pieceRows), text);
            std::fwrite(text.data(), 1, text.size(), out);
        }
        return lines;
    }

    // A window of pieces in flight: workers take the next piece number and wait while it is
    // too far ahead of the writer, which bounds the memory to window * piece text.
    const size_t window = workers.size() * 4;
    struct Slot {
        std::string text;
        size_t lines = 0;
        bool ready = false;
    };
    std::vector<Slot> slots(window);
    std::mutex mutex;
    std::condition_variable changed;
    size_t written = 0;
    std::atomic<size_t> nextPiece{0};
    std::vector<std::thread> pool;
    for (auto& worker : workers) {
        pool.emplace_back([&, w = worker.get()] {
            std::string text;
            for (size_t p = nextPiece++; p < pieces; p = nextPiece++) {
                {
                    std::unique_lock lock(mutex);
                    changed.wait(lock, [&] { return p < written + window; });
                }
                text.clear();
                w->applyComms(comms, p * pieceRows);
                const size_t n = w->dumpRows(p * pieceRows, std::min(rows, (p + 1) * pieceRows), text);
                std::lock_guard lock(mutex);
                Slot& slot = slots[p % window];
                std::swap(slot.text, text);
                slot.lines = n;
                slot.ready = true;
                changed.notify_all();
            }
        });
    }
    std::string text;
    for (size_t p = 0; p < pieces; ++p) {
        {
            std::unique_lock lock(mutex);
            Slot& slot = slots[p % window];
            changed.wait(lock, [&] { return slot.ready; });
            std::swap(text, slot.text);
            lines += slot.lines;
            slot.ready = false;
            written = p + 1;
        }
        changed.notify_all();
        std::fwrite(text.data(), 1, text.size(), out);
    }
    for (auto& t : pool) t.join();
    return lines;
}

} // namespace ringside
