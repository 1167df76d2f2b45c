// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "query/rowset.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace ringside {

class Trace;

// The columns of the event table that a search can look in.
enum class SearchColumn { All, Cpu, Time, Task, Pid, Latency, Event, Info };

// Decides whether a cell's text matches. Called from several threads at once, so it must
// not modify shared state (a compiled regular expression matched const is fine).
using TextPredicate = std::function<bool(std::string_view)>;

// Plain text, optionally ignoring (ASCII) case; and ECMAScript regular expressions
// (std::regex: correct but slow; the GUI passes its own QRegularExpression predicate).
TextPredicate containsText(std::string needle, bool caseSensitive);
TextPredicate matchesRegex(const std::string& pattern, bool caseSensitive, std::string* error = nullptr);

struct SearchRequest {
    SearchColumn column = SearchColumn::All;
    TextPredicate match;
    // The table's rows: the members of this set in merged order (a filter's `merged`), or
    // every row when null. Must outlive the search.
    const RowSet* rows = nullptr;
    // The Task column's text for a pid, as the table shows it. Called on the thread that runs
    // search(), once per task, before the workers start. Default: Trace::taskName.
    std::function<std::string(int32_t pid)> taskName;
    int threads = 0;      // 0: all cores
    size_t pieceRows = 0; // rows per piece of work; 0: a default (tests use small pieces)
    // The first match at or after table row `firstFrom` (wrapping past the last row to the
    // first, as "next" does), handed to `firstMatch` once, from a worker, as soon as no row
    // between them can match: the pieces are searched from there on, so a user's "next" is
    // shown long before every match is counted. Not called when the only matches are just
    // before `firstFrom`, in its piece (the whole result has them).
    size_t firstFrom = 0;
    std::function<void(size_t row)> firstMatch;
};

// Finds the table rows whose cell (or any cell, for All) matches. The Event, Task, PID and
// CPU columns are decided per event type, pid and stream, then read from the columns, with
// no formatting; the Time, Latency and Info texts are formatted per row by workers with a
// tep handle each (the trace's own handle is not touched, so no tep lock is needed). Rows
// are split into pieces that all cores take in turn.
//
// Returns the matching table rows (indexes into `rows` when given), ascending; empty when
// cancelled (check `cancel` after). `progress` gets the fraction done, from worker threads,
// serialized and non-decreasing.
std::vector<size_t> searchRows(const Trace& trace, const SearchRequest& request,
                               const std::atomic<bool>* cancel = nullptr,
                               const std::function<void(double)>& progress = {});

// The first match at or after `row`, wrapping around to the first; -1 when there is none.
// With `backwards`, the last match at or before `row`, wrapping to the last.
long long findFrom(const std::vector<size_t>& matches, long long row, bool backwards = false);

} // namespace ringside
