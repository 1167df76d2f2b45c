// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "latency/pairspec.h"

#include "sql/sqlmodule.h"
#include "sql/sqltable.h"
#include "util/result.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

struct sqlite3;

namespace ringside {
class AnalysisTables;
class Trace;
}

namespace ringside::sql {

// The version of the SQL tables' shape (their names, columns and meanings), read by
// `SELECT str_value FROM metadata WHERE name = 'ringside_sql_schema'`: a table or column added,
// renamed, retyped or given another meaning gives a new number (README, "Machine-readable output").
inline constexpr const char* kSqlSchema = "ringside.sql/7";

// Where a statement's result goes: its column names once, then each row. row() returns false
// to stop the statement early (a view that has enough).
class ResultSink {
public:
    virtual ~ResultSink() = default;
    virtual void columns(const std::vector<std::string>& names) = 0;
    virtual bool row(const std::vector<Value>& values) = 0;
};

// How a run ended. A failed statement says why and where (the byte of the SQL SQLite stopped
// at, -1 when it does not say).
struct RunOutcome {
    bool ok = true;
    bool interrupted = false;
    std::string message;
    int offset = -1;
    size_t statements = 0; // run to their end
};

// A table and its columns, as `.schema` and completion show them.
struct TableInfo {
    std::string name;
    std::string kind; // "events", "event type", "tasks", the analysis it comes from
    std::vector<Column> columns;
};

// SQL over one recording: an in-memory SQLite database whose tables are read-only virtual
// tables over the trace's store and analyses (eventtables.h, analysistables.h). Nothing is
// copied up front: a query reads the store's columns, and the raw records only for the event
// fields it selects. The trace must outlive this and may not grow meanwhile; one thread runs
// queries, any thread may interrupt() them.
class SqlContext;

class RecordingSql : private TableRegistry {
public:
    // Fails only when the database or the field decoder cannot be made.
    static Result<std::unique_ptr<RecordingSql>> open(const Trace& trace);
    ~RecordingSql() override;
    RecordingSql(const RecordingSql&) = delete;
    RecordingSql& operator=(const RecordingSql&) = delete;

    // Runs every statement of `sql` in turn, each statement's result to `sink`. `progress`
    // hears now and then how many rows the tables have yielded since the run began (scanned
    // or looked up, every table: what the query really reads) and the recording's events.
    using Progress = std::function<void(uint64_t done, uint64_t total)>;
    RunOutcome run(const std::string& sql, ResultSink& sink, const Progress& progress = {});
    // Stops the running query at its next step (from any thread, a signal handler included:
    // it only sets a flag); the run ends with `interrupted`.
    void interrupt() { m_interrupt.store(true, std::memory_order_relaxed); }
    // Counter tables made outside the recording's analyses (the window's query tracks: a field
    // plotted per task or CPU), shown in `counter` and the track tables after the analyses'
    // tracks; kept alive while a query reads them. The thread that runs queries, between runs.
    void setExtraTables(std::vector<std::shared_ptr<const AnalysisTables>> tables);
    // A view latency_<name> (latencyViewName) over event_pairs for each of the window's latency
    // analyses, as they are defined; those of an earlier call that are gone are dropped. A preset
    // as it stands has its view already. The thread that runs queries, between runs.
    void setLatencyViews(const std::vector<PairSpec>& analyses);
    // "latency_" and the analysis's name in lower case, each run of other than letters and
    // digits an '_': latency_syscall, latency_sys_enter_sys_exit_filtered.
    static std::string latencyViewName(const std::string& analysis);

    const std::vector<TableInfo>& tables() const { return m_info; }
    const TableInfo* table(const std::string& name) const;
    // The CREATE statement that says what a table holds, as `.schema` prints it.
    static std::string schemaOf(const TableInfo& table);
    // Whether `sql` is whole: its last statement is complete (ends with ';').
    static bool complete(const std::string& sql);
    // Rows of the store read by queries so far (for the benchmarks and the pushdown tests).
    uint64_t rowsRead() const { return m_rowsRead.load(std::memory_order_relaxed); }
    // Rows every table has yielded to queries so far (for progress).
    using TableRegistry::rowsYielded;
    // The same table by table, named by views of the table names this object keeps (any
    // thread: the tables are made once, their counts atomic; asked often while a query runs).
    std::vector<std::pair<std::string_view, uint64_t>> rowsYieldedByTable() const;

private:
    RecordingSql() = default;
    const Table* find(const std::string& name) const override;
    void addTable(std::unique_ptr<Table> table, std::string kind);
    // SQLite's message, with what this recording says about a table or column it lacks, or
    // why the guard refused a statement.
    std::string explain(const std::string& message) const;
    // What a query may do (SQLite's authorizer): read the recording, and make and change
    // temporary tables of its own; nothing that reaches a file or another database.
    static int authorize(void* self, int action, const char* what, const char* detail, const char* database,
                         const char* trigger);

    const Trace* m_trace = nullptr;
    sqlite3* m_db = nullptr;
    std::map<std::string, std::unique_ptr<Table>> m_tables;
    std::vector<TableInfo> m_info;
    std::vector<std::string> m_emptyEventTypes; // formats of the file with no events
    std::unique_ptr<SqlContext> m_context;      // what the tables share (the field decoder)
    std::atomic<bool> m_interrupt{false};
    std::atomic<uint64_t> m_rowsRead{0};
    std::string m_refused; // why the guard refused the statement being prepared
    std::string m_droppedSpanJoin; // the SPAN_JOIN table a DROP TABLE being prepared drops
    std::string m_droppedView;     // the view a DROP VIEW drops (its rows, none, are deleted)
    std::vector<PairSpec> m_latencyAnalyses; // what setLatencyViews was last given
    std::vector<std::string> m_latencyViews; // the views it made
};

} // namespace ringside::sql
