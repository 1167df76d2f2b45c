// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "decode/funcgraphhandlers.h"
#include "decode/printcheck.h"
#include "decode/recordcheck.h"
#include "decode/simpleprint.h"
#include "decode/streamreader.h"
#include "file/datfile.h"
#include "store/eventstore.h"

#include <traceevent/trace-seq.h>

#include <memory>
#include <string>
#include <vector>

struct tep_event;

namespace ringside {

class Trace;

// What a view (table cell, details pane, tooltip, search, export) formats of one record at
// most: a damaged record can decode to gigabytes. A dump prints records whole.
inline constexpr size_t kMaxViewText = 16 * 1024;
// Deeper function_graph calls show their depth instead of indentation in views.
inline constexpr unsigned long long kViewIndentLimit = 256;

// Cuts `text` after `start` to kMaxViewText bytes, saying how much was left out.
void capViewText(std::string& text, size_t start = 0);

// A comm that libtraceevent's sched_switch plugin teaches the tep handle while printing
// (it registers prev/next_comm of sched_switch and comm of sched_wakeup[_new]): the first
// registration of a pid wins, and a line's task name depends on it from the next row on.
struct CommRegistration {
    size_t row = 0; // merged-order row of the event that registers it
    int32_t pid = 0;
    std::string comm;
};

// Everything one thread needs to print events as `trace-cmd report` does: a tep handle
// (its own, or the trace's for the thread that owns that), the function_graph context
// registered with it, forward page readers per stream, and caches (event formats, comms).
// Used by one thread at a time; several workers format one trace in parallel.
class ReportWorker {
public:
    // With `ownHandle`, builds a tep handle of its own from the trace's file; otherwise uses
    // the trace's handle and function_graph context (the caller owns them meanwhile). An own
    // handle prints `function` events without the function plugin's indentation, which lives
    // in globals shared by all handles, unless `pluginFunctions` (the caller then makes sure
    // that only this handle prints function events meanwhile: a dump on one thread).
    static std::unique_ptr<ReportWorker> create(const Trace& trace, bool ownHandle, std::string* error = nullptr,
                                                bool pluginFunctions = false);
    ~ReportWorker();
    ReportWorker(const ReportWorker&) = delete;
    ReportWorker& operator=(const ReportWorker&) = delete;

    // Appends the report lines of merged rows [begin, end) to `out` (drop notices and the
    // instance prefix included), folding function_graph leaves exactly as a whole-file
    // report does even across `begin` and `end`. Returns the number of event lines.
    // `rowEnds`, when given, gets where each row's text ends in `out` (a folded exit's text is
    // empty).
    size_t dumpRows(size_t begin, size_t end, std::string& out, std::vector<size_t>* rowEnds = nullptr);

    // One event's report line, and its text alone, for views: capped (kMaxViewText,
    // kViewIndentLimit); function_graph entries look ahead in their own CPU only (what a
    // table row can know).
    void line(EventRef e, std::string& out);
    void info(EventRef e, std::string& out);
    void latency(EventRef e, std::string& out);
    // The raw record, valid until the next call on this worker.
    bool record(EventRef e, const uint8_t** data, int* size) { return reader(e.stream).read(e.index, data, size); }

    // The registrations a whole-file print makes, for pids the file's saved comms lack, in row
    // order. Workers that start mid-file replay those before their first row (applyComms).
    std::vector<CommRegistration> commRegistrations();
    // Registers, in order, the entries of `all` whose row is before `row` not yet applied.
    void applyComms(const std::vector<CommRegistration>& all, size_t row);

    tep_handle* tep() const { return m_tep; }
    const std::string& comm(int32_t pid);
    tep_event* event(uint16_t type);

private:
    // Reads `e` and runs `print(data, size)` with the single-event look-ahead in place.
    template <typename Print>
    void printOne(EventRef e, std::string& out, Print print);

    class BufferPeek;
    class StreamPeek;
    explicit ReportWorker(const Trace& trace) : m_trace(trace) {}

    StreamReader& reader(StreamId s);
    StreamReader& peekReader(StreamId s);
    bool foldedAcrossBoundary(size_t begin, EventRef e, uint16_t buffer);
    void appendLine(EventRef e, const uint8_t* data, int size, std::string& out);
    void appendInfo(EventRef e, const uint8_t* data, int size, std::string& out);

    const Trace& m_trace;
    const EventStore* m_store = nullptr;
    std::unique_ptr<TepHandle> m_ownTep;
    std::unique_ptr<FuncGraphContext> m_ownContext;
    tep_handle* m_tep = nullptr;
    FuncGraphContext* m_context = nullptr;
    trace_seq m_seq;
    bool m_usecs = true;
    int m_entryType = -1, m_exitType = -1; // function_graph entry and exit, -1 when absent
    std::vector<std::unique_ptr<StreamReader>> m_readers, m_peekReaders;
    std::vector<tep_event*> m_events;                     // by type id; kUnset until looked up
    std::vector<std::pair<int32_t, std::string>> m_comms; // small direct-mapped cache
    std::vector<std::string> m_prefixes;                  // instance prefix per buffer ("" without instances)
    size_t m_commsApplied = 0;
    std::vector<std::unique_ptr<SimplePrint>> m_simple; // by type, once tried
    std::vector<bool> m_simpleTried;
    std::vector<std::unique_ptr<RecordCheck>> m_checks; // by type, with m_simple
    std::vector<std::unique_ptr<PrintCheck>> m_printChecks; // by type, with m_simple
    // Latency text by (common_flags, common_preempt_count), when nothing else feeds it.
    bool m_latencyMemo = false;
    std::vector<std::string> m_latencies;
    std::vector<bool> m_latencyKnown;
};

} // namespace ringside
