// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "consume/consumerregistry.h"
#include "latency/eventpairs.h"
#include "util/result.h"

#include <cstdint>
#include <functional>
#include <memory>

namespace ringside {

class Trace;

// Pairs the events of a recording already loaded: the window's latency analyses and SQL's
// event_pairs(), asked for after the load. A registry of its own holds the one EventPairs and
// is fed as a load feeds it (the requested fields copied from the pages into taps, then
// delivered in merged time order with each record's task), so that the pairs are those
// `ringside-cli latency` makes on the pipeline. Runs on any thread: it reads the store and its
// pages, and takes the trace's libtraceevent handle only to look the formats up.
class LoadedPairs {
public:
    // (events walked, events in all); false stops the run.
    using Progress = std::function<bool(uint64_t done, uint64_t total)>;

    // An error when the pages cannot be read again, the analysis threw or was stopped; an
    // EventPairs whose unbound() says why when the recording lacks an event or field.
    static Result<std::unique_ptr<LoadedPairs>> run(const Trace& trace, const PairSpec& spec,
                                                    const Progress& progress = {});

    const EventPairs& pairs() const { return *m_pairs; }

private:
    LoadedPairs() = default;
    ConsumerRegistry m_registry;
    const EventPairs* m_pairs = nullptr;
};

} // namespace ringside
