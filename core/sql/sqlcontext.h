// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "decode/reportworker.h"
#include "sql/sqltable.h"
#include "store/eventstore.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

struct tep_format_field;

namespace ringside {
class AnalysisTables;
class Trace;
}

namespace ringside::sql {

// Rows a cursor reads are added to the shared count this many at a time.
inline constexpr uint64_t kRowsCountedEvery = 4096;

// How far the recording had come (a capture's grows, its analyses move on): what an index a
// table makes on first use was made from, made again once the recording is past it.
struct RecordingMark {
    size_t events = 0, tasks = 0;
    uint64_t analyses = 0; // Trace::analysisVersion()
    bool operator==(const RecordingMark&) const = default;
};

// What the tables of one RecordingSql share: the trace, a field decoder with a tep handle of
// its own (queries never take the trace's, which the views use), and the count of rows read.
// One thread (the one running queries) uses it.
class SqlContext {
public:
    SqlContext(const Trace& trace, std::unique_ptr<ReportWorker> decoder, std::atomic<uint64_t>& rowsRead);

    const Trace& trace() const { return m_trace; }
    const EventStore& store() const { return m_store; }
    ReportWorker& decoder() { return *m_decoder; }
    void countRows(uint64_t rows) { m_rowsRead.fetch_add(rows, std::memory_order_relaxed); }
    RecordingMark mark() const;
    // Track tables made outside the analyses (RecordingSql::setExtraTables).
    void setExtraTables(std::vector<std::shared_ptr<const AnalysisTables>> tables)
    {
        m_extraTables = std::move(tables);
        ++m_extraVersion;
    }
    const std::vector<std::shared_ptr<const AnalysisTables>>& extraTables() const { return m_extraTables; }
    uint64_t extraVersion() const { return m_extraVersion; }

    // The fields of an event type after the common ones, as libtraceevent parsed its format.
    const std::vector<tep_format_field*>& fieldsOf(uint16_t type);
    // Any field of the type by name (common ones too), or null.
    tep_format_field* field(uint16_t type, std::string_view name);
    // The store's type of event `name` of `system` (a format the recording has), if any.
    std::optional<uint16_t> typeNamed(std::string_view system, std::string_view name);
    // The value of a number field of `e`: none when there is no field, the record cannot be
    // read or the field is no number.
    std::optional<int64_t> integerField(EventRef e, const tep_format_field* field);
    // The value of `field` in event `e`'s record: a number, a text, or null when the record
    // cannot be read or the field lies outside it.
    void writeField(EventRef e, const tep_format_field* field, Cell& out);

private:
    const Trace& m_trace;
    const EventStore& m_store;
    std::unique_ptr<ReportWorker> m_decoder;
    std::atomic<uint64_t>& m_rowsRead;
    std::unordered_map<uint16_t, std::vector<tep_format_field*>> m_fields;
    std::vector<std::shared_ptr<const AnalysisTables>> m_extraTables;
    uint64_t m_extraVersion = 0;
    bool m_bigEndian = false;
    std::string m_text;
};

// The task (TaskIndex id) of the events of one stream read in time order: one lookup per life
// of a pid, not per event.
class TaskOfEvents {
public:
    explicit TaskOfEvents(const Trace& trace) : m_trace(trace) {}
    uint32_t operator()(StreamId stream, int32_t pid, uint64_t ts);

private:
    struct Last {
        int32_t pid = -1;
        uint64_t from = 0, until = 0;
        uint32_t task = 0;
    };
    const Trace& m_trace;
    std::vector<Last> m_last; // per stream
};

} // namespace ringside::sql
