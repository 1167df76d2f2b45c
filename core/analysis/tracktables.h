// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "plugin/plugintables.h"
#include "store/growinglist.h"

#include <atomic>
#include <bit>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ringside {

class EventStore;
class TaskIndex;

// The track tables analyses fill (plugintables.h), as the core keeps them: rows staged while a
// batch is fed, published when it ends (TrackTable::publish), then read on any thread while
// later batches add more: every list only grows, and readers read below the sizes published.
// One writer per table (the analysis thread); rows may be staged from the parser's threads by
// consumers fed in pieces.

struct IntervalRow {
    uint64_t start = 0, end = 0;
    uint32_t state = 0;
};
struct InstantRow {
    uint64_t time = 0;
    uint32_t label = 0;
};
struct CounterRow {
    uint64_t time = 0;
    int64_t value = 0;
};
struct FlowRow {
    uint64_t fromTime = 0, toTime = 0;
    uint32_t fromOwner = 0, toOwner = 0;
    int64_t value = 0;
};
struct SliceRow {
    uint64_t start = 0, end = 0;
    int64_t value = 0;
    uint32_t label = 0;
    uint8_t depth = 0, flags = 0;
};

// Each owner's rows in the order added (time order, per owner). Owners are dense numbers
// (TaskId and StreamId values), so readers find a lane by index.
template <typename Row>
class OwnerRows {
public:
    // More owners than tasks or CPUs any recording has: a row for one (a plugin's "no task",
    // a pid taken for a task id) would take a lane for every number below it. Refused, counted.
    static constexpr uint32_t kMaxOwners = uint32_t(1) << 24;

    // False when the owner is refused.
    bool stage(uint32_t owner, const Row& row)
    {
        if (owner >= kMaxOwners) {
            ++m_refused;
            return false;
        }
        while (m_lanes.staged() <= owner) m_lanes.stage();
        GrowingList<Row>* lane = m_lanes[owner].load(std::memory_order_relaxed);
        if (!lane) {
            lane = &m_owned.emplace_back();
            m_lanes[owner].store(lane, std::memory_order_release);
        }
        if (lane->staged() == lane->size()) m_touched.push_back(owner);
        lane->stage(row);
        ++m_staged;
        return true;
    }
    void publish()
    {
        for (uint32_t owner : m_touched) m_lanes[owner].load(std::memory_order_relaxed)->publish();
        m_touched.clear();
        m_lanes.publish();
        m_rows.store(m_staged, std::memory_order_release);
    }
    // Owners below this may have rows.
    size_t owners() const { return m_lanes.size(); }
    // The owner's rows, or null when it has none.
    const GrowingList<Row>* of(uint32_t owner) const
    {
        return owner < m_lanes.size() ? m_lanes[owner].load(std::memory_order_acquire) : nullptr;
    }
    size_t rows() const { return m_rows.load(std::memory_order_acquire); }
    // Rows staged for an owner no lane can have (see kMaxOwners); the writer's count.
    size_t refused() const { return m_refused; }
    size_t memoryBytes() const
    {
        size_t bytes = m_lanes.memoryBytes();
        for (const GrowingList<Row>& lane : m_owned) bytes += lane.memoryBytes() + sizeof lane;
        return bytes;
    }

private:
    GrowingList<std::atomic<GrowingList<Row>*>> m_lanes;
    std::deque<GrowingList<Row>> m_owned; // the writer's; elements never move
    std::vector<uint32_t> m_touched;      // owners with staged rows
    size_t m_staged = 0;
    size_t m_refused = 0;
    std::atomic<size_t> m_rows{0};
};

// Slices that began and ended at events of one stretch of one stream, a few bytes each: which
// events end a slice (a bit per event), and per slice, in the order of their end events, how
// many events before its end its start event is, its label, flags and depth. Their times and
// owner are the store's. Built in event order, sealed, then read-only.
//
// The label takes a byte (tens of millions of system calls), a label among the stretch's first
// 255. A start at the event just before the end (all but 0.3% of a 23M-event recording's system
// calls) takes a bit; another distance a byte more, up to 254 events back. The other labels and
// distances are listed aside (a stretch of many kinds of calls, a long call with many events
// inside).
struct AnchoredSlices {
    static constexpr uint8_t kAside = 255;

    uint32_t firstEvent = 0; // the stretch's first event in its stream
    uint32_t events = 0;     // how many events the stretch holds
    std::vector<uint64_t> bits;
    std::vector<uint32_t> rowsBefore; // per word of bits: slices ending before it
    std::vector<uint64_t> backIsOne;  // per row: its start is the event before its end
    std::vector<uint32_t> onesBefore; // per word of backIsOne: rows before it whose back is 1
    std::vector<uint8_t> otherBacks;  // the other rows', in row order: 0 (kNoStart), 2..254; kAside: in wideBacks
    std::vector<uint8_t> labelCode;   // index into palette; kAside: in wideLabels
    std::vector<uint16_t> palette;    // label ids, by code
    std::vector<std::pair<uint32_t, uint16_t>> wideBacks;  // (row, back), in row order
    std::vector<std::pair<uint32_t, uint16_t>> wideLabels; // (row, label), in row order
    // The rows whose flags are not what their back implies (kNoStart or none), in row order: a
    // few failed or open ones among millions.
    std::vector<std::pair<uint32_t, uint8_t>> flagged;
    std::vector<uint8_t> depth; // empty while every depth is 0

    size_t rows() const { return labelCode.size(); }
    uint16_t labelOf(size_t row) const
    {
        const uint8_t code = labelCode[row];
        return code != kAside ? palette[code] : aside(wideLabels, row);
    }
    // How many events before its end the row's start is; 0 when it was not recorded.
    uint16_t backOf(size_t row) const
    {
        const size_t word = row / 64;
        const uint64_t bit = uint64_t(1) << (row % 64);
        if (backIsOne[word] & bit) return 1;
        const size_t ones = onesBefore[word] + size_t(std::popcount(backIsOne[word] & (bit - 1)));
        const uint8_t back = otherBacks[row - ones];
        return back != kAside ? back : aside(wideBacks, row);
    }
    // Appends a slice ending at event `end` of the stretch (after the last one's); false when
    // it cannot be kept here (out of order, its start too far back, a wide label or depth).
    bool append(uint32_t end, uint32_t back, uint32_t labelId, uint8_t flagBits, uint8_t depthValue);
    void seal(uint32_t eventCount);
    // The slices ending at events before `event` of the stretch.
    size_t rowsEndingBefore(uint32_t event) const;
    // The stretch event the `row`-th slice ends at (rows ending at [from, ...) walked in order
    // by nextEnd).
    uint32_t endOf(size_t row) const;
    size_t memoryBytes() const;

    // The flags of rows walked in order from `row`: flags(row) for each following row.
    class FlagWalk {
    public:
        FlagWalk(const AnchoredSlices& slices, size_t row);
        uint8_t flags(size_t row);

    private:
        const AnchoredSlices& m_slices;
        size_t m_next;
    };

private:
    static uint16_t aside(const std::vector<std::pair<uint32_t, uint16_t>>& list, size_t row);
    uint8_t codeOf(uint16_t labelId);
    // The writer's, until sealed: the code of each label in the palette (open addressing,
    // label + 1 as the key), for the call after call of a stretch.
    struct Codes {
        uint32_t keys[512] = {};
        uint8_t codes[512] = {};
    };
    std::unique_ptr<Codes> m_codes;
};

// The base of every track table: its kind, names and the batch bookkeeping.
class TrackTable {
public:
    enum class Kind { Intervals, Slices, Instants, Counters, Flows };
    // The task a row belongs to, for rows staged without one (anchored at an event, in a
    // piece): the task of the event's pid at its time; nullopt while the event's batch is not
    // analysed (its task may not be made yet): the row waits for a later publish.
    using OwnerOfEvent = std::function<std::optional<uint32_t>(EventRef event)>;

    TrackTable(Kind kind, std::string key, std::string title, RowOwner owner)
        : m_kind(kind), m_key(std::move(key)), m_title(std::move(title)), m_owner(owner)
    {}
    virtual ~TrackTable() = default;
    Kind kind() const { return m_kind; }
    const std::string& key() const { return m_key; }
    const std::string& title() const { return m_title; }
    RowOwner owner() const { return m_owner; }

    // The writer: the batch's rows become visible.
    virtual void publish(const OwnerOfEvent& ownerOf) = 0;
    // Rows published so far (readers: whether the table has anything, and when it grew).
    virtual size_t rows() const = 0;
    virtual size_t memoryBytes() const = 0;

private:
    Kind m_kind;
    std::string m_key, m_title;
    RowOwner m_owner;
};

// What an interval table declares itself to be (IntervalTableSpec::perfettoTable), where its
// rows fit that table: which task ran on each CPU (sched_slice), a task's scheduling states
// (thread_state). SQL and the Perfetto export find them so, not by the analysis's name.
inline bool isSchedSlice(const IntervalTableSpec& spec)
{
    return spec.perfettoTable == "sched_slice" && spec.statesAreTasks && spec.owner == RowOwner::Cpu;
}
inline bool isThreadState(const IntervalTableSpec& spec)
{
    return spec.perfettoTable == "thread_state" && !spec.statesAreTasks && spec.owner == RowOwner::Task;
}
inline bool isGuestStays(const IntervalTableSpec& spec)
{
    return spec.guestStays && spec.owner == RowOwner::Task;
}

class IntervalTable : public TrackTable, public IntervalSink {
public:
    static constexpr uint64_t kOpenEnd = UINT64_MAX;

    explicit IntervalTable(IntervalTableSpec spec);
    void add(uint64_t start, uint64_t end, uint32_t owner, uint32_t state) override;
    void open(uint64_t start, uint32_t owner, uint32_t state) override;
    void publish(const OwnerOfEvent&) override;
    size_t rows() const override { return m_rows.rows(); }
    size_t memoryBytes() const override { return m_rows.memoryBytes() + m_open.memoryBytes(); }

    const IntervalTableSpec& spec() const { return m_spec; }
    const OwnerRows<IntervalRow>& byOwner() const { return m_rows; }
    // The state the owner is in now, as a row ending at kOpenEnd; end == 0 when none.
    IntervalRow openOf(uint32_t owner) const;
    // The owner's row holding a moment of [from, to]: the first ending after `from` that
    // began by `to`, else the state it is in now (ending at kOpenEnd) if that began by `to`.
    std::optional<IntervalRow> rowAt(uint32_t owner, uint64_t from, uint64_t to) const;
    // Owners below this may have an open state (an owner may have one and no rows yet).
    size_t openOwners() const { return m_open.size(); }

private:
    struct OpenState {
        std::atomic<uint64_t> start{kOpenEnd}; // kOpenEnd: none
        std::atomic<uint32_t> state{0};
    };
    IntervalTableSpec m_spec;
    std::mutex m_lock;
    OwnerRows<IntervalRow> m_rows;
    GrowingList<OpenState> m_open; // per owner
    std::unordered_map<uint32_t, std::pair<uint64_t, uint32_t>> m_stagedOpen; // kOpenEnd start: closed
};

class InstantTable : public TrackTable, public InstantSink {
public:
    explicit InstantTable(InstantTableSpec spec);
    void add(uint64_t time, uint32_t owner, uint32_t label) override;
    void publish(const OwnerOfEvent&) override;
    size_t rows() const override { return m_rows.rows(); }
    size_t memoryBytes() const override { return m_rows.memoryBytes(); }

    const InstantTableSpec& spec() const { return m_spec; }
    const OwnerRows<InstantRow>& byOwner() const { return m_rows; }

private:
    InstantTableSpec m_spec;
    std::mutex m_lock;
    OwnerRows<InstantRow> m_rows;
};

class CounterSummary;

class CounterTable : public TrackTable, public CounterSink {
public:
    explicit CounterTable(CounterTableSpec spec);
    ~CounterTable() override;
    void add(uint64_t time, uint32_t owner, int64_t value) override;
    void publish(const OwnerOfEvent&) override;
    size_t rows() const override { return m_rows.rows(); }
    size_t memoryBytes() const override;

    const CounterTableSpec& spec() const { return m_spec; }
    const OwnerRows<CounterRow>& byOwner() const { return m_rows; }
    // Each owner's values summarised (countersummary.h) by the table's maker once it has added
    // them all, before any reader looks (a query track, on its worker): the timeline's first
    // frame then makes none on the GUI thread. Null for an owner without one, or once the
    // owner has more values than it summarises.
    void summarise();
    const CounterSummary* summaryOf(uint32_t owner) const;

private:
    CounterTableSpec m_spec;
    std::mutex m_lock;
    OwnerRows<CounterRow> m_rows;
    std::vector<std::unique_ptr<CounterSummary>> m_summaries; // by owner; summarise() only
};

// Flows in the order added (their targets' time order, for analyses fed in merged order).
class FlowTable : public TrackTable, public FlowSink {
public:
    explicit FlowTable(FlowTableSpec spec);
    void add(uint64_t fromTime, uint32_t fromOwner, uint64_t toTime, uint32_t toOwner, int64_t value) override;
    void publish(const OwnerOfEvent&) override;
    size_t rows() const override { return m_flows.size(); }
    size_t memoryBytes() const override { return m_flows.memoryBytes(); }

    const FlowTableSpec& spec() const { return m_spec; }
    const GrowingList<FlowRow>& flows() const { return m_flows; }

private:
    FlowTableSpec m_spec;
    std::mutex m_lock;
    GrowingList<FlowRow> m_flows;
};

class StretchRows;
class SliceRowSource;

// Slices: those anchored at events of one stream kept as AnchoredSlices (per stream, in event
// order), the others per owner; or, for a table whose maker keeps its slices in columns of its
// own (function_graph calls), read from there (SliceRowSource).
class SliceTable : public TrackTable, public SliceSink {
public:
    static constexpr uint32_t kNoId = ~uint32_t(0);
    // A slice as read back.
    struct View {
        uint64_t start = 0, end = 0;
        int64_t value = 0; // as stored: see valueFromEvent()
        uint32_t owner = 0;
        uint32_t label = 0;
        uint8_t depth = 0, flags = 0;
        EventRef startEvent, endEvent; // of an anchored slice
        bool anchored = false;
        // In a table read from a source: the slice's id there and its parent's (kNoId: none).
        uint32_t id = kNoId, parent = kNoId;
    };

    explicit SliceTable(SliceTableSpec spec);
    // The table's rows and labels are the source's (before any reader looks; it outlives the
    // table's readers). Its maker adds none through the sink.
    void readFrom(const SliceRowSource* source) { m_source = source; }
    const SliceRowSource* source() const { return m_source; }
    // An explicit row of `owner` as read back.
    static View viewOf(const SliceRow& r, uint32_t owner)
    {
        View v;
        v.start = r.start, v.end = r.end, v.value = r.value, v.owner = owner, v.label = r.label;
        v.depth = r.depth, v.flags = r.flags;
        return v;
    }
    uint32_t label(std::string_view text) override;
    void add(const Slice& slice) override;
    AnchoredSliceRows* anchoredRows() override;
    void publish(const OwnerOfEvent& ownerOf) override;
    size_t rows() const override;
    size_t memoryBytes() const override;

    const SliceTableSpec& spec() const { return m_spec; }
    size_t labelCount() const;
    const std::string& labelText(uint32_t id) const;
    // Owners below this may have slices.
    size_t owners() const;
    // Whether a slice's value is read from its end event (SliceTableSpec::valueField).
    bool valueFromEvent(const View& v) const { return v.anchored && !m_spec.valueField.empty(); }

    const OwnerRows<SliceRow>& explicitRows() const { return m_explicit; }
    // The anchored slices of a stream, their stretches in event order (no two overlap).
    const GrowingList<const AnchoredSlices*>* anchored(StreamId stream) const
    {
        return stream.value < m_anchored.size() ? m_anchored[stream.value].load(std::memory_order_acquire) : nullptr;
    }
    // Every slice of an owner: a task's anchored ones are those ending at its events (its
    // runs in `tasks`); a CPU's those of its stream. In no particular order.
    void forEachOf(uint32_t owner, const EventStore& store, const TaskIndex* tasks,
                   const std::function<void(const View&)>& visit) const;
    // Every slice, anchored ones stream by stream.
    void forEach(const EventStore& store, const TaskIndex* tasks, const std::function<void(const View&)>& visit) const;
    // The slices that began on a stream, whoever owns them (a CPU's flame chart of a task's
    // table): a source's whose first record was there, the anchored ones of the stream;
    // explicit rows name no stream. `owner` of each is the task's when the source knows it.
    void forEachOnStream(StreamId stream, const EventStore& store, const std::function<void(const View&)>& visit) const;
    // One slice of a table read from a source, by its id (its owner: kNoId); nullopt in
    // other tables or past the rows.
    std::optional<View> sliceById(uint32_t id) const;
    // The anchored slices ending at events [from, to) of `stream`.
    void forEachAnchored(const EventStore& store, StreamId stream, uint32_t from, uint32_t to, uint32_t owner,
                         const std::function<void(const View&)>& visit) const;

    // For StretchRows: the stretch's anchored slices placed in the stream.
    void stagePart(StreamId stream, std::unique_ptr<AnchoredSlices> part);
    // For StretchRows: a slice of the stretch that cannot be anchored, its events placed.
    void stageUnanchored(const Slice& slice);

private:
    struct Staged {
        Slice slice;
        bool ownerFromEvent = false;
    };
    // The stream's anchored slices being added outside a piece, in event order.
    struct OpenPart {
        std::unique_ptr<AnchoredSlices> part;
        uint32_t lastEnd = 0;
    };
    bool anchorable(const Slice& s) const;
    void addExplicit(const Slice& s, bool ownerFromEvent);
    void stageExplicit(uint32_t owner, const Slice& s);
    uint32_t reachedOf(StreamId stream) const; // the first event a new part may hold

    SliceTableSpec m_spec;
    const SliceRowSource* m_source = nullptr;
    std::mutex m_lock; // adds from several threads, labels
    std::unordered_map<std::string, uint32_t> m_labelIds;
    std::deque<std::string> m_labels;             // the writer's; never move
    GrowingList<const std::string*> m_labelTexts; // what readers read
    OwnerRows<SliceRow> m_explicit;
    std::vector<Staged> m_unresolved; // staged without an owner
    GrowingList<std::atomic<GrowingList<const AnchoredSlices*>*>> m_anchored; // per stream
    std::deque<GrowingList<const AnchoredSlices*>> m_anchoredLists;
    std::deque<std::unique_ptr<AnchoredSlices>> m_parts; // owned
    std::vector<std::pair<StreamId, std::unique_ptr<AnchoredSlices>>> m_stagedParts;
    std::unordered_map<uint16_t, OpenPart> m_open; // per stream, outside pieces
    std::vector<uint32_t> m_reached;               // per stream: events covered by published parts
    size_t m_staged = 0;
    std::atomic<size_t> m_rows{0};
};

// Slices kept by their maker in columns of its own, with ids and parents (function_graph
// calls: the call trees read the same columns): a SliceTable reads them through this, so that
// they are not held twice. Readers read what the maker published at the end of a batch.
class SliceRowSource {
public:
    virtual ~SliceRowSource() = default;
    // Owners below this may have slices.
    virtual size_t owners() const = 0;
    virtual size_t rows() const = 0;
    // The owner's slices, in the order they began (a slice before those it holds).
    virtual void forEachOf(uint32_t owner, const std::function<void(const SliceTable::View&)>& visit) const = 0;
    // The slices whose first record was on `stream`, in the order they began per owner.
    virtual void forEachOnStream(StreamId stream, const std::function<void(const SliceTable::View&)>& visit) const = 0;
    // One slice by its id, as forEachOf gives it but for the end of one not returned (owner: kNoId).
    virtual std::optional<SliceTable::View> slice(uint32_t id) const = 0;
    virtual size_t labelCount() const = 0;
    virtual const std::string& labelText(uint32_t label) const = 0;
    virtual size_t memoryBytes() const = 0;
};

// The rows the tables get from one stretch of one stream fed in pieces: the current thread's
// while a piece of the stretch is fed (StretchRows::Scope), so that a slice naming events by
// their index in the stretch is kept there; place() puts the stretch where it landed in the
// stream (the loading thread, in stream order and stretches in order).
class StretchRows {
public:
    explicit StretchRows(StreamId stream) : m_stream(stream) {}
    StreamId stream() const { return m_stream; }
    static StretchRows* current();
    class Scope {
    public:
        explicit Scope(StretchRows* rows);
        ~Scope();
        Scope(const Scope&) = delete;
        Scope& operator=(const Scope&) = delete;

    private:
        StretchRows* m_previous;
    };

    // SliceTable::add in a piece: false when the slice cannot be anchored here.
    bool addAnchored(SliceTable& table, const Slice& slice);
    void addUnanchored(SliceTable& table, const Slice& slice);
    // SliceTable::anchoredRows in a piece.
    AnchoredSliceRows& anchoredRows(SliceTable& table);
    // The stretch's events were `events`, from `firstIndex` of its stream.
    void place(uint32_t firstIndex, uint32_t events);

private:
    // A table's part, and the rows handed to a piece that adds to it directly.
    struct Part : AnchoredSliceRows {
        std::unique_ptr<AnchoredSlices> slices = std::make_unique<AnchoredSlices>();
        bool add(uint32_t end, uint32_t back, uint32_t label, uint8_t flags) override
        {
            return slices->append(end, back, label, flags, 0);
        }
    };
    Part& partOf(SliceTable& table);

    StreamId m_stream;
    std::vector<std::pair<SliceTable*, std::unique_ptr<Part>>> m_parts;
    std::vector<std::pair<SliceTable*, Slice>> m_unanchored;
};

// An analysis's track tables, in the order it declared them: the TableSink it is given.
class AnalysisTables : public TableSink {
public:
    IntervalSink& intervals(const IntervalTableSpec& spec) override;
    SliceSink& slices(const SliceTableSpec& spec) override;
    InstantSink& instants(const InstantTableSpec& spec) override;
    CounterSink& counters(const CounterTableSpec& spec) override;
    FlowSink& flows(const FlowTableSpec& spec) override;

    const std::vector<std::unique_ptr<TrackTable>>& tables() const { return m_tables; }
    const TrackTable* find(const std::string& key) const;
    void publish(const TrackTable::OwnerOfEvent& ownerOf);
    size_t memoryBytes() const;

private:
    std::vector<std::unique_ptr<TrackTable>> m_tables; // declared before any reader looks
};

} // namespace ringside
