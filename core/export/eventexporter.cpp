// SPDX-License-Identifier: GPL-2.0-or-later
#include "export/eventexporter.h"

#include "decode/recordcheck.h"
#include "decode/reportworker.h"
#include "export/exporttext.h"
#include "export/perfettotracks.h"
#include "trace.h"
#include "util/bytereader.h"
#include "util/orderedpieces.h"

#include <traceevent/event-parse.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <thread>
#include <unordered_map>

namespace ringside {

namespace {

constexpr size_t kExportPieceRows = 16384;

const std::vector<std::string> kFixed = {"time", "timestamp", "cpu", "task", "common_pid", "event", "latency", "info"};

// How one event type's fields are written: each field with its column, in column order.
struct TypePlan {
    enum class Kind : uint8_t { Number, Text, Numbers, Other };
    struct Field {
        tep_format_field* format = nullptr;
        size_t column = 0;
        Kind kind = Kind::Other;
    };
    bool known = false;
    bool isSlice = false; // Perfetto: drawn as slices (context switches, calls), not as instants
    std::string name, system;
    std::vector<Field> fields;
};

// The field columns: each distinct field name of the events written, in type order.
struct FieldColumns {
    std::vector<std::string> names;
    std::unordered_map<std::string, size_t> index;

    void add(const char* name)
    {
        if (index.try_emplace(name, names.size()).second) names.push_back(name);
    }
    std::string header(size_t i) const
    {
        const bool clashes = std::find(kFixed.begin(), kFixed.end(), names[i]) != kFixed.end() || names[i] == "buffer";
        return clashes ? "field:" + names[i] : names[i];
    }
};

std::vector<tep_format_field*> eventFields(tep_event* event)
{
    std::vector<tep_format_field*> fields;
    if (event)
        for (tep_format_field* f = event->format.fields; f; f = f->next) fields.push_back(f);
    return fields;
}

// One thread's share: a report worker with its own tep handle, and its plans by type.
class ExportWorker {
public:
    ExportWorker(const Trace& trace, std::unique_ptr<ReportWorker> report, const FieldColumns& columns,
                 const ExportOptions& options)
        : m_trace(trace), m_store(trace.store()), m_report(std::move(report)), m_columns(columns), m_options(options),
          m_severalBuffers(trace.store().buffers().size() > 1), m_bigEndian(tep_is_file_bigendian(m_report->tep())),
          m_nanoseconds(trace.file().info().timesInUsecs), m_plans(65536)
    {
        trace_seq_init(&m_seq);
    }
    ~ExportWorker() { trace_seq_destroy(&m_seq); }
    ReportWorker& report() { return *m_report; }

    // The rows of [begin, end) the options choose. `comms`: the names the report registers,
    // by row, applied up to each row written: a task is named as the whole report names it
    // there, though the events that named it (a fork's wakeup, a switch) are not written.
    size_t writeRows(size_t begin, size_t end, const std::vector<CommRegistration>& comms, std::string& out)
    {
        size_t written = 0;
        for (MergedOrder::Cursor cursor(m_store.order(), begin); !cursor.atEnd() && cursor.row() < end; cursor.next()) {
            if (m_options.rows && !m_options.rows->contains(cursor.row())) continue;
            m_report->applyComms(comms, cursor.row());
            written += writeRow(cursor.event(), out);
        }
        return written;
    }

private:
    const TypePlan& plan(uint16_t type)
    {
        TypePlan& p = m_plans[type];
        if (p.known) return p;
        p.known = true;
        tep_event* event = m_report->event(type);
        p.name = event && event->name ? event->name : "unknown event " + std::to_string(type);
        p.system = event && event->system ? event->system : "";
        if (m_options.format == ExportFormat::Perfetto)
            p.isSlice =
                (p.name == "sched_switch" && m_trace.runningTasks().available()) ||
                ((p.name == "funcgraph_entry" || p.name == "funcgraph_exit") && m_trace.callSlices().available());
        for (tep_format_field* f : eventFields(event)) {
            auto column = m_columns.index.find(f->name);
            if (column == m_columns.index.end()) continue;
            TypePlan::Kind kind = TypePlan::Kind::Other;
            if (f->flags & TEP_FIELD_IS_STRING)
                kind = TypePlan::Kind::Text;
            else if (!(f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) &&
                     (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8))
                kind = TypePlan::Kind::Number;
            else if ((f->flags & TEP_FIELD_IS_ARRAY) &&
                     (f->elementsize == 1 || f->elementsize == 2 || f->elementsize == 4 || f->elementsize == 8))
                kind = TypePlan::Kind::Numbers;
            p.fields.push_back({f, column->second, kind});
        }
        std::sort(p.fields.begin(), p.fields.end(),
                  [](const TypePlan::Field& a, const TypePlan::Field& b) { return a.column < b.column; });
        return p;
    }

    // In JSON, an integer beyond 2^53 as a string of its digits (appendJsonInteger).
    void appendValue(std::string& out, const uint8_t* at, int bytes, bool isSigned)
    {
        uint64_t raw = ByteReader::decode(at, bytes, m_bigEndian);
        if (isSigned && bytes < 8 && (raw >> (bytes * 8 - 1)) & 1) raw |= ~uint64_t(0) << (bytes * 8);
        const bool json = m_options.format != ExportFormat::Csv;
        if (isSigned)
            json ? appendJsonInteger(out, int64_t(raw)) : appendNumber(out, int64_t(raw));
        else
            json ? appendJsonInteger(out, raw) : appendNumber(out, raw);
    }

    // The field's value as text; `isJson`: it is a JSON number or array as it stands.
    std::string_view fieldText(const TypePlan::Field& field, const uint8_t* data, int size, bool& isJson)
    {
        isJson = false;
        tep_format_field* f = field.format;
        if (!RecordCheck::fieldFits(f, data, size, m_bigEndian)) return "[damaged: outside the record]";
        const bool isSigned = f->flags & TEP_FIELD_IS_SIGNED;
        if (field.kind == TypePlan::Kind::Number) {
            m_number.clear();
            appendValue(m_number, data + f->offset, f->size, isSigned);
            isJson = true;
            return m_number;
        }
        if (field.kind == TypePlan::Kind::Numbers) {
            // An array of numbers (a system call's arguments, a CPU mask) as [a,b,...].
            int start = f->offset, bytes = f->size;
            if (f->flags & TEP_FIELD_IS_DYNAMIC) {
                const uint32_t where = uint32_t(ByteReader::decode(data + f->offset, f->size, m_bigEndian));
                start = int(where & 0xffff) + ((f->flags & TEP_FIELD_IS_RELATIVE) ? f->offset + f->size : 0);
                bytes = f->size == 4 ? int(where >> 16) : 0;
            }
            bytes = std::clamp(std::min(bytes, size - start), 0, int(kMaxViewText / 24));
            m_number.assign(1, '[');
            for (int at = 0; at + int(f->elementsize) <= bytes; at += int(f->elementsize)) {
                if (at) m_number += ',';
                appendValue(m_number, data + start + at, int(f->elementsize), isSigned);
            }
            m_number += ']';
            isJson = true;
            return m_number;
        }
        if (field.kind == TypePlan::Kind::Text && !(f->flags & TEP_FIELD_IS_DYNAMIC)) {
            const auto* text = reinterpret_cast<const char*>(data + f->offset);
            const int available = std::min(f->size, size - f->offset);
            return {text, strnlen(text, size_t(std::max(available, 0)))};
        }
        trace_seq_reset(&m_seq);
        tep_print_field_content(&m_seq, const_cast<uint8_t*>(data), size, f);
        trace_seq_terminate(&m_seq);
        m_other.assign(m_seq.buffer, m_seq.len);
        capViewText(m_other);
        return m_other;
    }

    // Seconds when the clock counts nanoseconds; a counter clock's ticks as they are.
    void appendTime(std::string& out, uint64_t timestamp) const
    {
        if (m_nanoseconds)
            appendSeconds(out, timestamp);
        else if (m_options.format == ExportFormat::Csv)
            appendNumber(out, timestamp);
        else
            appendJsonInteger(out, timestamp); // a counter clock's ticks pass 2^53 in weeks
    }

    // Returns whether it wrote the event (Perfetto draws some as slices instead).
    bool writeRow(EventRef e, std::string& out)
    {
        const Stream& stream = m_store.stream(e.stream);
        const CpuColumns& c = stream.columns;
        const uint16_t type = c.eventType[e.index];
        const int32_t pid = c.pid[e.index];
        const TypePlan& p = plan(type);
        if (p.isSlice) return false;
        m_latency.clear();
        m_report->latency(e, m_latency);
        m_info.clear();
        m_report->info(e, m_info);
        const uint8_t* data = nullptr;
        int size = 0;
        const bool readable = m_report->record(e, &data, &size);
        if (m_options.format == ExportFormat::Perfetto) {
            writeInstant(p, c, e, stream.cpu, readable ? data : nullptr, size, out);
            return true;
        }
        const std::string& buffer = m_store.buffers()[stream.buffer].name;
        const bool csv = m_options.format == ExportFormat::Csv;

        // The fixed columns: CSV cells, or the object's first keys (the names are kFixed's).
        bool firstCell = true;
        auto key = [&](const char* name) {
            if (!firstCell) out += ',';
            firstCell = false;
            if (!csv) out += '"', out += name, out += "\":";
        };
        auto text = [&](const char* name, std::string_view value) {
            key(name);
            csv ? appendCsvCell(out, value) : appendJsonString(out, value);
        };
        if (!csv) out += '{';
        if (m_severalBuffers) text("buffer", buffer);
        key("time");
        appendTime(out, c.timestamp[e.index]);
        key("timestamp");
        csv ? appendNumber(out, c.timestamp[e.index]) : appendJsonInteger(out, c.timestamp[e.index]);
        key("cpu");
        appendNumber(out, stream.cpu);
        text("task", m_report->comm(pid));
        key("common_pid");
        appendNumber(out, pid);
        text("event", p.name);
        text("latency", m_latency);
        text("info", m_info);

        if (csv) {
            size_t next = 0; // the next field column to write
            if (readable)
                for (const TypePlan::Field& field : p.fields) {
                    out.append(field.column - next + 1, ',');
                    bool isJson = false;
                    appendCsvCell(out, fieldText(field, data, size, isJson));
                    next = field.column + 1;
                }
            out.append(m_columns.names.size() - next, ',');
            out += '\n';
            return true;
        }
        out += ",\"fields\":";
        appendJsonFields(out, p, readable ? data : nullptr, size);
        out += "}\n";
        return true;
    }

    // {"name": value, ...}: numbers as numbers, the rest as strings.
    void appendJsonFields(std::string& out, const TypePlan& p, const uint8_t* data, int size)
    {
        out += '{';
        bool first = true;
        if (data)
            for (const TypePlan::Field& field : p.fields) {
                if (!first) out += ',';
                first = false;
                appendJsonString(out, field.format->name);
                out += ':';
                bool isJson = false;
                const std::string_view text = fieldText(field, data, size, isJson);
                if (isJson)
                    out += text;
                else
                    appendJsonString(out, text);
            }
        out += '}';
    }

    // An instant event on the task's thread; the tracks before it guarantee a preceding event.
    void writeInstant(const TypePlan& p, const CpuColumns& c, EventRef e, int cpu, const uint8_t* data, int size,
                      std::string& out)
    {
        const int32_t pid = c.pid[e.index];
        out += ",\n";
        appendEventHead(out, "i", p.name, processOf(m_trace, pid), pid);
        out += ",\"s\":\"t\",\"cat\":";
        appendJsonString(out, p.system);
        out += ",\"ts\":";
        appendMicros(out, c.timestamp[e.index]);
        out += ",\"args\":{\"cpu\":";
        appendNumber(out, cpu);
        out += ",\"latency\":";
        appendJsonString(out, m_latency);
        out += ",\"info\":";
        appendJsonString(out, m_info);
        out += ",\"fields\":";
        appendJsonFields(out, p, data, size);
        out += "}}";
    }

    const Trace& m_trace;
    const EventStore& m_store;
    std::unique_ptr<ReportWorker> m_report;
    const FieldColumns& m_columns;
    const ExportOptions& m_options;
    const bool m_severalBuffers;
    const bool m_bigEndian;
    const bool m_nanoseconds;
    std::vector<TypePlan> m_plans;
    trace_seq m_seq;
    std::string m_latency, m_info, m_number, m_other;
};

// The field columns of the event types among the rows written, in type order.
FieldColumns fieldColumns(const EventStore& store, ReportWorker& worker, const RowSet* rows)
{
    std::vector<bool> present(65536, false);
    if (!rows) {
        const auto& counts = store.eventTypeCounts();
        for (size_t t = 0; t < counts.size() && t < present.size(); ++t) present[t] = counts[t] > 0;
    } else {
        for (MergedOrder::Cursor cursor(store.order(), 0); !cursor.atEnd(); cursor.next()) {
            if (!rows->contains(cursor.row())) continue;
            const EventRef e = cursor.event();
            present[store.stream(e.stream).columns.eventType[e.index]] = true;
        }
    }
    FieldColumns columns;
    for (size_t t = 0; t < present.size(); ++t)
        if (present[t])
            for (tep_format_field* f : eventFields(worker.event(uint16_t(t)))) columns.add(f->name);
    return columns;
}

} // namespace

const std::vector<std::string>& exportFixedColumns()
{
    return kFixed;
}

Result<ExportSummary> exportEvents(const Trace& trace, FILE* out, const std::string& path, const ExportOptions& options)
{
    const EventStore& store = trace.store();
    const size_t rows = store.eventCount();
    if (options.rows && options.rows->universe() != rows)
        return Error{path + ": the rows to export do not belong to this recording"};
    const size_t pieces = (rows + kExportPieceRows - 1) / kExportPieceRows;
    size_t threads = options.threads > 0 ? size_t(options.threads) : std::max(1u, std::thread::hardware_concurrency());
    threads = std::min(threads, std::max<size_t>(pieces, 1));

    std::vector<std::unique_ptr<ExportWorker>> workers;
    std::string error;
    FieldColumns columns;
    for (size_t i = 0; i < threads; ++i) {
        auto report = ReportWorker::create(trace, true, &error);
        if (!report) break;
        if (i == 0) columns = fieldColumns(store, *report, options.rows);
        workers.push_back(std::make_unique<ExportWorker>(trace, std::move(report), columns, options));
    }
    if (workers.empty()) return Error{path + ": cannot decode the recording's events: " + error};
    const std::vector<CommRegistration> comms = workers[0]->report().commRegistrations();

    ExportSummary summary;
    if (store.buffers().size() > 1) summary.columns.push_back("buffer");
    summary.columns.insert(summary.columns.end(), kFixed.begin(), kFixed.end());
    if (options.format == ExportFormat::Csv) {
        for (size_t i = 0; i < columns.names.size(); ++i) summary.columns.push_back(columns.header(i));
        std::string header;
        for (size_t i = 0; i < summary.columns.size(); ++i) {
            if (i) header += ',';
            appendCsvCell(header, summary.columns[i]);
        }
        header += '\n';
        std::fwrite(header.data(), 1, header.size(), out);
    } else if (options.format == ExportFormat::JsonLines) {
        summary.columns.push_back("fields");
    } else {
        // Its shape's version: 2 added the analyses' and plugins' tables (1 had no key).
        std::string tracks =
            "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"schema\":\"ringside.perfetto/2\",\"recording\":";
        appendJsonString(tracks, trace.file().path());
        tracks += "},\"traceEvents\":[\n";
        auto write = [&](std::string& text) {
            const bool ok = std::fwrite(text.data(), 1, text.size(), out) == text.size();
            text.clear();
            return ok && !(options.cancel && options.cancel->load());
        };
        summary.slices = writePerfettoTracks(trace, workers[0]->report(), tracks, write);
        write(tracks);
    }

    bool cancelled = false;
    summary.rows = makeInOrder(
        pieces, workers.size(),
        [&](size_t worker, size_t piece, std::string& text) {
            return workers[worker]->writeRows(piece * kExportPieceRows, std::min(rows, (piece + 1) * kExportPieceRows), comms, text);
        },
        [&](size_t piece, std::string& text, size_t) {
            if (std::fwrite(text.data(), 1, text.size(), out) != text.size()) return false;
            if (options.progress) options.progress(double(piece + 1) / double(pieces));
            cancelled = options.cancel && options.cancel->load();
            return !cancelled;
        });
    if (options.format == ExportFormat::Perfetto) std::fputs("\n]}\n", out);
    if (cancelled || (options.cancel && options.cancel->load())) return Error{path + ": export cancelled"};
    if (std::fflush(out) != 0 || std::ferror(out))
        return Error{path + ": cannot write: " + std::strerror(errno ? errno : EIO)};
    return summary;
}

} // namespace ringside
