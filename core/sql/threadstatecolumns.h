// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "sql/sqlcontext.h"
#include "sql/sqltable.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace ringside {
class IntervalTable;
struct IntervalRow;
} // namespace ringside

namespace ringside::sql {

// The columns Perfetto's thread_state has beyond ts, dur, utid and state, for the rows of the
// interval table that declares itself thread_state (a task's rows are its lane):
// - id: the task's utid in the high 32 bits and the row's place in its lane in the low ones,
//   so that it stays while a capture grows (the state still open keeps the id it gets when it
//   ends) and names its row without a scan;
// - cpu, ucpu: for Running, the CPU it ran on (the running table's run that began there);
// - waker_utid, waker_id, irq_context: for a runnable state begun by a wakeup, the task that
//   recorded that wakeup event, its own state then, and whether the event came from an
//   interrupt (hardirq or softirq in common_flags);
// - io_wait, blocked_function: from sched_blocked_reason where the recording has it, for the
//   blocked (D) state it names; null otherwise.
// Worked out per row only for the columns a statement reads.
class ThreadStateColumns {
public:
    enum : int { kId, kCpu, kUcpu, kIoWait, kBlockedFunction, kWakerUtid, kWakerId, kIrqContext, kCount };
    static std::vector<Column> columns();
    static int64_t idOf(uint32_t utid, uint64_t place) { return int64_t(uint64_t(utid) << 32 | place); }

    // What the scans of one table share: the wakeups by the task they woke, made on first use
    // by one pass over the wakeup events and kept while the recording and its tasks stay.
    class Wakeups;
    // And the blocked reasons by the blocked state they name, made the same way.
    class BlockedReasons;
    struct Shared {
        std::mutex lock;
        std::shared_ptr<const Wakeups> wakeups;
        std::shared_ptr<const BlockedReasons> blockedReasons;
    };

    ThreadStateColumns(SqlContext& context, const IntervalTable& table, std::shared_ptr<Shared> shared);
    // The columns read, as bits from kId (Cursor::useColumns's, shifted to this set's first).
    void useColumns(uint64_t columns) { m_used = columns; }
    // Appends kCount values for the task's row at `place` of its lane (its lane's size: the
    // state still open).
    void add(std::vector<Value>& cells, const IntervalRow& row, uint32_t utid, uint64_t place,
             const std::string& stateName);

private:
    std::shared_ptr<const Wakeups> wakeups();
    std::shared_ptr<const BlockedReasons> blockedReasons();
    std::optional<uint64_t> placeAt(uint32_t utid, uint64_t ts) const;
    std::optional<int64_t> cpuOfRun(uint32_t utid, uint64_t ts);

    SqlContext& m_context;
    const IntervalTable& m_table;
    std::shared_ptr<Shared> m_shared;
    std::shared_ptr<const Wakeups> m_wakeups;
    std::shared_ptr<const BlockedReasons> m_blockedReasons;
    uint64_t m_used = ~uint64_t(0);
    TaskOfEvents m_tasks;
};

} // namespace ringside::sql
