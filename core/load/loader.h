// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "store/eventstore.h"
#include "store/recordtap.h"
#include "util/result.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>

struct tep_handle;

namespace ringside {

class DatFile;

struct LoadProgress {
    // Pages are parsed first; then the consumers (the plugins) are fed the records they asked
    // for; then the tasks are indexed.
    enum class Stage { Pages, Consumers, Tasks };
    Stage stage = Stage::Pages;
    uint64_t bytesDone = 0; // Stage::Pages: of bytesTotal; after it, both are 1
    uint64_t bytesTotal = 0;
    uint64_t events = 0;
    uint64_t recordsDone = 0; // Stage::Consumers: records delivered of recordsTotal
    uint64_t recordsTotal = 0;
};

struct LoadOptions {
    int threads = 0; // 0: one per core
    // Trace::open: the analyses run before it returns (the window runs them later, on a
    // worker, with Trace::analyse).
    bool analyse = true;
    // The bytes of pages a worker parses at a time, at least (0: chosen from the file's size);
    // tests make it small to split streams into many stretches.
    uint64_t segmentBytes = 0;
    // Called on the loading thread about every 50 ms, and once at the end.
    std::function<void(const LoadProgress&)> progress;
    // Set from any thread to stop the load; load() then returns an error saying so (but see
    // `growing`).
    const std::atomic<bool>* cancel = nullptr;
    // The store is shown while it loads (the window): its merged order is published as the
    // pages are parsed, the CPUs' pages taken oldest first across CPUs, so that readers see it
    // grow from its start as a capture's. Else it is published once, at the end, merged on
    // every thread (faster). A cancelled growing load is not an error: the segments being
    // parsed are finished, the store keeps every CPU's events up to where it stopped, and a
    // "load-stopped" diagnostic says so.
    bool growing = false;
    // The name a pid was saved under (default: the handle's saved comms, read unlocked): a
    // growing load's handle is shared with its readers, who lock it.
    std::function<std::string(int32_t pid)> savedComm;
    // Run on the loading thread while the workers parse pages (it would otherwise only wait).
    std::function<void()> alongside;
    // Called on the loading thread once the pages are parsed, with the number of events of
    // each type, before the store is finished (DatFile::parseDeferredFormats goes here).
    std::function<void(const std::vector<uint64_t>& typeCounts, Diagnostics& diagnostics)> typesKnown;
    // A growing load's: called on the loading thread before rows of event types not seen yet
    // are appended (their counts are read as they are), with 1 for each type appended so far
    // and for the new ones.
    std::function<void(const std::vector<uint64_t>& typeCounts, Diagnostics& diagnostics)> typesSeen;
    // Fields to copy while parsing; the store keeps what they collect (EventStore::tap).
    std::vector<RecordTap> taps;
    // Consumers fed while the pages are parsed (taps with `feed`): a sink for each stretch of
    // a stream, asked for on the worker that parses it; then, once the stretches are in place,
    // where each landed and how many events it holds, in stream order and stretches in order
    // (on the loading thread).
    std::function<RecordSink*(size_t stream)> sinkFor;
    std::function<void(RecordSink* sink, size_t stream, uint32_t firstIndex, uint32_t events)> sinkPlaced;
    // Called on a worker before it parses each segment (for tests: an exception thrown here
    // is a worker failure, as a failed allocation would be).
    std::function<void(size_t segment)> beforeSegment;
};

// Lays out an empty `store` for `file`: its buffers, a stream per CPU over its pages, how its
// records are laid out, the file's diagnostics. loadEvents does it when not done; a trace
// shown while it loads does it first, so that readers see the store's shape from the start.
void shapeStore(const DatFile& file, tep_handle* tep, EventStore& store);

// How a load ended: every page read, or stopped by the user (a growing load; see
// LoadOptions::growing).
enum class LoadEnd { Whole, Stopped };

// Loads every event of a file into `store` (empty): each CPU stream is parsed in segments on
// the workers (streams are independent until merged), each stream's segments appended in order
// as they are done, and the merged order built. A failure anywhere (a worker that throws,
// memory that cannot be had) is an error naming the file and the problem: a store that misses
// part of the file is never returned as a success. `tep`: the file's handle (its event layout,
// its saved comms). The pages go through the one writer a live capture's take
// (StoreAppender). `taps` gets what LoadOptions::taps collected: [tap][stream], records in
// stream order.
Result<LoadEnd> loadEvents(const DatFile& file, tep_handle* tep, const LoadOptions& options, EventStore& store,
                           std::vector<std::vector<TapColumn>>* taps = nullptr);

} // namespace ringside
