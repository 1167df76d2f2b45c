// SPDX-License-Identifier: GPL-2.0-or-later
#include "analysis/tracktables.h"

#include "analysis/countersummary.h"

#include "store/eventstore.h"
#include "store/taskindex.h"

#include <algorithm>
#include <bit>

namespace ringside {

// ---- AnchoredSlices

bool AnchoredSlices::append(uint32_t end, uint32_t back, uint32_t labelId, uint8_t flagBits, uint8_t depthValue)
{
    if (back > 0xffff || labelId > 0xffff || back > end + firstEvent) return false;
    const size_t word = end / 64;
    if (rows()) {
        // In event order, one slice per event.
        const size_t lastWord = bits.size() - 1;
        if (word < lastWord || (word == lastWord && (bits[word] >> (end % 64)) != 0)) return false;
    }
    if (bits.size() <= word) bits.resize(word + 1, 0);
    bits[word] |= uint64_t(1) << (end % 64);
    const auto row = uint32_t(rows());
    if (row % 64 == 0) {
        onesBefore.push_back(backIsOne.empty() ? 0 : onesBefore.back() + uint32_t(std::popcount(backIsOne.back())));
        backIsOne.push_back(0);
    }
    if (back == 1) {
        backIsOne.back() |= uint64_t(1) << (row % 64);
    } else {
        if (back >= kAside) wideBacks.emplace_back(row, uint16_t(back));
        otherBacks.push_back(uint8_t(std::min<uint32_t>(back, kAside)));
    }
    const uint8_t code = codeOf(uint16_t(labelId));
    if (code == kAside) wideLabels.emplace_back(row, uint16_t(labelId));
    labelCode.push_back(code);
    if (flagBits != (back ? 0 : Slice::kNoStart)) flagged.emplace_back(row, flagBits);
    if (depthValue && depth.empty()) depth.assign(rows() - 1, 0);
    if (!depth.empty()) depth.push_back(depthValue);
    return true;
}

uint8_t AnchoredSlices::codeOf(uint16_t labelId)
{
    if (!m_codes) m_codes = std::make_unique<Codes>();
    const uint32_t key = uint32_t(labelId) + 1;
    // At most 255 of 512 slots are taken: a probe ends soon.
    for (uint32_t at = (key * 40503u) >> 7 & 511;; at = (at + 1) & 511) {
        if (m_codes->keys[at] == key) return m_codes->codes[at];
        if (m_codes->keys[at] == 0) {
            if (palette.size() >= kAside) return kAside;
            m_codes->keys[at] = key;
            m_codes->codes[at] = uint8_t(palette.size());
            palette.push_back(labelId);
            return m_codes->codes[at];
        }
    }
}

uint16_t AnchoredSlices::aside(const std::vector<std::pair<uint32_t, uint16_t>>& list, size_t row)
{
    const auto it = std::lower_bound(list.begin(), list.end(), std::pair<uint32_t, uint16_t>(uint32_t(row), 0));
    return it != list.end() && it->first == row ? it->second : 0;
}

namespace {

// Spare capacity in the heap costs memory; a buffer of a megabyte and more has pages of its
// own (returnLargeBuffersWhenFreed), whose untouched tail is never resident, and copying it to
// its size would hold it twice for a moment: the peak of a load.
template <typename T>
void shrinkInHeap(std::vector<T>& v)
{
    if (v.capacity() * sizeof(T) < (size_t(1) << 20)) v.shrink_to_fit();
}

} // namespace

void AnchoredSlices::seal(uint32_t eventCount)
{
    events = eventCount;
    bits.resize((size_t(events) + 63) / 64, 0);
    rowsBefore.resize(bits.size());
    uint32_t before = 0;
    for (size_t w = 0; w < bits.size(); ++w) {
        rowsBefore[w] = before;
        before += uint32_t(std::popcount(bits[w]));
    }
    shrinkInHeap(bits);
    m_codes.reset();
    shrinkInHeap(backIsOne);
    shrinkInHeap(onesBefore);
    shrinkInHeap(otherBacks);
    shrinkInHeap(labelCode);
    shrinkInHeap(palette);
    shrinkInHeap(wideBacks);
    shrinkInHeap(wideLabels);
    shrinkInHeap(flagged);
    shrinkInHeap(depth);
}

size_t AnchoredSlices::rowsEndingBefore(uint32_t event) const
{
    if (event >= events) return rows();
    const size_t word = event / 64;
    const uint64_t below = (uint64_t(1) << (event % 64)) - 1;
    return rowsBefore[word] + size_t(std::popcount(bits[word] & below));
}

uint32_t AnchoredSlices::endOf(size_t row) const
{
    // The last word with fewer slices before it than `row` + 1, then the bit within it.
    const size_t word = size_t(std::upper_bound(rowsBefore.begin(), rowsBefore.end(), uint32_t(row)) -
                               rowsBefore.begin()) -
                        1;
    uint64_t w = bits[word];
    for (size_t k = row - rowsBefore[word]; k > 0; --k) w &= w - 1;
    return uint32_t(word * 64 + size_t(std::countr_zero(w)));
}

size_t AnchoredSlices::memoryBytes() const
{
    return bits.size() * 8 + rowsBefore.size() * 4 + backIsOne.size() * 8 + onesBefore.size() * 4 + otherBacks.size() +
           labelCode.size() + palette.size() * 2 + (wideBacks.size() + wideLabels.size()) * sizeof wideBacks[0] +
           flagged.size() * sizeof flagged[0] + depth.size() + sizeof *this;
}

AnchoredSlices::FlagWalk::FlagWalk(const AnchoredSlices& slices, size_t row)
    : m_slices(slices),
      m_next(size_t(std::lower_bound(slices.flagged.begin(), slices.flagged.end(), std::pair<uint32_t, uint8_t>(uint32_t(row), 0)) -
                    slices.flagged.begin()))
{}

uint8_t AnchoredSlices::FlagWalk::flags(size_t row)
{
    const auto& flagged = m_slices.flagged;
    while (m_next < flagged.size() && flagged[m_next].first < row) ++m_next;
    if (m_next < flagged.size() && flagged[m_next].first == row) return flagged[m_next].second;
    return m_slices.backOf(row) ? 0 : uint8_t(Slice::kNoStart);
}

// ---- Intervals, instants, counters, flows

IntervalTable::IntervalTable(IntervalTableSpec spec)
    : TrackTable(Kind::Intervals, spec.key, spec.title, spec.owner), m_spec(std::move(spec))
{}

void IntervalTable::add(uint64_t start, uint64_t end, uint32_t owner, uint32_t state)
{
    const std::lock_guard lock(m_lock);
    m_rows.stage(owner, {start, std::max(start, end), state});
    // A row from the open state's start on closes it.
    auto staged = m_stagedOpen.find(owner);
    const uint64_t openStart = staged != m_stagedOpen.end() ? staged->second.first
                               : owner < m_open.staged()    ? m_open[owner].start.load(std::memory_order_relaxed)
                                                            : kOpenEnd;
    if (openStart != kOpenEnd && start >= openStart) m_stagedOpen[owner] = {kOpenEnd, 0};
}

void IntervalTable::open(uint64_t start, uint32_t owner, uint32_t state)
{
    const std::lock_guard lock(m_lock);
    m_stagedOpen[owner] = {start, state};
}

void IntervalTable::publish(const OwnerOfEvent&)
{
    const std::lock_guard lock(m_lock);
    m_rows.publish();
    for (const auto& [owner, open] : m_stagedOpen) {
        while (m_open.staged() <= owner) m_open.stage();
        m_open[owner].state.store(open.second, std::memory_order_relaxed);
        m_open[owner].start.store(open.first, std::memory_order_release);
    }
    m_stagedOpen.clear();
    m_open.publish();
}

IntervalRow IntervalTable::openOf(uint32_t owner) const
{
    if (owner >= m_open.size()) return {0, 0, 0};
    const uint64_t start = m_open[owner].start.load(std::memory_order_acquire);
    if (start == kOpenEnd) return {0, 0, 0};
    return {start, kOpenEnd, m_open[owner].state.load(std::memory_order_relaxed)};
}

std::optional<IntervalRow> IntervalTable::rowAt(uint32_t owner, uint64_t from, uint64_t to) const
{
    if (const GrowingList<IntervalRow>* rows = m_rows.of(owner)) {
        const size_t k = rows->lowerBound(from + 1, 0, rows->size(), [](const IntervalRow& r) { return r.end; });
        // A later row: the open state, after every row, began later still.
        if (k < rows->size()) return (*rows)[k].start <= to ? std::optional<IntervalRow>((*rows)[k]) : std::nullopt;
    }
    const IntervalRow open = openOf(owner);
    return open.end && open.start <= to ? std::optional<IntervalRow>(open) : std::nullopt;
}

InstantTable::InstantTable(InstantTableSpec spec)
    : TrackTable(Kind::Instants, spec.key, spec.title, spec.owner), m_spec(std::move(spec))
{}

void InstantTable::add(uint64_t time, uint32_t owner, uint32_t label)
{
    const std::lock_guard lock(m_lock);
    m_rows.stage(owner, {time, label});
}

void InstantTable::publish(const OwnerOfEvent&)
{
    const std::lock_guard lock(m_lock);
    m_rows.publish();
}

CounterTable::CounterTable(CounterTableSpec spec)
    : TrackTable(Kind::Counters, spec.key, spec.title, spec.owner), m_spec(std::move(spec))
{}

void CounterTable::add(uint64_t time, uint32_t owner, int64_t value)
{
    const std::lock_guard lock(m_lock);
    m_rows.stage(owner, {time, value});
}

void CounterTable::publish(const OwnerOfEvent&)
{
    const std::lock_guard lock(m_lock);
    m_rows.publish();
}

CounterTable::~CounterTable() = default;

size_t CounterTable::memoryBytes() const
{
    size_t bytes = m_rows.memoryBytes();
    for (const auto& s : m_summaries)
        if (s) bytes += s->memoryBytes();
    return bytes;
}

void CounterTable::summarise()
{
    m_summaries.resize(m_rows.owners());
    for (uint32_t owner = 0; owner < m_rows.owners(); ++owner)
        if (const GrowingList<CounterRow>* lane = m_rows.of(owner); lane && !lane->empty()) {
            m_summaries[owner] = std::make_unique<CounterSummary>();
            m_summaries[owner]->update(*lane);
        }
}

const CounterSummary* CounterTable::summaryOf(uint32_t owner) const
{
    if (owner >= m_summaries.size() || !m_summaries[owner]) return nullptr;
    const GrowingList<CounterRow>* lane = m_rows.of(owner);
    return lane && lane->size() == m_summaries[owner]->rows() ? m_summaries[owner].get() : nullptr;
}

FlowTable::FlowTable(FlowTableSpec spec)
    : TrackTable(Kind::Flows, spec.key, spec.title, spec.owner), m_spec(std::move(spec))
{}

void FlowTable::add(uint64_t fromTime, uint32_t fromOwner, uint64_t toTime, uint32_t toOwner, int64_t value)
{
    const std::lock_guard lock(m_lock);
    m_flows.stage({fromTime, toTime, fromOwner, toOwner, value});
}

void FlowTable::publish(const OwnerOfEvent&)
{
    const std::lock_guard lock(m_lock);
    m_flows.publish();
}

// ---- Slices

SliceTable::SliceTable(SliceTableSpec spec)
    : TrackTable(Kind::Slices, spec.key, spec.title, spec.owner), m_spec(std::move(spec))
{}

uint32_t SliceTable::label(std::string_view text)
{
    const std::lock_guard lock(m_lock);
    auto found = m_labelIds.find(std::string(text));
    if (found != m_labelIds.end()) return found->second;
    const auto id = uint32_t(m_labels.size());
    m_labels.emplace_back(text);
    m_labelTexts.push_back(&m_labels.back());
    m_labelIds.emplace(m_labels.back(), id);
    return id;
}

const std::string& SliceTable::labelText(uint32_t id) const
{
    static const std::string none;
    if (m_source) return m_source->labelText(id);
    return id < m_labelTexts.size() ? *m_labelTexts[id] : none;
}

size_t SliceTable::labelCount() const
{
    return m_source ? m_source->labelCount() : m_labelTexts.size();
}

size_t SliceTable::rows() const
{
    return m_source ? m_source->rows() : m_rows.load(std::memory_order_acquire);
}

size_t SliceTable::owners() const
{
    return m_source ? std::max(m_source->owners(), m_explicit.owners()) : m_explicit.owners();
}

bool SliceTable::anchorable(const Slice& s) const
{
    // Its value, if it has one, must be the end event's (valueField): anchored slices keep none.
    if (!s.endEvent.valid() || (s.value != 0 && m_spec.valueField.empty())) return false;
    if (s.startEvent.valid() && (s.startEvent.stream != s.endEvent.stream || s.startEvent.index > s.endEvent.index))
        return false;
    return !(s.flags & Slice::kOpen);
}

AnchoredSliceRows* SliceTable::anchoredRows()
{
    StretchRows* stretch = StretchRows::current();
    return stretch ? &stretch->anchoredRows(*this) : nullptr;
}

void SliceTable::add(const Slice& slice)
{
    if (StretchRows* stretch = StretchRows::current()) {
        if (!anchorable(slice) || !stretch->addAnchored(*this, slice)) stretch->addUnanchored(*this, slice);
        return;
    }
    const std::lock_guard lock(m_lock);
    if (anchorable(slice)) {
        const StreamId stream = slice.endEvent.stream;
        OpenPart& open = m_open[stream.value];
        const uint32_t end = slice.endEvent.index;
        if (!open.part && end >= reachedOf(stream)) {
            open.part = std::make_unique<AnchoredSlices>();
            open.part->firstEvent = end;
        }
        if (open.part && end >= open.part->firstEvent) {
            const uint32_t back = slice.startEvent.valid() ? end - slice.startEvent.index : 0;
            const uint8_t flags = slice.startEvent.valid() ? slice.flags : uint8_t(slice.flags | Slice::kNoStart);
            if (open.part->append(end - open.part->firstEvent, back, slice.label, flags, slice.depth)) {
                open.lastEnd = end;
                ++m_staged;
                return;
            }
        }
    }
    addExplicit(slice, false);
}

void SliceTable::addExplicit(const Slice& s, bool ownerFromEvent)
{
    if (ownerFromEvent) {
        m_unresolved.push_back({s, true});
        ++m_staged;
        return;
    }
    stageExplicit(s.owner, s);
}

void SliceTable::stageExplicit(uint32_t owner, const Slice& s)
{
    if (m_explicit.stage(owner, {s.start, std::max(s.start, s.end), s.value, s.label, s.depth, s.flags})) ++m_staged;
}

uint32_t SliceTable::reachedOf(StreamId stream) const
{
    return stream.value < m_reached.size() ? m_reached[stream.value] : 0;
}

void SliceTable::stagePart(StreamId stream, std::unique_ptr<AnchoredSlices> part)
{
    const std::lock_guard lock(m_lock);
    m_staged += part->rows();
    // Slices added outside pieces never land in a stretch's range: parts do not overlap.
    if (m_reached.size() <= stream.value) m_reached.resize(stream.value + 1u, 0);
    m_reached[stream.value] = std::max(m_reached[stream.value], part->firstEvent + part->events);
    m_stagedParts.emplace_back(stream, std::move(part));
}

void SliceTable::stageUnanchored(const Slice& slice)
{
    const std::lock_guard lock(m_lock);
    addExplicit(slice, true);
}

void SliceTable::publish(const OwnerOfEvent& ownerOf)
{
    const std::lock_guard lock(m_lock);
    for (auto& [stream, open] : m_open) {
        if (!open.part) continue;
        open.part->seal(open.lastEnd - open.part->firstEvent + 1);
        m_stagedParts.emplace_back(StreamId(stream), std::move(open.part));
    }
    m_open.clear();
    std::stable_sort(m_stagedParts.begin(), m_stagedParts.end(), [](const auto& a, const auto& b) {
        return a.first.value != b.first.value ? a.first.value < b.first.value
                                              : a.second->firstEvent < b.second->firstEvent;
    });
    for (auto& [stream, part] : m_stagedParts) {
        while (m_anchored.staged() <= stream.value) m_anchored.stage();
        GrowingList<const AnchoredSlices*>* list = m_anchored[stream.value].load(std::memory_order_relaxed);
        if (!list) {
            list = &m_anchoredLists.emplace_back();
            m_anchored[stream.value].store(list, std::memory_order_release);
        }
        if (m_reached.size() <= stream.value) m_reached.resize(stream.value + 1u, 0);
        m_reached[stream.value] = std::max(m_reached[stream.value], part->firstEvent + part->events);
        m_parts.push_back(std::move(part));
        list->push_back(m_parts.back().get());
    }
    m_stagedParts.clear();
    m_anchored.publish();
    std::vector<Staged> later;
    for (const Staged& s : m_unresolved) {
        // The task of its last recorded event (an open call has only its start).
        const Slice& v = s.slice;
        const EventRef at = v.endEvent.valid() ? v.endEvent : v.startEvent;
        const std::optional<uint32_t> owner = ownerOf && at.valid() ? ownerOf(at) : std::optional<uint32_t>(v.owner);
        if (!owner) {
            later.push_back(s);
            continue;
        }
        --m_staged; // counted when staged unresolved
        stageExplicit(*owner, v);
    }
    m_unresolved = std::move(later);
    m_explicit.publish();
    m_rows.store(m_staged, std::memory_order_release);
}

size_t SliceTable::memoryBytes() const
{
    size_t bytes = m_explicit.memoryBytes() + (m_source ? m_source->memoryBytes() : 0);
    for (size_t s = 0; s < m_anchored.size(); ++s)
        if (const auto* list = anchored(StreamId(uint16_t(s))))
            for (size_t p = 0; p < list->size(); ++p) bytes += (*list)[p]->memoryBytes();
    return bytes;
}

void SliceTable::forEachAnchored(const EventStore& store, StreamId stream, uint32_t from, uint32_t to, uint32_t owner,
                                 const std::function<void(const View&)>& visit) const
{
    const GrowingList<const AnchoredSlices*>* list = anchored(stream);
    if (!list || from >= to || stream.value >= store.streamCount()) return;
    const CpuColumns& columns = store.stream(stream).columns;
    const size_t parts = list->size();
    // The first stretch that ends after `from`.
    size_t p = list->lowerBound(from + 1, 0, parts, [](const AnchoredSlices* a) { return a->firstEvent + a->events; });
    for (; p < parts; ++p) {
        const AnchoredSlices& part = *(*list)[p];
        if (part.firstEvent >= to) break;
        const uint32_t begin = std::max(from, part.firstEvent) - part.firstEvent;
        const uint32_t end = std::min<uint64_t>(to, uint64_t(part.firstEvent) + part.events) - part.firstEvent;
        size_t row = part.rowsEndingBefore(begin);
        AnchoredSlices::FlagWalk flags(part, row);
        for (size_t word = begin / 64; word * 64 < end; ++word) {
            uint64_t bits = part.bits[word];
            if (word == begin / 64) bits &= ~((uint64_t(1) << (begin % 64)) - 1);
            if ((word + 1) * 64 > end) bits &= (end % 64) ? (uint64_t(1) << (end % 64)) - 1 : ~uint64_t(0);
            for (; bits; bits &= bits - 1, ++row) {
                const uint32_t at = part.firstEvent + uint32_t(word * 64 + size_t(std::countr_zero(bits)));
                View v;
                v.anchored = true;
                v.owner = owner;
                v.endEvent = {stream, at};
                v.end = columns.timestamp[at];
                v.label = part.labelOf(row);
                v.flags = flags.flags(row);
                v.depth = part.depth.empty() ? 0 : part.depth[row];
                if (const uint16_t back = part.backOf(row)) {
                    v.startEvent = {stream, at - back};
                    v.start = columns.timestamp[at - back];
                } else {
                    v.start = v.end;
                }
                visit(v);
            }
        }
    }
}

void SliceTable::forEachOf(uint32_t owner, const EventStore& store, const TaskIndex* tasks,
                           const std::function<void(const View&)>& visit) const
{
    if (m_source) m_source->forEachOf(owner, visit);
    if (const GrowingList<SliceRow>* rows = m_explicit.of(owner))
        for (size_t i = 0, n = rows->size(); i < n; ++i) {
            visit(viewOf((*rows)[i], owner));
        }
    if (spec().owner == RowOwner::Cpu) {
        const StreamId stream{static_cast<uint16_t>(owner)};
        if (stream.value < store.streamCount())
            forEachAnchored(store, stream, 0, uint32_t(store.stream(stream).columns.size()), owner, visit);
        return;
    }
    // A task's anchored slices end at its events.
    if (!tasks || owner >= tasks->size()) return;
    tasks->forEachRun(TaskId(owner), [&](StreamId stream, uint32_t begin, uint32_t end) {
        forEachAnchored(store, stream, begin, end, owner, visit);
    });
}

void SliceTable::forEachOnStream(StreamId stream, const EventStore& store,
                                 const std::function<void(const View&)>& visit) const
{
    if (m_source) m_source->forEachOnStream(stream, visit);
    if (stream.value < store.streamCount())
        forEachAnchored(store, stream, 0, uint32_t(store.stream(stream).columns.size()),
                        spec().owner == RowOwner::Cpu ? stream.value : kNoId, visit);
}

std::optional<SliceTable::View> SliceTable::sliceById(uint32_t id) const
{
    if (!m_source) return std::nullopt;
    return m_source->slice(id);
}

void SliceTable::forEach(const EventStore& store, const TaskIndex* tasks,
                         const std::function<void(const View&)>& visit) const
{
    if (m_source)
        for (uint32_t owner = 0; owner < m_source->owners(); ++owner) m_source->forEachOf(owner, visit);
    for (uint32_t owner = 0; owner < m_explicit.owners(); ++owner)
        if (const GrowingList<SliceRow>* rows = m_explicit.of(owner))
            for (size_t i = 0, n = rows->size(); i < n; ++i) {
                visit(viewOf((*rows)[i], owner));
            }
    for (size_t s = 0; s < m_anchored.size() && s < store.streamCount(); ++s) {
        const StreamId stream(static_cast<uint16_t>(s));
        const CpuColumns& columns = store.stream(stream).columns;
        // The task of each slice's end event: the same as the last one's while the pid is.
        int32_t lastPid = -1;
        uint64_t lastUntil = 0;
        uint32_t lastTask = 0;
        forEachAnchored(store, stream, 0, uint32_t(columns.size()), uint32_t(s), [&](const View& anchored) {
            if (spec().owner == RowOwner::Cpu || !tasks) return visit(anchored);
            View v = anchored;
            const int32_t pid = columns.pid[v.endEvent.index];
            if (pid != lastPid || v.end >= lastUntil) {
                const TaskId task = tasks->taskAt(pid, v.end);
                lastPid = pid;
                lastTask = task.value;
                lastUntil = tasks->nextLifeAfter(pid, v.end);
            }
            v.owner = lastTask;
            visit(v);
        });
    }
}

// ---- Stretches fed in pieces

namespace {
thread_local StretchRows* t_stretch = nullptr;
} // namespace

StretchRows* StretchRows::current()
{
    return t_stretch;
}

StretchRows::Scope::Scope(StretchRows* rows) : m_previous(t_stretch)
{
    t_stretch = rows;
}

StretchRows::Scope::~Scope()
{
    t_stretch = m_previous;
}

StretchRows::Part& StretchRows::partOf(SliceTable& table)
{
    auto it = std::find_if(m_parts.begin(), m_parts.end(), [&](const auto& p) { return p.first == &table; });
    if (it == m_parts.end()) {
        m_parts.emplace_back(&table, std::make_unique<Part>());
        it = m_parts.end() - 1;
    }
    return *it->second;
}

bool StretchRows::addAnchored(SliceTable& table, const Slice& slice)
{
    if (slice.endEvent.stream != m_stream) return false;
    const uint32_t end = slice.endEvent.index;
    const uint32_t back = slice.startEvent.valid() ? end - slice.startEvent.index : 0;
    const uint8_t flags = slice.startEvent.valid() ? slice.flags : uint8_t(slice.flags | Slice::kNoStart);
    return partOf(table).slices->append(end, back, slice.label, flags, slice.depth);
}

AnchoredSliceRows& StretchRows::anchoredRows(SliceTable& table)
{
    return partOf(table);
}

void StretchRows::addUnanchored(SliceTable& table, const Slice& slice)
{
    m_unanchored.emplace_back(&table, slice);
}

void StretchRows::place(uint32_t firstIndex, uint32_t events)
{
    for (auto& [table, part] : m_parts) {
        part->slices->firstEvent = firstIndex;
        part->slices->seal(events);
        table->stagePart(m_stream, std::move(part->slices));
    }
    m_parts.clear();
    for (auto& [table, slice] : m_unanchored) {
        // Its events, named by their index in the stretch, placed in the stream.
        if (slice.startEvent.valid() && slice.startEvent.stream == m_stream) slice.startEvent.index += firstIndex;
        if (slice.endEvent.valid() && slice.endEvent.stream == m_stream) slice.endEvent.index += firstIndex;
        table->stageUnanchored(slice);
    }
    m_unanchored.clear();
}

// ---- An analysis's tables

IntervalSink& AnalysisTables::intervals(const IntervalTableSpec& spec)
{
    m_tables.push_back(std::make_unique<IntervalTable>(spec));
    return static_cast<IntervalTable&>(*m_tables.back());
}

SliceSink& AnalysisTables::slices(const SliceTableSpec& spec)
{
    m_tables.push_back(std::make_unique<SliceTable>(spec));
    return static_cast<SliceTable&>(*m_tables.back());
}

InstantSink& AnalysisTables::instants(const InstantTableSpec& spec)
{
    m_tables.push_back(std::make_unique<InstantTable>(spec));
    return static_cast<InstantTable&>(*m_tables.back());
}

CounterSink& AnalysisTables::counters(const CounterTableSpec& spec)
{
    m_tables.push_back(std::make_unique<CounterTable>(spec));
    return static_cast<CounterTable&>(*m_tables.back());
}

FlowSink& AnalysisTables::flows(const FlowTableSpec& spec)
{
    m_tables.push_back(std::make_unique<FlowTable>(spec));
    return static_cast<FlowTable&>(*m_tables.back());
}

const TrackTable* AnalysisTables::find(const std::string& key) const
{
    for (const auto& t : m_tables)
        if (t->key() == key) return t.get();
    return nullptr;
}

void AnalysisTables::publish(const TrackTable::OwnerOfEvent& ownerOf)
{
    for (const auto& t : m_tables) t->publish(ownerOf);
}

size_t AnalysisTables::memoryBytes() const
{
    size_t bytes = 0;
    for (const auto& t : m_tables) bytes += t->memoryBytes();
    return bytes;
}

} // namespace ringside
