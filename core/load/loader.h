// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "store/recordtap.h"
#include "store/eventstore.h"
#include "util/result.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>

namespace ringside {

class DatFile;

struct LoadProgress {
    uint64_t bytesDone = 0;
    uint64_t bytesTotal = 0;
    uint64_t events = 0;
};

struct LoadOptions {
    int threads = 0; // 0: one per core
    // Called on the loading thread about every 50 ms, and once at the end.
    std::function<void(const LoadProgress&)> progress;
    // Set from any thread to stop the load; load() then returns an error saying so.
    const std::atomic<bool>* cancel = nullptr;
    // Run on the loading thread while the workers parse pages (it would otherwise only wait).
    std::function<void()> alongside;
    // Fields to copy while parsing; the store keeps what they collect (EventStore::tap).
    std::vector<RecordTap> taps;
};

// Loads every event of a file into an EventStore: each CPU stream is parsed on its own
// worker (streams are independent until merged), then the merged order is built.
Result<std::unique_ptr<EventStore>> loadEvents(const DatFile& file, const LoadOptions& options);

} // namespace ringside
