// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "latency/eventpairs.h"
#include "util/result.h"

#include <cstdint>
#include <functional>
#include <memory>

namespace ringside {

class Trace;

// Pairs the events of a recording already loaded: the window's latency analyses and SQL's
// event_pairs(), asked for after the load. Its EventPairs is fed as the registry feeds a load
// (the matched fields of each start and end record, in merged time order, ties in stream
// order, with the record's task), so that the pairs are those `ringside-cli latency` makes on
// the pipeline; the records are read again from the pages, a stream per core, and may be
// filtered on each side (PairSpec::filterFrom, filterTo). Runs on any thread: it reads the
// store and its pages, and takes the trace's libtraceevent handle only to look the formats up.
class LoadedPairs {
public:
    // (events walked, events in all); false stops the run.
    using Progress = std::function<bool(uint64_t done, uint64_t total)>;

    // An error when the pages cannot be read again, the analysis threw or was stopped; an
    // EventPairs whose unbound() says why when the recording lacks an event or field.
    // `rows`: pairs only the recording's first rows in time order (a quick sample while a pair
    // is edited), not all of it.
    static Result<std::unique_ptr<LoadedPairs>> run(const Trace& trace, const PairSpec& spec,
                                                    const Progress& progress = {}, uint64_t rows = UINT64_MAX);
    // For a caller that knows the pair before the load (the CLI): a consumer, given to
    // Trace::open, that keeps the pair's records (times, indexes, matched values) as the
    // parser's threads find them, so that run() matches them without reading the pages again.
    // Null for pairs with conditions or marks, which are read from the pages again (as are
    // pairs of text fields).
    static std::unique_ptr<RecordConsumer> recordsKeeper(const PairSpec& spec);

    const EventPairs& pairs() const { return *m_pairs; }
    // Where the time went, for benchmarks: reading the records again (or taking those
    // recordsKeeper() kept), and matching them.
    double walkSeconds() const { return m_walkSeconds; }
    // The records were those recordsKeeper() kept, not read again.
    bool usedKeptRecords() const { return m_usedKept; }
    double matchSeconds() const { return m_matchSeconds; }

private:
    LoadedPairs() = default;
    std::unique_ptr<EventPairs> m_pairs;
    double m_walkSeconds = 0, m_matchSeconds = 0;
    bool m_usedKept = false;
};

} // namespace ringside
