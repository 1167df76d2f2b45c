// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "query/rowset.h"
#include "trace.h"
#include "store/eventstore.h"
#include "util/result.h"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>
#include <vector>

struct tep_handle;
struct tep_event_filter;
struct tep_record;

namespace ringside {

class Trace;

// What to show: streams (CPUs), tasks and event types to hide, and an expression in
// libtraceevent's filter syntax, as `trace-cmd report -F` takes it (for example
// "sched/sched_switch: prev_state != 0"). With an expression, only events it matches are
// shown, as in trace-cmd.
struct FilterSpec {
    std::vector<bool> hiddenStreams;
    std::unordered_set<int32_t> hiddenPids;
    std::vector<bool> hiddenTypes; // 65536 entries, or empty
    std::string expression;

    bool empty() const;
};

// Why libtraceevent's filter parser cannot be given `expression` (it frees twice or writes past
// a buffer on some input the syntax checker lets through), or empty: a forked copy of this
// process compiles it first. Empty also when no child could be started. compile() calls it;
// `tep` is the caller's alone meanwhile.
std::string filterParserProblem(tep_handle* tep, const std::string& expression);

// A compiled expression. Parse errors carry libtraceevent's own message. It is compiled on,
// and matches records with, the trace's filter handle (Trace::filterHandle), never the
// trace's own: the parser's check in a child process (up to 3 tries of 3 s) and a filter run
// over millions of records hold no lock the views or the analyses wait for.
class FilterExpression {
public:
    static Result<std::shared_ptr<FilterExpression>> compile(const Trace& trace, const std::string& text);
    ~FilterExpression();
    bool hasFilterFor(int eventId) const;
    // Whether `record` (of a type it has a condition for) matches; a record that reaches past
    // its format's fields matches nothing.
    bool matches(const tep_record& record, int eventId) const;

private:
    FilterExpression() = default;
    std::shared_ptr<Trace::SharedHandle> m_handle;
    tep_event_filter* m_filter = nullptr;
    std::vector<std::unique_ptr<class RecordCheck>> m_checks; // by event id, made as needed
};

// The events a FilterSpec shows: per stream (for the timeline) and in merged order (for the
// table), with how many there are.
struct FilterResult {
    std::vector<RowSet> perStream;
    RowSet merged;
};

// Evaluates a filter over the whole store. Column conditions are checked from the columns;
// the expression decodes only records of the event types it names, page by page, on its own
// handle. Returns an error when cancelled.
Result<std::shared_ptr<FilterResult>> applyFilter(const Trace& trace, const FilterSpec& spec,
                                                  const FilterExpression* expression,
                                                  const std::atomic<bool>* cancel = nullptr,
                                                  const std::function<void(double)>& progress = {});
Result<std::shared_ptr<FilterResult>> applyFilter(const EventStore& store, const FilterSpec& spec,
                                                  const FilterExpression* expression,
                                                  const std::atomic<bool>* cancel = nullptr,
                                                  const std::function<void(double)>& progress = {});

} // namespace ringside
