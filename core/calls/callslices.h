// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "analysis/tracktables.h"
#include "consume/recordconsumer.h"
#include "store/chunkedcolumn.h"
#include "util/flatindex.h"

#include <deque>
#include <functional>

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace ringside {

// What is known of a call besides its times.
enum CallFlag : uint8_t {
    kCallOpen = 0x01,            // no exit seen: running when the recording ended, or its exit was lost
    kCallNoEntry = 0x02,         // an exit without its entry: the call began before the recording (or a gap)
    kCallBroken = 0x04,          // closed without its exit by lost events or an out-of-order depth
    kCallHardIrq = kFlagHardIrq, // the context it ran in, from its entry's and exit's common_flags
    kCallSoftIrq = kFlagSoftIrq,
    kCallRetval = 0x20, // the exit recorded a return value
    kCallNmi = kFlagNmi,
    kCallRetvalWide = 0x80, // the return value did not fit 32 bits (kept aside)
    kCallInterrupt = kCallHardIrq | kCallSoftIrq | kCallNmi,
};

// Counts of what could not be paired, for the trace health pane.
struct CallPairing {
    uint64_t entries = 0, exits = 0;
    uint64_t exitsWithoutEntry = 0;  // began before the recording, or their entry was lost
    uint64_t entriesWithoutExit = 0; // a later entry or exit at their depth or above closed them
    uint64_t openAtEnd = 0;          // still running when the recording ended
    uint64_t brokenByLoss = 0;       // open calls of a CPU that lost events, closed there
    uint64_t lossGaps = 0;           // lost-event gaps that broke at least one stack
    uint64_t badDurations = 0;       // an exit whose rettime is before its calltime
    uint64_t overruns = 0;           // exits reporting a return-stack overrun
};

// The function_graph calls of a recording as nested slices, columnar: one row per call in the
// order its entry (or, for a call whose entry was not recorded, its exit) arrived, with its
// parent's row. Built from funcgraph_entry/funcgraph_exit records fed in merged time order by
// the consumer registry, one stack per task (the kernel's return stack is per task, so a call
// switched out and resumed, maybe on another CPU, continues where it was). Interrupt handlers
// nest in the task's stack by the kernel's depth; their context flags (kCallInterrupt) let
// the call trees make each interrupt a tree of its own (isInterruptRoot).
//
// Durations come from the exit record (rettime - calltime), as trace-cmd prints them; a call
// without an exit has duration 0 and kCallOpen. Grows with every batch of a live capture;
// readers use it between batches (see RecordConsumer).
//
// The calls are also the slice table it declares ("calls", a flame chart per task), read from
// these columns in place: each task's calls by id (4 bytes a call), the functions' names as
// its labels once the trace has named them (nameFunctions, after each batch).
class CallSlices : public RecordConsumer, public SliceRowSource {
public:
    static constexpr const char* kName = "call-slices";
    static constexpr const char* kTableKey = "calls";
    static constexpr uint32_t kNoParent = ~uint32_t(0);
    static constexpr uint8_t kDeepDepth = 0xff; // the depth is kept aside (a damaged record)

    explicit CallSlices(int kernelLongSize = 8) : m_longSize(kernelLongSize) {}
    // The width of the recording's unsigned long (return values of 32-bit kernels are
    // sign-extended from 4 bytes); before the first record.
    void setKernelLongSize(int bytes) { m_longSize = bytes; }

    std::string name() const override { return kName; }
    std::vector<EventRequest> requests() const override;
    void setTables(TableSink& tables) override;
    void bind(const std::vector<bool>& bound) override;
    void setStreams(const std::vector<StreamInfo>& streams) override;
    void consume(const ConsumedRecord& record) override;
    void eventsLost(StreamId stream, uint64_t timestamp) override;
    void flush() override;

    // Whether the recording has funcgraph records (every recording has their formats).
    bool available() const
    {
        const CallPairing p = pairing();
        return m_available && p.entries + p.exits > 0;
    }
    // Whether its exits carry return values (kernels with funcgraph-retval).
    bool recordsRetval() const { return m_retvalBound; }

    size_t size() const { return m_start.size(); }
    uint64_t start(size_t i) const { return m_start[i]; }
    uint64_t duration(size_t i) const;
    uint64_t end(size_t i) const { return start(i) + duration(i); }
    uint32_t parent(size_t i) const { return m_parent[i]; }
    uint32_t function(size_t i) const { return m_function[i]; }
    int32_t pid(size_t i) const { return m_pid[i]; }
    StreamId stream(size_t i) const { return StreamId(m_stream[i]); }
    int cpu(size_t i) const { return m_streams[m_stream[i]].cpu; }
    // The depth the kernel recorded.
    int64_t depth(size_t i) const;
    uint8_t flags(size_t i) const { return m_flags[i]; }
    bool hasRetval(size_t i) const { return m_flags[i] & kCallRetval; }
    int64_t retval(size_t i) const;
    // A call that starts an interrupt's tree: it ran in interrupt context and its parent did
    // not (or ran in another one).
    bool isInterruptRoot(size_t i) const;

    // Function ids index this table of kernel addresses. A capture's batches add to it while
    // the window reads: a copy, or one address, taken under its lock.
    std::vector<uint64_t> functionAddresses() const;
    uint64_t functionAddress(uint32_t function) const;
    // As of the last batch (the next one counts on meanwhile).
    CallPairing pairing() const;
    size_t memoryBytes() const override;

    // Names the functions met since it was last asked (the writer, after a batch): `resolve`
    // gives the kernel's names of addresses, in their order.
    using Resolver = std::function<std::vector<std::string>(const std::vector<uint64_t>& addresses)>;
    void nameFunctions(const Resolver& resolve);
    // A function's name; "" until named.
    const std::string& functionName(uint32_t function) const { return labelText(function); }
    // The names given so far, by function id.
    std::vector<std::string> functionNames() const;

    // The calls table's rows (SliceRowSource): a task's calls, each as a slice whose label is
    // its function, whose value its return value; one not returned ends where the next call
    // at its depth or above began (it returned unseen), or runs to the end (Slice::kOpen).
    size_t owners() const override { return m_byTask.owners(); }
    size_t rows() const override { return m_byTask.rows(); }
    void forEachOf(uint32_t task, const std::function<void(const SliceTable::View&)>& visit) const override;
    void forEachOnStream(StreamId stream, const std::function<void(const SliceTable::View&)>& visit) const override;
    std::optional<SliceTable::View> slice(uint32_t call) const override;
    size_t labelCount() const override { return m_nameTexts.size(); }
    const std::string& labelText(uint32_t function) const override;

private:
    struct TaskStack {
        std::vector<uint32_t> frames;  // open calls, outermost first
        std::vector<uint32_t> pending; // parentless calls deeper than 0, waiting for an exit to adopt them
        uint16_t stream = 0;           // of its last record
    };

    TaskStack& stackOf(const ConsumedRecord& record);
    uint32_t functionId(uint64_t address);
    size_t functionAddressBytes() const;
    uint32_t addSlice(uint64_t start, uint32_t parent, uint32_t function, const ConsumedRecord& record, int64_t depth,
                      uint8_t flags);
    SliceTable::View viewOf(uint32_t call, uint32_t task) const;
    void setDuration(uint32_t slice, uint64_t duration);
    void setRetval(uint32_t slice, uint64_t raw);
    void closeUnpaired(TaskStack& stack, size_t keep, uint8_t why);
    void onEntry(const ConsumedRecord& record);
    void onExit(const ConsumedRecord& record, bool withRetval);
    void adoptPending(TaskStack& stack, uint32_t slice, int64_t depth);

    int m_longSize = 8;
    bool m_available = false;
    bool m_retvalBound = false;
    std::vector<StreamInfo> m_streams;
    std::unordered_map<int64_t, TaskStack> m_stacks;

    ChunkedColumn<uint64_t> m_start;
    ChunkedColumn<uint32_t> m_duration; // kWideDuration: kept in m_wideDurations
    ChunkedColumn<uint32_t> m_parent;
    ChunkedColumn<uint32_t> m_function;
    ChunkedColumn<int32_t> m_pid;
    ChunkedColumn<uint16_t> m_stream; // where its first record was
    ChunkedColumn<uint8_t> m_depth;
    ChunkedColumn<uint8_t> m_flags;
    ChunkedColumn<int32_t> m_retval; // only when the recording has return values
    static constexpr uint32_t kWideDuration = ~uint32_t(0);
    std::unordered_map<uint32_t, uint64_t> m_wideDurations;
    std::unordered_map<uint32_t, int64_t> m_deepDepths;
    std::vector<int64_t> m_wideRetvals; // m_retval holds the index when kCallRetvalWide

    mutable std::mutex m_addressesLock; // taken to add an address (rare) and by readers
    std::vector<uint64_t> m_addresses;
    FlatIndex m_functionIds;
    OwnerRows<uint32_t> m_byTask;                // call ids per task
    std::deque<std::string> m_names;              // the writer's; never move
    GrowingList<const std::string*> m_nameTexts;  // by function id, what readers read
    CallPairing m_pairing; // counted by the batch running
    mutable std::mutex m_publishedLock;
    CallPairing m_published; // at the end of the last batch
};

} // namespace ringside
