// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "sql/sqlcontext.h"
#include "sql/sqltable.h"

#include <memory>
#include <string>
#include <vector>

struct sqlite3;

namespace ringside::sql {

// The recording's events as tables, rows in the merged time order, `id` the row's number in
// it (the app's event row):
// - ftrace_event: every event. id, ts, cpu, utid, pid, comm, name, system, common_flags,
//   common_preempt_count and arg_set_id (the id again: EXTRACT_ARG(arg_set_id, 'prev_pid')
//   reads any field by name, as in Perfetto).
// - one table per event type with events, named as the event (`sched_switch`), or
//   `system_event` where two systems share a name: id, ts, cpu, utid, common_pid, comm,
//   common_flags, common_preempt_count, then the event's own fields as libtraceevent names
//   them, typed (numbers as integers, strings and arrays as text). A field named like one of
//   the leading columns keeps its name; the leading column is then `common_<name>`.
// A scan narrows itself to the rows of a time range (binary search of the merged order), of
// an id range, and of a task (its lifetime); a CPU, pid or task it checks from the store's
// columns before anything decodes the record. Fields are read from the raw record only for
// the rows and columns a query asks for.
class EventTable : public Table {
public:
    // Leading columns, by position.
    enum : int { kId, kTs, kCpu, kUtid, kPid, kComm, kFlags, kPreempt, kLeading };
    static constexpr int kAnyType = -1;

    // `type` kAnyType: ftrace_event.
    EventTable(SqlContext& context, std::string name, int type);
    Plan plan(const std::vector<Constraint>& offered) const override;
    Plan orderedPlan(const std::vector<Constraint>& offered, const std::vector<OrderBy>& order,
                     Ordering ordering) const override;
    double rowEstimate() const override;
    std::unique_ptr<Cursor> open() const override;

    SqlContext& context() const { return m_context; }
    int type() const { return m_type; }

private:
    static std::vector<Column> columnsFor(SqlContext& context, int type);
    SqlContext& m_context;
    int m_type;
};

// The table of the events `name` of `system`: named as the event, or `system_name` when another
// system recorded an event of that name too (`nameShared`).
std::string eventTableName(const std::string& system, const std::string& name, bool nameShared);

// The event tables of the trace's store: ftrace_event and one per type with events.
std::vector<std::unique_ptr<Table>> makeEventTables(SqlContext& context);

// EXTRACT_ARG(arg_set_id, 'name') (and 'args.name'): a field of any event by its name.
void registerEventFunctions(sqlite3* db, SqlContext& context);

} // namespace ringside::sql
