// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "query/rowset.h"
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
// process compiles it first. Empty also when no child could be started. compile() calls it.
std::string filterParserProblem(tep_handle* tep, const std::string& expression);

// A compiled expression. Parse errors carry libtraceevent's own message.
class FilterExpression {
public:
    static Result<std::shared_ptr<FilterExpression>> compile(tep_handle* tep, const std::string& text);
    ~FilterExpression();
    tep_event_filter* get() const { return m_filter; }
    bool hasFilterFor(int eventId) const;

private:
    FilterExpression() = default;
    tep_event_filter* m_filter = nullptr;
};

// The events a FilterSpec shows: per stream (for the timeline) and in merged order (for the
// table), with how many there are.
struct FilterResult {
    std::vector<RowSet> perStream;
    RowSet merged;
};

// Evaluates a filter over the whole store. Column conditions are checked from the columns;
// the expression decodes only records of the event types it names, page by page. Returns an
// error when cancelled. With a trace, each expression match takes its tep handle
// (Trace::tep), so views may decode meanwhile; without, the caller is the handle's only user.
Result<std::shared_ptr<FilterResult>> applyFilter(const Trace& trace, const FilterSpec& spec,
                                                  const FilterExpression* expression,
                                                  const std::atomic<bool>* cancel = nullptr,
                                                  const std::function<void(double)>& progress = {});
Result<std::shared_ptr<FilterResult>> applyFilter(const EventStore& store, const FilterSpec& spec,
                                                  const FilterExpression* expression,
                                                  const std::atomic<bool>* cancel = nullptr,
                                                  const std::function<void(double)>& progress = {});

} // namespace ringside
