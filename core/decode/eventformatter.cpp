// SPDX-License-Identifier: GPL-2.0-or-later
#include "decode/eventformatter.h"

#include "decode/recordcheck.h"
#include "decode/reportworker.h"
#include "decode/teprecord.h"
#include "trace.h"
#include "util/bytereader.h"

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include <cinttypes>
#include <cstdio>

namespace ringside {

namespace {

std::string seqText(trace_seq& s)
{
    trace_seq_terminate(&s);
    std::string text(s.buffer, s.len);
    while (!text.empty() && text.back() == '\n') text.pop_back();
    return text;
}

std::string fieldType(const tep_format_field* f)
{
    std::string type = f->type ? f->type : "";
    return type;
}

} // namespace

EventFormatter::EventFormatter(const Trace& trace) : m_trace(trace) {}

EventFormatter::~EventFormatter() = default;

ReportWorker& EventFormatter::worker()
{
    if (!m_worker) m_worker = ReportWorker::create(m_trace, false);
    return *m_worker;
}

std::string EventFormatter::eventName(uint16_t type) const
{
    const TepAccess tep = m_trace.tep();
    tep_event* event = tep_find_event(tep, type);
    return event ? event->name : "unknown type " + std::to_string(type);
}

std::string EventFormatter::systemName(uint16_t type) const
{
    const TepAccess tep = m_trace.tep();
    tep_event* event = tep_find_event(tep, type);
    return event && event->system ? event->system : "";
}

std::string EventFormatter::comm(int32_t pid) const
{
    const TepAccess tep = m_trace.tep();
    const char* name = tep_data_comm_from_pid(tep, pid);
    return name ? name : "<...>";
}

std::string EventFormatter::info(EventRef e)
{
    const TepAccess tep = m_trace.tep();
    std::string text;
    worker().info(e, text);
    return text;
}

std::string EventFormatter::latency(EventRef e)
{
    const TepAccess tep = m_trace.tep();
    std::string text;
    worker().latency(e, text);
    return text;
}

std::string EventFormatter::reportLine(EventRef e)
{
    const TepAccess tep = m_trace.tep();
    std::string text;
    worker().line(e, text);
    return text;
}

std::vector<FieldValue> EventFormatter::fields(EventRef e)
{
    const TepAccess tep = m_trace.tep();
    std::vector<FieldValue> out;
    const uint8_t* data = nullptr;
    int size = 0;
    if (!worker().record(e, &data, &size)) return out;
    RawRecord raw;
    raw.data = data;
    raw.size = size;
    tep_record record = toTepRecord(m_trace.store(), e, raw);
    tep_event* event = tep_find_event_by_record(tep, &record);
    if (!event) return out;
    const bool bigEndian = tep_is_file_bigendian(tep);
    auto add = [&](tep_format_field* f, bool common) {
        FieldValue v;
        v.name = f->name;
        v.type = fieldType(f);
        v.common = common;
        if (!RecordCheck::fieldFits(f, static_cast<const uint8_t*>(record.data), record.size, bigEndian)) {
            v.value = "[outside the record: damaged]";
        } else if (f->flags & TEP_FIELD_IS_STRING) {
            trace_seq s;
            trace_seq_init(&s);
            tep_print_field_content(&s, record.data, record.size, f);
            v.value = seqText(s);
            trace_seq_destroy(&s);
        } else if ((f->flags & TEP_FIELD_IS_ARRAY) && !(f->flags & TEP_FIELD_IS_DYNAMIC) && f->arraylen > 0 &&
                   (f->elementsize == 2 || f->elementsize == 4 || f->elementsize == 8) &&
                   f->size == int(f->arraylen * unsigned(f->elementsize))) {
            // Numbers (raw_syscalls' args, unsigned long[6]): each element in hex, as the
            // event's print format shows them, not the bytes libtraceevent prints for an array.
            const auto* at = static_cast<const uint8_t*>(record.data) + f->offset;
            char text[24];
            for (unsigned k = 0; k < f->arraylen; ++k) {
                const uint64_t element = ByteReader::decode(at + k * unsigned(f->elementsize), f->elementsize, bigEndian);
                std::snprintf(text, sizeof text, "%s0x%" PRIx64, k ? ", " : "", element);
                v.value += text;
            }
        } else if ((f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) || f->size > 8 || f->size <= 0) {
            trace_seq s;
            trace_seq_init(&s);
            tep_print_field_content(&s, record.data, record.size, f);
            v.value = seqText(s);
            trace_seq_destroy(&s);
        } else {
            unsigned long long raw = 0;
            if (tep_read_number_field(f, record.data, &raw) == 0) {
                char text[64];
                if (f->flags & TEP_FIELD_IS_SIGNED) {
                    long long sv = static_cast<long long>(raw);
                    const int bits = f->size * 8;
                    if (bits < 64 && (raw & (1ull << (bits - 1)))) sv = static_cast<long long>(raw | (~0ull << bits));
                    std::snprintf(text, sizeof text, "%lld", sv);
                } else {
                    std::snprintf(text, sizeof text, "%llu", raw);
                }
                v.value = text;
                std::snprintf(text, sizeof text, "0x%llx", raw);
                v.hex = text;
                if (f->size == tep_get_long_size(tep) && raw > 0xffff) {
                    const char* fn = tep_find_function(tep, raw);
                    if (fn) {
                        const unsigned long long start = tep_find_function_address(tep, raw);
                        std::snprintf(text, sizeof text, "+0x%llx", raw - start);
                        v.symbol = std::string(fn) + (raw != start ? text : "");
                    }
                }
            }
        }
        capViewText(v.value);
        out.push_back(std::move(v));
    };
    for (tep_format_field* f = event->format.common_fields; f; f = f->next) add(f, true);
    for (tep_format_field* f = event->format.fields; f; f = f->next) add(f, false);
    return out;
}

std::string EventFormatter::formatText(uint16_t type) const
{
    const TepAccess tep = m_trace.tep();
    tep_event* event = tep_find_event(tep, type);
    if (!event) return {};
    std::string text = "name: " + std::string(event->name) + "\nID: " + std::to_string(event->id) + "\nformat:\n";
    auto list = [&](tep_format_field* f) {
        for (; f; f = f->next)
            text += "\tfield:" + fieldType(f) + " " + f->name + ";\toffset:" + std::to_string(f->offset) +
                    ";\tsize:" + std::to_string(f->size) +
                    ";\tsigned:" + ((f->flags & TEP_FIELD_IS_SIGNED) ? "1" : "0") + ";\n";
    };
    list(event->format.common_fields);
    text += "\n";
    list(event->format.fields);
    if (event->print_fmt.format) text += "\nprint fmt: \"" + std::string(event->print_fmt.format) + "\"\n";
    return text;
}

} // namespace ringside
