// SPDX-License-Identifier: GPL-2.0-or-later
#include "decode/reportworker.h"

#include "decode/recordcheck.h"

#include "decode/recordpeek.h"
#include "decode/recordwalker.h"
#include "trace.h"

#include <traceevent/event-parse.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <unordered_map>

namespace ringside {

namespace {

tep_event* const kUnset = reinterpret_cast<tep_event*>(uintptr_t(1));
constexpr size_t kCommSlots = 4096;

void appendNumber(std::string& out, long long value)
{
    char text[24];
    auto end = std::to_chars(text, text + sizeof text, value).ptr;
    out.append(text, end);
}

// printf("%*llu") / printf("%0*llu") without printf: the prefix is written for every line.
void appendPadded(std::string& out, unsigned long long value, int width, char pad)
{
    char text[24];
    auto end = std::to_chars(text, text + sizeof text, value).ptr;
    const int len = static_cast<int>(end - text);
    if (len < width) out.append(static_cast<size_t>(width - len), pad);
    out.append(text, end);
}

// What libtraceevent's print_event_time writes for trace-cmd report's time formats:
// " %6.1000d" rounds to microseconds and prints "%5llu.%06llu" once the value has more than
// six digits; "%12d" prints the raw count (its 10^12 divisor overflows an int, so the
// library never splits it).
void appendTime(std::string& out, uint64_t ts, bool usecs)
{
    if (!usecs) return appendPadded(out, ts, 12, ' ');
    out += ' ';
    // trace-cmd prints seconds.micros even in the first second (libtraceevent would not).
    const unsigned long long t = (ts + 500) / 1000;
    appendPadded(out, t / 1000000ull, 5, ' ');
    out += '.';
    appendPadded(out, t % 1000000ull, 6, '0');
}

void appendSeq(std::string& out, trace_seq& s, bool stripAll)
{
    size_t len = s.len;
    if (stripAll)
        while (len && s.buffer[len - 1] == '\n') --len;
    else if (len && s.buffer[len - 1] == '\n')
        --len;
    out.append(s.buffer, len);
}

} // namespace

// The look-ahead of a dump: the next record of the same buffer in merged order (the one
// after the row being printed); folding it marks it to be skipped.
class ReportWorker::BufferPeek : public RecordPeek {
public:
    BufferPeek(ReportWorker& worker, std::vector<int64_t>& last, std::vector<uint64_t>& skip)
        : m_worker(worker), m_last(last), m_skip(skip)
    {}
    void set(size_t row, uint16_t buffer)
    {
        m_row = row;
        m_buffer = buffer;
    }

    bool peekNext(const uint8_t** data, int* size) override
    {
        const EventStore& store = *m_worker.m_store;
        const MergedOrder& order = store.order();
        for (size_t row = m_row + 1; row < order.size(); ++row) {
            const StreamId s = order.streamAt(row);
            if (store.stream(s).buffer != m_buffer) continue;
            // No row of `s` lies between the current row and `row`: its next event is the one.
            const int64_t last = m_last[s.value];
            const EventRef next = last >= 0 ? EventRef{s, static_cast<uint32_t>(last + 1)} : store.eventAt(row);
            m_candidate = EventStore::key(next);
            return m_worker.peekReader(s).read(next.index, data, size);
        }
        return false;
    }
    void consumeNext() override { m_skip[m_buffer] = m_candidate; }

private:
    ReportWorker& m_worker;
    std::vector<int64_t>& m_last;
    std::vector<uint64_t>& m_skip;
    size_t m_row = 0;
    uint16_t m_buffer = 0;
    uint64_t m_candidate = 0;
};

// The look-ahead of a single event: the next event of its own CPU.
class ReportWorker::StreamPeek : public RecordPeek {
public:
    StreamPeek(ReportWorker& worker, EventRef current) : m_worker(worker), m_current(current) {}
    bool peekNext(const uint8_t** data, int* size) override
    {
        return m_worker.peekReader(m_current.stream).read(m_current.index + 1, data, size);
    }
    void consumeNext() override {}

private:
    ReportWorker& m_worker;
    EventRef m_current;
};

std::unique_ptr<ReportWorker> ReportWorker::create(const Trace& trace, bool ownHandle, std::string* error,
                                                   bool pluginFunctions)
{
    std::unique_ptr<ReportWorker> w(new ReportWorker(trace));
    w->m_store = &trace.store();
    if (ownHandle) {
        w->m_ownContext = std::make_unique<FuncGraphContext>();
        FuncGraphContext* context = w->m_ownContext.get();
        auto tep = trace.newHandle([context](tep_handle* t) { registerFuncGraphHandlers(t, context); });
        if (!tep) {
            if (error) *error = tep.error().message;
            return nullptr;
        }
        w->m_ownTep = std::move(tep.value());
        w->m_tep = w->m_ownTep->get();
        if (!pluginFunctions) useOwnFunctionHandler(w->m_tep);
        w->m_context = context;
    } else {
        w->m_tep = trace.sharedHandle(); // used under the trace's lock, which the caller holds
        w->m_context = &trace.funcGraphContext();
    }
    trace_seq_init(&w->m_seq);
    // Builds the sorted comm table now (pid 0 would not: it is "<idle>" without a lookup).
    // Until then libtraceevent appends registrations to a list without checking for the pid,
    // and a comm the sched_switch plugin registers could shadow the file's saved one.
    tep_data_comm_from_pid(w->m_tep, 1);
    w->m_usecs = trace.file().info().timesInUsecs;
    const EventStore& store = trace.store();
    w->m_readers.resize(store.streamCount());
    w->m_peekReaders.resize(store.streamCount());
    w->m_events.assign(65536, kUnset);
    w->m_simple.resize(65536);
    w->m_simpleTried.assign(65536, false);
    w->m_checks.resize(65536);
    w->m_printChecks.resize(65536);
    w->m_comms.assign(kCommSlots, {INT32_MIN, std::string()});
    if (tep_event* e = tep_find_event_by_name(w->m_tep, "ftrace", "funcgraph_entry")) w->m_entryType = e->id;
    if (tep_event* e = tep_find_event_by_name(w->m_tep, "ftrace", "funcgraph_exit")) w->m_exitType = e->id;

    // The latency columns come from common_flags and common_preempt_count alone unless the
    // kernel also records a lock depth or migrate-disable count.
    if (tep_event** events = tep_list_events(w->m_tep, TEP_EVENT_SORT_ID); events && events[0]) {
        w->m_latencyMemo = !tep_find_common_field(events[0], "common_lock_depth") &&
                           !tep_find_common_field(events[0], "common_migrate_disable");
        w->m_latencies.resize(w->m_latencyMemo ? 65536 : 0);
        w->m_latencyKnown.assign(w->m_latencies.size(), false);
    }

    // With instances, every line starts with the buffer name (blank for the top buffer).
    size_t width = 0;
    for (const auto& b : store.buffers()) width = std::max(width, b.name.size());
    for (const auto& b : store.buffers()) {
        std::string prefix;
        if (width > 0) {
            prefix.assign(width - b.name.size(), ' ');
            prefix += b.name;
            prefix += b.name.empty() ? "  " : ": ";
        }
        w->m_prefixes.push_back(std::move(prefix));
    }
    return w;
}

ReportWorker::~ReportWorker()
{
    trace_seq_destroy(&m_seq);
}

StreamReader& ReportWorker::reader(StreamId s)
{
    auto& r = m_readers[s.value];
    if (!r) r = std::make_unique<StreamReader>(*m_store, s);
    return *r;
}

StreamReader& ReportWorker::peekReader(StreamId s)
{
    auto& r = m_peekReaders[s.value];
    if (!r) r = std::make_unique<StreamReader>(*m_store, s);
    return *r;
}

tep_event* ReportWorker::event(uint16_t type)
{
    tep_event*& e = m_events[type];
    if (e == kUnset) e = tep_find_event(m_tep, type);
    return e;
}

// Only found names are cached: a pid without one may be registered by a later line.
const std::string& ReportWorker::comm(int32_t pid)
{
    auto& slot = m_comms[static_cast<uint32_t>(pid) % kCommSlots];
    if (slot.first != pid) {
        const char* name = tep_data_comm_from_pid(m_tep, pid);
        if (!name || std::strcmp(name, "<...>") == 0) {
            static const std::string unknown = "<...>";
            return unknown;
        }
        slot = {pid, name};
    }
    return slot.second;
}

std::vector<CommRegistration> ReportWorker::commRegistrations()
{
    struct Source {
        const char* event;
        const char* pid;
        const char* comm;
    };
    // In the order the plugin registers them within one record.
    const Source sources[] = {{"sched_switch", "prev_pid", "prev_comm"},
                              {"sched_switch", "next_pid", "next_comm"},
                              {"sched_wakeup", "pid", "comm"},
                              {"sched_wakeup_new", "pid", "comm"}};
    struct Field {
        tep_format_field* pid;
        tep_format_field* comm;
    };
    std::unordered_map<int, std::vector<Field>> byType;
    std::vector<bool> types(65536, false);
    for (const Source& src : sources) {
        tep_event* e = tep_find_event_by_name(m_tep, "sched", src.event);
        if (!e || !e->handler) continue; // printed by the format alone: nothing registered
        tep_format_field* pid = tep_find_any_field(e, src.pid);
        tep_format_field* comm = tep_find_any_field(e, src.comm);
        if (!pid || !comm) continue;
        byType[e->id].push_back({pid, comm});
        types[size_t(e->id)] = true;
    }
    if (byType.empty()) return {};

    const EventStore& store = *m_store;
    std::unordered_map<int32_t, std::pair<EventRef, std::string>> first; // per pid: earliest so far
    for (size_t s = 0; s < store.streamCount(); ++s) {
        const StreamId stream(static_cast<uint16_t>(s));
        std::unordered_map<int32_t, bool> seen; // first in this stream only
        walkRecords(store, stream, types, [&](uint32_t index, const uint8_t* data, int size) {
            const uint16_t type = store.stream(stream).columns.eventType[index];
            for (const Field& f : byType[type]) {
                unsigned long long pid = 0;
                if (f.comm->offset + f.comm->size > size || tep_read_number_field(f.pid, data, &pid) != 0) continue;
                const int32_t p = static_cast<int32_t>(pid);
                if (p == 0 || !seen.emplace(p, true).second) continue;
                const char* known = tep_data_comm_from_pid(m_tep, p);
                if (known && std::strcmp(known, "<...>") != 0) continue;
                const char* text = reinterpret_cast<const char*>(data) + f.comm->offset;
                std::string comm(text, strnlen(text, size_t(f.comm->size)));
                auto it = first.find(p);
                const EventRef e{stream, index};
                if (it == first.end())
                    first.emplace(p, std::make_pair(e, std::move(comm)));
                else if (store.rowOf(e) < store.rowOf(it->second.first))
                    it->second = {e, std::move(comm)};
            }
        });
    }
    std::vector<CommRegistration> out;
    for (auto& [pid, entry] : first) out.push_back({store.rowOf(entry.first), pid, std::move(entry.second)});
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.row < b.row; });
    return out;
}

void ReportWorker::applyComms(const std::vector<CommRegistration>& all, size_t row)
{
    for (; m_commsApplied < all.size() && all[m_commsApplied].row < row; ++m_commsApplied)
        tep_register_comm(m_tep, all[m_commsApplied].comm.c_str(), all[m_commsApplied].pid);
}

void ReportWorker::appendInfo(EventRef e, const uint8_t* data, int size, std::string& out)
{
    const Stream& stream = m_store->stream(e.stream);
    const uint16_t type = stream.columns.eventType[e.index];
    if (!m_simpleTried[type]) {
        m_simpleTried[type] = true;
        m_simple[type] = SimplePrint::compile(event(type));
        m_checks[type] = std::make_unique<RecordCheck>(event(type));
        m_printChecks[type] = std::make_unique<PrintCheck>(event(type));
    }
    if (const tep_format_field* bad = m_checks[type]->firstBadField(data, size)) {
        out += damagedRecordText(bad);
        return;
    }
    if (m_simple[type] && m_simple[type]->print(data, size, out)) return;
    if (m_printChecks[type]->mayCrash(data, size)) {
        // The fields first: the table's column shows the start of the text.
        trace_seq_reset(&m_seq);
        tep_print_fields(&m_seq, const_cast<uint8_t*>(data), size, event(type));
        const size_t start = out.size();
        appendSeq(out, m_seq, false);
        out.erase(start, out.find_first_not_of(' ', start) - start);
        out += unprintableRecordText();
        return;
    }
    tep_record record{};
    record.ts = stream.columns.timestamp[e.index];
    record.cpu = stream.cpu;
    record.data = const_cast<uint8_t*>(data);
    record.size = size;
    trace_seq_reset(&m_seq);
    tep_print_event(m_tep, &m_seq, &record, "%s", TEP_PRINT_INFO);
    appendSeq(out, m_seq, false);
}

// "%16s-%-5d [%03d]" + time + " %s: " padded to 20, then the info, as trace-cmd prints it.
void ReportWorker::appendLine(EventRef e, const uint8_t* data, int size, std::string& out)
{
    const Stream& stream = m_store->stream(e.stream);
    const CpuColumns& c = stream.columns;
    const int32_t pid = c.pid[e.index];
    const std::string& name = comm(pid);
    if (name.size() < 16) out.append(16 - name.size(), ' ');
    out += name;
    out += '-';
    const size_t before = out.size();
    appendNumber(out, pid);
    if (out.size() - before < 5) out.append(5 - (out.size() - before), ' ');
    out += " [";
    if (stream.cpu >= 0)
        appendPadded(out, static_cast<unsigned>(stream.cpu), 3, '0');
    else
        appendNumber(out, stream.cpu);
    out += ']';
    appendTime(out, c.timestamp[e.index], m_usecs);
    out += ": ";
    tep_event* ev = event(c.eventType[e.index]);
    const char* eventName = ev ? ev->name : "(NULL)";
    const size_t len = std::strlen(eventName);
    out.append(eventName, len);
    out += ": ";
    if (len < 20) out.append(20 - len, ' ');
    appendInfo(e, data, size, out);
}

bool ReportWorker::foldedAcrossBoundary(size_t begin, EventRef e, uint16_t buffer)
{
    const EventStore& store = *m_store;
    if (store.stream(e.stream).columns.eventType[e.index] != m_exitType || m_entryType < 0) return false;
    size_t row = begin;
    while (row > 0 && store.stream(store.order().streamAt(row - 1)).buffer != buffer) --row;
    if (row == 0) return false;
    const EventRef prev = store.eventAt(row - 1);
    if (store.stream(prev.stream).columns.eventType[prev.index] != m_entryType) return false;
    RawRecord entryRaw;
    std::string reason;
    const uint8_t* data = nullptr;
    int size = 0;
    if (!store.readRecord(prev, entryRaw, &reason) || !reader(e.stream).read(e.index, &data, &size)) return false;
    tep_record entry{}, next{};
    entry.data = const_cast<uint8_t*>(entryRaw.data);
    entry.size = entryRaw.size;
    next.data = const_cast<uint8_t*>(data);
    next.size = size;
    return funcGraphFolds(m_tep, &entry, &next);
}

size_t ReportWorker::dumpRows(size_t begin, size_t end, std::string& out, std::vector<size_t>* rowEnds)
{
    const EventStore& store = *m_store;
    std::vector<int64_t> last(store.streamCount(), -1);
    std::vector<uint64_t> skip(store.buffers().size() + 1, UINT64_MAX);
    std::vector<char> seen(skip.size(), 0);
    BufferPeek peek(*this, last, skip);
    m_context->peek = &peek;
    size_t lines = 0;
    std::string reason;
    for (MergedOrder::Cursor cursor(store.order(), begin); !cursor.atEnd() && cursor.row() < end; cursor.next()) {
        if (rowEnds && cursor.row() > begin) rowEnds->push_back(out.size()); // the row before ends here
        const EventRef e = cursor.event();
        last[e.stream.value] = e.index;
        const Stream& stream = store.stream(e.stream);
        const uint16_t buffer = stream.buffer;
        if (!seen[buffer]) {
            seen[buffer] = 1;
            if (m_exitType >= 0 && foldedAcrossBoundary(begin, e, buffer)) continue;
        }
        if (skip[buffer] == EventStore::key(e)) {
            skip[buffer] = UINT64_MAX;
            continue;
        }
        out += m_prefixes[buffer];
        const int64_t lost = stream.columns.lostBefore(e.index);
        if (lost != 0) {
            out += "CPU:";
            appendNumber(out, stream.cpu);
            out += " [";
            if (lost > 0) {
                appendNumber(out, lost);
                out += ' ';
            }
            out += "EVENTS DROPPED]\n";
        }
        const uint8_t* data = nullptr;
        int size = 0;
        if (!reader(e.stream).read(e.index, &data, &size, &reason)) {
            out += "[unreadable record: " + reason + "]";
        } else {
            peek.set(cursor.row(), buffer);
            appendLine(e, data, size, out);
        }
        out += '\n';
        ++lines;
    }
    if (rowEnds && end > begin) rowEnds->push_back(out.size());
    m_context->peek = nullptr;
    return lines;
}

template <typename Print>
void ReportWorker::printOne(EventRef e, std::string& out, Print print)
{
    const uint8_t* data = nullptr;
    int size = 0;
    std::string reason;
    if (!reader(e.stream).read(e.index, &data, &size, &reason)) {
        out += "[unreadable record: " + reason + "]";
        return;
    }
    // A single event looks ahead in its own CPU only, for function_graph folding.
    StreamPeek peek(*this, e);
    m_context->peek = &peek;
    m_context->indentLimit = kViewIndentLimit;
    const size_t start = out.size();
    print(data, size);
    m_context->indentLimit = kDumpIndentLimit;
    m_context->peek = nullptr;
    capViewText(out, start);
}

void capViewText(std::string& text, size_t start)
{
    if (text.size() - start <= kMaxViewText) return;
    size_t cut = start + kMaxViewText;
    while (cut > start && (static_cast<unsigned char>(text[cut]) & 0xc0) == 0x80) --cut; // whole UTF-8 characters
    const size_t dropped = text.size() - cut;
    text.resize(cut);
    text += " … [" + std::to_string(dropped) + " more bytes not shown]";
}

void ReportWorker::line(EventRef e, std::string& out)
{
    printOne(e, out, [&](const uint8_t* data, int size) { appendLine(e, data, size, out); });
}

void ReportWorker::info(EventRef e, std::string& out)
{
    printOne(e, out, [&](const uint8_t* data, int size) {
        const size_t start = out.size();
        appendInfo(e, data, size, out);
        while (out.size() > start && out.back() == '\n') out.pop_back();
    });
}

void ReportWorker::latency(EventRef e, std::string& out)
{
    const CpuColumns& c = m_store->stream(e.stream).columns;
    const size_t key = m_latencyMemo ? (size_t(c.flags[e.index]) << 8) | c.preemptCount[e.index] : 0;
    if (m_latencyMemo && m_latencyKnown[key]) {
        out += m_latencies[key];
        return;
    }
    const uint8_t* data = nullptr;
    int size = 0;
    std::string reason;
    if (!reader(e.stream).read(e.index, &data, &size, &reason)) {
        out += "[unreadable]";
        return;
    }
    const Stream& stream = m_store->stream(e.stream);
    tep_record record{};
    record.ts = stream.columns.timestamp[e.index];
    record.cpu = stream.cpu;
    record.data = const_cast<uint8_t*>(data);
    record.size = size;
    trace_seq_reset(&m_seq);
    tep_print_event(m_tep, &m_seq, &record, "%s", TEP_PRINT_LATENCY);
    const size_t start = out.size();
    appendSeq(out, m_seq, true);
    if (m_latencyMemo) {
        m_latencies[key] = out.substr(start);
        m_latencyKnown[key] = true;
    }
}

} // namespace ringside
