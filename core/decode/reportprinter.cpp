// SPDX-License-Identifier: GPL-2.0-or-later
#include "decode/reportprinter.h"

#include "decode/recordpeek.h"
#include "decode/teprecord.h"
#include "trace.h"

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include <algorithm>
#include <cstring>
#include <unordered_set>

namespace ringside {

namespace {

// The look-ahead of a full dump: the next record of the same buffer in merged order that
// has not been folded into a leaf already.
class DumpPeek : public RecordPeek {
public:
    explicit DumpPeek(const EventStore& store) : m_store(store) {}

    void setCurrent(const MergedOrder::Cursor& cursor) { m_current = &cursor; }
    bool consumed(EventRef e)
    {
        auto it = m_consumed.find(EventStore::key(e));
        if (it == m_consumed.end()) return false;
        m_consumed.erase(it);
        return true;
    }

    bool peekNext(RawRecord& out) override
    {
        const uint16_t buffer = m_store.stream(m_current->event().stream).buffer;
        MergedOrder::Cursor cursor = *m_current;
        for (cursor.next(); !cursor.atEnd(); cursor.next()) {
            EventRef e = cursor.event();
            if (m_store.stream(e.stream).buffer != buffer) continue;
            if (m_consumed.count(EventStore::key(e))) continue;
            std::string reason;
            m_candidate = EventStore::key(e);
            return m_store.readRecord(e, out, &reason);
        }
        return false;
    }
    void consumeNext() override { m_consumed.insert(m_candidate); }

private:
    const EventStore& m_store;
    const MergedOrder::Cursor* m_current = nullptr;
    uint64_t m_candidate = 0;
    std::unordered_set<uint64_t> m_consumed;
};

// Looks ahead within the event's own CPU: enough to fold leaves outside a full dump.
class StreamPeek : public RecordPeek {
public:
    StreamPeek(const EventStore& store, EventRef current) : m_store(store), m_current(current) {}
    bool peekNext(RawRecord& out) override
    {
        EventRef next{m_current.stream, m_current.index + 1};
        if (next.index >= m_store.stream(next.stream).columns.size()) return false;
        std::string reason;
        return m_store.readRecord(next, out, &reason);
    }
    void consumeNext() override {}

private:
    const EventStore& m_store;
    EventRef m_current;
};

class Seq {
public:
    Seq() { trace_seq_init(&s); }
    ~Seq() { trace_seq_destroy(&s); }
    trace_seq s;
};

void printEventLine(const Trace& trace, EventRef e, const RawRecord& raw, trace_seq* s)
{
    tep_handle* tep = trace.file().tep();
    tep_record record = toTepRecord(trace.store(), e, raw);

    tep_print_event(tep, s, &record, "%16s-%-5d [%03d]", TEP_PRINT_COMM, TEP_PRINT_PID,
                    TEP_PRINT_CPU);
    tep_print_event(tep, s, &record, trace.file().info().timesInUsecs ? " %6.1000d:" : "%12d:",
                    TEP_PRINT_TIME);
    tep_event* event = tep_find_event_by_record(tep, &record);
    const char* name = event ? event->name : "(NULL)";
    trace_seq_printf(s, " %s: ", name);
    const int len = static_cast<int>(std::strlen(name));
    if (len < 20) trace_seq_printf(s, "%.*s", 20 - len, "                    ");
    tep_print_event(tep, s, &record, "%s", TEP_PRINT_INFO);
    if (s->len && s->buffer[s->len - 1] == '\n') s->len--;
}

} // namespace

ReportPrinter::ReportPrinter(const Trace& trace) : m_trace(trace) {}

std::string ReportPrinter::line(EventRef e)
{
    const EventStore& store = m_trace.store();
    RawRecord raw;
    std::string reason;
    if (!store.readRecord(e, raw, &reason)) return "[unreadable record: " + reason + "]";
    StreamPeek peek(store, e);
    FuncGraphContext& context = m_trace.funcGraphContext();
    context.peek = &peek;
    Seq seq;
    printEventLine(m_trace, e, raw, &seq.s);
    context.peek = nullptr;
    trace_seq_terminate(&seq.s);
    return std::string(seq.s.buffer, seq.s.len);
}

std::string ReportPrinter::info(EventRef e)
{
    const EventStore& store = m_trace.store();
    RawRecord raw;
    std::string reason;
    if (!store.readRecord(e, raw, &reason)) return "[unreadable record: " + reason + "]";
    tep_record record = toTepRecord(store, e, raw);
    StreamPeek peek(store, e);
    FuncGraphContext& context = m_trace.funcGraphContext();
    context.peek = &peek;
    Seq seq;
    tep_print_event(m_trace.file().tep(), &seq.s, &record, "%s", TEP_PRINT_INFO);
    context.peek = nullptr;
    trace_seq_terminate(&seq.s);
    std::string text(seq.s.buffer, seq.s.len);
    while (!text.empty() && text.back() == '\n') text.pop_back();
    return text;
}

size_t ReportPrinter::dump(FILE* out)
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

    // With instances, every line starts with the buffer name (blank for the top buffer).
    size_t nameWidth = 0;
    bool prefixed = false;
    for (const auto& b : store.buffers()) {
        if (b.name.empty()) continue;
        prefixed = true;
        nameWidth = std::max(nameWidth, b.name.size());
    }

    DumpPeek peek(store);
    FuncGraphContext& context = m_trace.funcGraphContext();
    context.peek = &peek;
    Seq seq;
    RawRecord raw;
    size_t lines = 0;
    for (MergedOrder::Cursor cursor(store.order(), 0); !cursor.atEnd(); cursor.next()) {
        const EventRef e = cursor.event();
        if (peek.consumed(e)) continue;
        peek.setCurrent(cursor);
        const Stream& stream = store.stream(e.stream);
        if (prefixed) {
            const std::string& name = store.buffers()[stream.buffer].name;
            if (name.empty()) std::fprintf(out, "%*s  ", static_cast<int>(nameWidth), "");
            else std::fprintf(out, "%*s: ", static_cast<int>(nameWidth), name.c_str());
        }
        trace_seq_reset(&seq.s);
        const int64_t lost = stream.columns.lostBefore(e.index);
        if (lost > 0) trace_seq_printf(&seq.s, "CPU:%d [%lld EVENTS DROPPED]\n", stream.cpu, static_cast<long long>(lost));
        else if (lost < 0) trace_seq_printf(&seq.s, "CPU:%d [EVENTS DROPPED]\n", stream.cpu);
        std::string reason;
        if (!store.readRecord(e, raw, &reason)) {
            trace_seq_printf(&seq.s, "[unreadable record: %s]", reason.c_str());
        } else {
            printEventLine(m_trace, e, raw, &seq.s);
        }
        std::fwrite(seq.s.buffer, 1, seq.s.len, out);
        std::fputc('\n', out);
        ++lines;
    }
    context.peek = nullptr;
    return lines;
}

} // namespace ringside
