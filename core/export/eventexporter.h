// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "query/rowset.h"
#include "util/result.h"

#include <atomic>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace ringside {

class Trace;

enum class ExportFormat { Csv, JsonLines, Perfetto };

// Which events, how, and where progress goes.
struct ExportOptions {
    ExportFormat format = ExportFormat::Csv;
    const RowSet* rows = nullptr; // merged-order rows to write; null: every event (Perfetto: the
                                  // events written as instants; the tracks are always whole)
    int threads = 0;              // 0: every core
    const std::atomic<bool>* cancel = nullptr;
    std::function<void(double)> progress; // 0..1, on the calling thread
};

struct ExportSummary {
    size_t rows = 0;                  // events written (Perfetto: as instants)
    size_t slices = 0;                // Perfetto: slices and metadata events
    std::vector<std::string> columns; // CSV: the header; JSON Lines: the top-level keys
};

// Writes events one per line, in time order, with every field of each event: the columns
// every event has (time in seconds, or ticks for a counter clock; the raw timestamp; CPU;
// task name and pid; event name; latency flags; the info text `trace-cmd report` prints),
// then each field the recording's formats declare (common ones excepted).
//
// CSV: one column per distinct field name among the events written (a field named like one
// of the fixed columns is "field:NAME"), empty where an event lacks it; RFC 4180 quoting.
// JSON Lines: one object per event, the fixed keys and "fields": {NAME: value}, numbers as
// numbers. Perfetto: a Chrome/Perfetto JSON trace (see perfettotracks.h) whose tracks hold the
// running slices and function_graph calls, and an instant event for every other event (its
// fields as arguments) on its task's thread. Rows are formatted in pieces on several threads (one tep handle each) and written
// in order, so memory does not grow with the number of rows. Errors name `path`.
Result<ExportSummary> exportEvents(const Trace& trace, FILE* out, const std::string& path,
                                   const ExportOptions& options);

// The fixed columns, in order (without "buffer", which comes first when the recording has
// several buffers).
const std::vector<std::string>& exportFixedColumns();

} // namespace ringside
