// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "sql/sqltable.h"

#include <memory>

namespace ringside {
class Trace;
}

namespace ringside::sql {

// `thread` (utid, tid, name, start_ts, end_ts, upid, is_main_thread) and `process` (upid, pid,
// name, start_ts, end_ts): the task index's tasks (a life of a pid) and the thread groups, read
// by their ids without a scan (the joins every Perfetto query makes). The two share the rows
// they are read from.
struct TaskTables {
    std::unique_ptr<Table> thread, process;
};
TaskTables makeTaskTables(const Trace& trace);

} // namespace ringside::sql
