// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "sql/recordingsql.h"
#include "sql/sqlcontext.h"
#include "sql/sqltable.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ringside::sql {

// Tables made from what the analyses know rather than from single events, written by a
// source a chunk of rows at a time (a cursor holds one chunk, never the whole table):
// - thread (utid, tid, name, start_ts, end_ts, upid, is_main_thread) and process (upid, pid,
//   name, start_ts, end_ts): the task index's tasks (a life of a pid) and the thread groups;
// - sched_slice (ts, dur, cpu, utid): which task ran on each CPU when;
// - thread_state (ts, dur, utid, state): the sched plugin's task states, in Perfetto's
//   letters (Running, R, S, D, T, X), state_name as Ringside names them;
// - slice (id, ts, dur, track_id, cpu, utid, depth, name, parent_id, ret): function_graph calls;
// - every analysis's track tables, as `analysis_key` (its key alone when it is the
//   analysis's name), and every plugin's statistics tables the same way.
// The columns Perfetto's trace_processor has for the same tables keep its names.

// About how many rows a source writes at a time.
inline constexpr size_t kChunkRows = 4096;

// A source's cells.
inline Value integer(int64_t v)
{
    return Value::ofInteger(v);
}
inline Value text(std::string v)
{
    return Value::ofText(std::move(v));
}
inline Value nullValue()
{
    return Value();
}

// A table's rows, written a chunk at a time.
class RowSource {
public:
    virtual ~RowSource() = default;
    // Appends up to about `rows` rows (each the table's column count of values) to `cells`;
    // false once nothing is left after them.
    virtual bool fill(std::vector<Value>& cells, size_t rows) = 0;
    // The columns the statement reads (Cursor::useColumns), before the first fill: a source
    // may write NULL for the others rather than work them out.
    virtual void useColumns(uint64_t columns) { (void)columns; }
};

class SourceTable : public Table {
public:
    using MakeSource = std::function<std::unique_ptr<RowSource>(const std::vector<Bound>& bounds)>;
    // `pushed`: the columns whose equality (and, for `ranged`, range) constraints the source
    // narrows its rows by; `key`: a column no two rows share a value of (an id).
    SourceTable(std::string name, std::vector<Column> columns, std::function<double()> rows, MakeSource make,
                std::vector<int> pushed = {}, std::vector<int> ranged = {}, int key = -1);
    Plan plan(const std::vector<Constraint>& offered) const override;
    // The columns each of which the source's rows come in ascending order of (an id): a
    // statement ordered or grouped by one of them sorts nothing.
    void setRowsInOrderOf(std::vector<int> columns) { m_inOrderOf = std::move(columns); }
    // The share of the rows an equality on a pushed column leaves (5% unless set): an owner's
    // rows are about 1/owners of a table's, and a join reads them owner by owner only when
    // the plan's cost says so.
    void setEqualityShare(std::function<double()> share) { m_equalityShare = std::move(share); }
    Plan orderedPlan(const std::vector<Constraint>& offered, const std::vector<OrderBy>& order,
                     Ordering ordering) const override;
    double rowEstimate() const override { return m_rows(); }
    std::unique_ptr<Cursor> open() const override;
    std::unique_ptr<RowSource> source(const std::vector<Bound>& bounds) const { return m_make(bounds); }

private:
    std::function<double()> m_rows;
    MakeSource m_make;
    std::vector<int> m_pushed, m_ranged;
    std::vector<int> m_inOrderOf;
    std::function<double()> m_equalityShare;
    int m_key = -1;
};

// A table and what `.tables` says it comes from.
struct NamedTable {
    std::unique_ptr<Table> table;
    std::string kind;
};

// A name as an SQL identifier: letters, digits and '_'.
std::string identifier(const std::string& text);

// Every table above, named so that none takes a name in `taken` (the event tables').
std::vector<NamedTable> makeAnalysisTables(SqlContext& context, std::vector<std::string> taken);

} // namespace ringside::sql
