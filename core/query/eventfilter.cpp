// SPDX-License-Identifier: GPL-2.0-or-later
#include "query/eventfilter.h"

#include "decode/parserstate.h"
#include "decode/recordcheck.h"
#include "decode/recordwalker.h"
#include "query/filtersyntax.h"
#include "trace.h"
#include "util/childprobe.h"

#include <traceevent/event-parse.h>

#include <algorithm>
#include <optional>
#include <utility>

namespace ringside {

bool FilterSpec::empty() const
{
    return std::none_of(hiddenStreams.begin(), hiddenStreams.end(), [](bool b) { return b; }) && hiddenPids.empty() &&
           std::none_of(hiddenTypes.begin(), hiddenTypes.end(), [](bool b) { return b; }) && expression.empty();
}

// Why libtraceevent's filter parser cannot be given `expression`, or empty: it is tried in a
// child first. A child that hung has shown no crash: forked from a process whose other
// threads held a lock (a sanitizer's allocator, on a busy machine), it may wait for good; it
// is tried again before the expression is refused.
std::string filterParserProblem(tep_handle* tep, const std::string& expression)
{
    for (int attempt = 0; attempt < 3; ++attempt) {
        ChildProbe probe;
        probe.count = 1;
        probe.stepTimeout = std::chrono::milliseconds(3000);
        probe.start = ChildProbe::forking(
            nullptr,
            [tep, &expression](size_t) {
                tep_event_filter* scratch = tep_filter_alloc(tep);
                tep_filter_add_filter_str(scratch, expression.c_str());
                tep_filter_free(scratch);
            },
            1);
        bool survived = false;
        const ChildProbe::Outcome outcome = probe.run([&](size_t) { survived = true; });
        if (survived || !outcome.probed) return {};
        if (!outcome.crashed.empty()) return "libtraceevent's filter parser crashes on this expression";
    }
    return "libtraceevent's filter parser did not finish on this expression in 3 tries of 3 s";
}

Result<std::shared_ptr<FilterExpression>> FilterExpression::compile(const Trace& trace, const std::string& text)
{
    auto shared = trace.filterHandle();
    if (!shared) return shared.error();
    const std::lock_guard handleLock((*shared)->lock);
    tep_handle* tep = (*shared)->handle->get();
    const std::string problem = checkFilterSyntax(tep, text);
    if (!problem.empty()) return Error{problem};
    const std::string meant = withSignedComparisons(tep, text);
    if (meant.size() - meant.find(':') - 1 > kMaxFilterCondition)
        return Error{"the condition is longer than " + std::to_string(kMaxFilterCondition) +
                     " characters once its signed comparisons are spelled out for libtraceevent"};
    // Held across the probe's fork too: its child never takes it.
    const auto lock = lockTraceEventParser();
    if (std::string problem = filterParserProblem(tep, meant); !problem.empty()) return Error{problem};

    std::shared_ptr<FilterExpression> expression(new FilterExpression);
    expression->m_handle = *shared;
    expression->m_filter = tep_filter_alloc(tep);
    const tep_errno rc = tep_filter_add_filter_str(expression->m_filter, meant.c_str());
    if (rc < 0) {
        char message[256] = {0};
        tep_filter_strerror(expression->m_filter, rc, message, sizeof message);
        // Freed here, under the lock held: the destructor would take it again.
        tep_filter_free(std::exchange(expression->m_filter, nullptr));
        return Error{message[0] ? message : "invalid filter expression"};
    }
    return expression;
}

FilterExpression::~FilterExpression()
{
    if (!m_filter) return;
    const std::lock_guard lock(m_handle->lock);
    tep_filter_free(m_filter);
}

bool FilterExpression::hasFilterFor(int eventId) const
{
    return tep_event_filtered(m_filter, eventId) != 0;
}

bool FilterExpression::matches(const tep_record& record, int eventId) const
{
    if (eventId < 0 || eventId > 0xffff) return false;
    const std::lock_guard lock(m_handle->lock);
    auto& checks = const_cast<std::vector<std::unique_ptr<RecordCheck>>&>(m_checks);
    if (checks.empty()) checks.resize(65536);
    std::unique_ptr<RecordCheck>& check = checks[size_t(eventId)];
    if (!check) check = std::make_unique<RecordCheck>(tep_find_event(m_filter->tep, eventId));
    // libtraceevent reads wherever a damaged record points: such a record matches nothing.
    if (check->firstBadField(static_cast<const uint8_t*>(record.data), record.size)) return false;
    return tep_filter_match(m_filter, const_cast<tep_record*>(&record)) == TEP_ERRNO__FILTER_MATCH;
}

namespace {

Result<std::shared_ptr<FilterResult>> evaluate(const EventStore& store, const FilterSpec& spec,
                                               const FilterExpression* expression, const std::atomic<bool>* cancel,
                                               const std::function<void(double)>& progress)
{
    auto result = std::make_shared<FilterResult>();
    const size_t streams = store.streamCount();
    auto cancelled = [&] { return cancel && cancel->load(std::memory_order_relaxed); };

    // The event types the expression has a condition for; it hides all others.
    std::vector<bool> decided(65536, false);
    if (expression)
        for (size_t type = 0; type < decided.size(); ++type)
            if (store.eventTypeCount(uint16_t(type))) decided[type] = expression->hasFilterFor(static_cast<int>(type));

    for (size_t s = 0; s < streams; ++s) {
        const StreamId id(static_cast<uint16_t>(s));
        const CpuColumns& c = store.stream(id).columns;
        // The events published now: a live store may grow meanwhile, the result covers these.
        const size_t events = c.size();
        RowSet set(events);
        const bool streamHidden = s < spec.hiddenStreams.size() && spec.hiddenStreams[s];
        if (!streamHidden) {
            for (size_t i = 0; i < events; ++i) {
                const uint16_t type = c.eventType[i];
                if (!spec.hiddenTypes.empty() && spec.hiddenTypes[type]) continue;
                if (!spec.hiddenPids.empty() && spec.hiddenPids.count(c.pid[i])) continue;
                if (expression && !decided[type]) continue;
                set.set(i);
            }
            if (expression) {
                // Drop the candidates the expression rejects, decoding them page by page.
                walkRecords(store, id, decided, [&](uint32_t index, const uint8_t* data, int size) {
                    if (index >= events || !set.contains(index)) return;
                    tep_record record{};
                    record.data = const_cast<uint8_t*>(data);
                    record.size = size;
                    record.ts = c.timestamp[index];
                    record.cpu = store.stream(id).cpu;
                    if (!expression->matches(record, c.eventType[index])) set.reset(index);
                });
            }
        }
        set.seal();
        result->perStream.push_back(std::move(set));
        if (cancelled()) return Error{"filtering was cancelled"};
        if (progress) progress(0.8 * double(s + 1) / double(streams));
    }

    // Rows published now; those of events the stream pass did not see (the store grew) are
    // left out, as rows past the end are.
    const size_t rows = store.eventCount();
    result->merged = RowSet(rows);
    size_t row = 0;
    for (MergedOrder::Cursor cursor(store.order(), 0); row < rows && !cursor.atEnd(); cursor.next(), ++row) {
        const EventRef e = cursor.event();
        if (e.stream.value < streams && e.index < result->perStream[e.stream.value].universe() &&
            result->perStream[e.stream.value].contains(e.index))
            result->merged.set(row);
        if ((row & 0xfffff) == 0 && cancelled()) return Error{"filtering was cancelled"};
    }
    result->merged.seal();
    if (progress) progress(1.0);
    return result;
}

} // namespace

Result<std::shared_ptr<FilterResult>> applyFilter(const Trace& trace, const FilterSpec& spec,
                                                  const FilterExpression* expression, const std::atomic<bool>* cancel,
                                                  const std::function<void(double)>& progress)
{
    return evaluate(trace.store(), spec, expression, cancel, progress);
}

Result<std::shared_ptr<FilterResult>> applyFilter(const EventStore& store, const FilterSpec& spec,
                                                  const FilterExpression* expression, const std::atomic<bool>* cancel,
                                                  const std::function<void(double)>& progress)
{
    return evaluate(store, spec, expression, cancel, progress);
}

} // namespace ringside
