// SPDX-License-Identifier: GPL-2.0-or-later
#include "sql/sqlcontext.h"

#include "calls/callcontext.h"
#include "decode/recordcheck.h"
#include "trace.h"
#include "util/bytereader.h"

#include <traceevent/event-parse.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace ringside::sql {

SqlContext::SqlContext(const Trace& trace, std::unique_ptr<ReportWorker> decoder, std::atomic<uint64_t>& rowsRead)
    : m_trace(trace), m_store(trace.store()), m_decoder(std::move(decoder)), m_rowsRead(rowsRead)
{
    m_bigEndian = tep_is_file_bigendian(m_decoder->tep());
}

const std::vector<tep_format_field*>& SqlContext::fieldsOf(uint16_t type)
{
    auto [it, added] = m_fields.try_emplace(type);
    if (added)
        if (tep_event* event = m_decoder->event(type))
            for (tep_format_field* f = event->format.fields; f; f = f->next) it->second.push_back(f);
    return it->second;
}

tep_format_field* SqlContext::field(uint16_t type, std::string_view name)
{
    tep_event* event = m_decoder->event(type);
    if (!event) return nullptr;
    for (tep_format_field* f = event->format.common_fields; f; f = f->next)
        if (name == f->name) return f;
    for (tep_format_field* f : fieldsOf(type))
        if (name == f->name) return f;
    return nullptr;
}

RecordingMark SqlContext::mark() const
{
    return {m_store.eventCount(), m_trace.taskIndex().size(), m_trace.analysisVersion()};
}

std::optional<uint16_t> SqlContext::typeNamed(std::string_view system, std::string_view name)
{
    const size_t types = m_store.eventTypeCounts().size();
    for (size_t type = 0; type < types; ++type) {
        const tep_event* event = m_decoder->event(uint16_t(type));
        if (event && event->name && name == event->name && (!event->system || system == event->system))
            return uint16_t(type);
    }
    return std::nullopt;
}

std::optional<int64_t> SqlContext::integerField(EventRef e, const tep_format_field* f)
{
    if (!f) return std::nullopt;
    ValueCell cell;
    writeField(e, f, cell);
    if (cell.value.kind != Value::Kind::Integer) return std::nullopt;
    return cell.value.integer;
}

void SqlContext::writeField(EventRef e, const tep_format_field* f, Cell& out)
{
    const uint8_t* data = nullptr;
    int size = 0;
    if (!m_decoder->record(e, &data, &size) || !RecordCheck::fieldFits(f, data, size, m_bigEndian)) return out.null();
    const unsigned flags = f->flags;
    if ((flags & TEP_FIELD_IS_STRING) && !(flags & TEP_FIELD_IS_DYNAMIC) && f->size > 0) {
        // A char array in the record (a comm): up to its first NUL.
        const char* text = reinterpret_cast<const char*>(data + f->offset);
        return out.text(std::string_view(text, strnlen(text, size_t(f->size))));
    }
    const bool numberArray = (flags & TEP_FIELD_IS_ARRAY) && !(flags & TEP_FIELD_IS_DYNAMIC) && f->arraylen > 0 &&
                             (f->elementsize == 2 || f->elementsize == 4 || f->elementsize == 8) &&
                             f->size == int(f->arraylen * unsigned(f->elementsize));
    if (numberArray) {
        // raw_syscalls' args: the elements in hex, as the event's print format shows them.
        m_text.clear();
        char text[24];
        for (unsigned k = 0; k < f->arraylen; ++k) {
            const uint64_t element =
                ByteReader::decode(data + f->offset + k * unsigned(f->elementsize), f->elementsize, m_bigEndian);
            std::snprintf(text, sizeof text, "%s0x%" PRIx64, k ? ", " : "", element);
            m_text += text;
        }
        return out.text(m_text);
    }
    if ((flags & (TEP_FIELD_IS_STRING | TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) || f->size > 8 || f->size <= 0) {
        trace_seq s;
        trace_seq_init(&s);
        tep_print_field_content(&s, const_cast<uint8_t*>(data), size, const_cast<tep_format_field*>(f));
        trace_seq_terminate(&s);
        out.text(std::string_view(s.buffer, s.len));
        trace_seq_destroy(&s);
        return;
    }
    unsigned long long raw = 0;
    if (tep_read_number_field(const_cast<tep_format_field*>(f), data, &raw) != 0) return out.null();
    if ((flags & TEP_FIELD_IS_SIGNED) && f->size < 8 && (raw & (1ull << (f->size * 8 - 1))))
        raw |= ~0ull << (f->size * 8);
    out.integer(int64_t(raw)); // an unsigned 64-bit value past INT64_MAX reads as negative, as in C
}

uint32_t TaskOfEvents::operator()(StreamId stream, int32_t pid, uint64_t ts)
{
    if (m_last.size() <= stream.value) m_last.resize(size_t(stream.value) + 1);
    Last& last = m_last[stream.value];
    if (pid != last.pid || ts < last.from || ts >= last.until) {
        const TaskIndex& tasks = m_trace.taskIndex();
        last.pid = pid;
        last.from = ts;
        last.task = tasks.taskAt(pid, ts).value;
        last.until = tasks.nextLifeAfter(pid, ts);
    }
    return last.task;
}

} // namespace ringside::sql
