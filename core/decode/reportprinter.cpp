// SPDX-License-Identifier: GPL-2.0-or-later
#include "decode/reportprinter.h"

#include "decode/reportworker.h"
#include "trace.h"
#include "util/orderedpieces.h"

#include <traceevent/event-parse.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

namespace ringside {

namespace {

constexpr size_t kReportPieceRows = 16384; // ~1.5 MB of text: small enough to spread, big enough to amortize

// Whether libtraceevent's function plugin, whose indentation depends on every earlier
// function event of the CPU (kept in the plugin's globals), prints events of this trace.
bool needsOneThread(const Trace& trace)
{
    tep_event* function = tep_find_event_by_name(trace.tep(), "ftrace", "function");
    return function && function->id >= 0 && function->id < 65536 &&
           trace.store().eventTypeCount(uint16_t(function->id)) > 0;
}

} // namespace

ReportPrinter::ReportPrinter(const Trace& trace) : m_trace(trace) {}

int ReportPrinter::cpuCount(const Trace& trace)
{
    const auto& buffers = trace.file().buffers();
    const FileInfo& info = trace.file().info();
    int cpus = info.cpuCount;
    // trace-cmd prints the larger of CPUCOUNT and the top buffer's highest CPU + 1.
    if (info.version >= 7 && !buffers.empty() && buffers[0].name.empty())
        for (const auto& c : buffers[0].cpus) cpus = std::max(cpus, c.cpu + 1);
    return cpus;
}

size_t ReportPrinter::dump(FILE* out, int threads, size_t pieceRows)
{
    const EventStore& store = m_trace.store();
    std::fprintf(out, "cpus=%d\n", cpuCount(m_trace));

    const size_t rows = store.eventCount();
    if (pieceRows == 0) pieceRows = kReportPieceRows;
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

    return makeInOrder(
        pieces, workers.size(),
        [&](size_t worker, size_t piece, std::string& text) {
            ReportWorker& w = *workers[worker];
            if (workers.size() > 1) w.applyComms(comms, piece * pieceRows);
            return w.dumpRows(piece * pieceRows, std::min(rows, (piece + 1) * pieceRows), text);
        },
        [&](size_t, std::string& text, size_t) {
            return std::fwrite(text.data(), 1, text.size(), out) == text.size();
        });
}

} // namespace ringside
