// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "file/fileinfo.h"
#include "file/pagesource.h"
#include "store/cpucolumns.h"
#include "store/diagnostics.h"
#include "store/ids.h"
#include "store/mergedorder.h"
#include "store/recordtap.h"
#include "store/tasktable.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ringside {

// One CPU of one buffer: its columns and where its raw pages are.
struct Stream {
    uint16_t buffer = 0;
    int cpu = 0;
    CpuColumns columns;
    std::unique_ptr<PageSource> pages;
    uint64_t statsOverrun = 0; // events the kernel's CPU stats say were overwritten
    bool endsEarly = false;    // the file was cut inside its pages, or their load was stopped
};

struct BufferSummary {
    std::string name;
    std::string clock;
    uint32_t pageSize = 0;
    std::vector<StreamId> streams;
    std::vector<CpuStats> stats;
};

// How raw records are laid out on this machine's pages.
struct FileLayout {
    int kernelLongSize = 8;
    bool bigEndian = false;
    int minRecordSize = 8; // the common fields
};

// A raw record ready for libtraceevent: points into `page`, which the caller keeps alive.
struct RawRecord {
    std::vector<uint8_t> page;
    const uint8_t* data = nullptr;
    int size = 0;
};

// Every event of a recording, per buffer and CPU in columns (see CpuColumns), plus the merged
// time order as a separate index (MergedOrder), built by a k-way merge of the already
// time-ordered streams. Event fields are decoded on demand from the raw record.
//
// Threading: grown by one writer (StoreAppender: a recording's pages all at once, a live
// capture's as they arrive) while any number of threads read. While it
// grows, readers on any thread may use streamCount(), stream(), the columns below their
// size(), the page sources, eventCount() and the merged order below it, first/last
// timestamps, readRecord, rowOf and firstRowAtOrAfter: every row they see was complete when
// published and never moves or changes. Rows are in time order, except events that arrived
// after later rows were published (counted as "late-events"), which follow them. The
// metadata (buffers, task table, event-type counts, diagnostics, taps) is the owner's: the
// writer's thread, or any thread once the store is no longer growing.
class EventStore {
public:
    size_t streamCount() const { return m_streamTable.size(); }
    const Stream& stream(StreamId id) const { return *m_streamTable[id.value]; }
    const std::vector<BufferSummary>& buffers() const { return m_buffers; }

    // Events in merged order.
    size_t eventCount() const { return m_order.size(); }
    EventRef eventAt(size_t row) const { return m_order.eventAt(row); }
    const MergedOrder& order() const { return m_order; }
    uint64_t timestamp(EventRef e) const { return stream(e.stream).columns.timestamp[e.index]; }
    uint64_t firstTimestamp() const { return m_first.load(std::memory_order_acquire); }
    uint64_t lastTimestamp() const { return m_last.load(std::memory_order_acquire); }

    // Called by the writer (on its thread) after each publish that added rows, with the new
    // row count: the "store grew" notification views follow.
    void setGrowthListener(std::function<void(size_t rows)> listener) { m_growth = std::move(listener); }

    const TaskTable& tasks() const { return m_tasks; }
    const std::vector<uint64_t>& eventTypeCounts() const { return m_typeCounts; }
    // One type's count, safe on any thread while the store grows (the writer counts with
    // atomic increments; the table itself never moves once the writer started).
    uint64_t eventTypeCount(uint16_t type) const
    {
        if (type >= m_typeCounts.size()) return 0;
        return std::atomic_ref<uint64_t>(const_cast<uint64_t&>(m_typeCounts[type])).load(std::memory_order_relaxed);
    }
    const Diagnostics& diagnostics() const { return m_diagnostics; }
    const FileLayout& layout() const { return m_layout; }
    size_t memoryBytes() const;

    // The merged-order row of an event (from the order's checkpoints, no scan of the trace).
    size_t rowOf(EventRef e) const;
    // The first row whose time is not before `ts`.
    size_t firstRowAtOrAfter(uint64_t ts) const;
    // The first event of task `pid` at or after `ts`, among the next `within` rows: the event
    // an analysis (a call, a failed system call) came from.
    std::optional<EventRef> taskEventAt(int32_t pid, uint64_t ts, size_t within = 4096) const;

    // Reads the raw record of `e` from its page; false with a reason if the page is unreadable.
    bool readRecord(EventRef e, RawRecord& out, std::string* reason) const;

    // A number unique to the event, for sets and maps.
    static uint64_t key(EventRef e) { return (uint64_t(e.stream.value) << 32) | e.index; }

private:
    friend class StoreAppender; // the one writer
    std::vector<std::unique_ptr<Stream>> m_streams; // owns them; the writer's
    ChunkedColumn<Stream*, 10> m_streamTable;       // what readers index: never moves
    std::vector<BufferSummary> m_buffers;
    MergedOrder m_order;
    TaskTable m_tasks;
    std::vector<uint64_t> m_typeCounts;
    Diagnostics m_diagnostics;
    std::atomic<uint64_t> m_first{0};
    std::atomic<uint64_t> m_last{0};
    std::function<void(size_t)> m_growth;
    FileLayout m_layout;
};

} // namespace ringside
