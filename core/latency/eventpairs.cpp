// SPDX-License-Identifier: GPL-2.0-or-later
#include "latency/eventpairs.h"

#include "store/blocklist.h"

#include <cstdio>
#include <cstring>
#include <exception>
#include <thread>
#include <tuple>

namespace ringside {

void PairMatcher::open(Slot& slot, uint64_t time, EventRef event)
{
    if (!slot.open) {
        slot.open = true;
        ++m_openKeys;
    } else if (m_nesting) {
        slot.below.push_back(slot.start);
        ++m_nestedBelow;
    } else {
        ++m_replaced; // the kernel's histograms keep the latest start of a key too
    }
    slot.start = {time, event};
}

void PairMatcher::endOf(uint32_t number, uint64_t time, EventRef event)
{
    if (number == KeyIndex::kNone || !m_slots[number].open) {
        ++m_unmatchedEnds;
        return;
    }
    Slot& slot = m_slots[number];
    m_pairs.start.push_back(slot.start.time);
    m_pairs.duration.push_back(time >= slot.start.time ? time - slot.start.time : 0);
    m_pairs.group.push_back(slot.group);
    m_pairs.startEvent.push_back(slot.start.event);
    m_pairs.endEvent.push_back(event);
    if (slot.below.empty()) {
        slot.open = false;
        --m_openKeys;
        return;
    }
    slot.start = slot.below.back();
    slot.below.pop_back();
    --m_nestedBelow;
}

void PairMatcher::noteBoundaryEnd(std::string_view key, uint64_t time, EventRef event)
{
    if (m_boundaryKeys.findOrAdd(key).second) m_boundaryEnds.push_back({std::string(key), m_pairs.size(), time, event});
}

void PairMatcher::append(const PairMatcher& later, const std::vector<uint32_t>& laterGroup)
{
    // Later's first record of a key open here: an end closes it (a pair where that end came),
    // a start replaces it. Either way later's state of the key is the one that holds.
    struct Closing {
        size_t at;
        Start start;
        uint32_t group;
        uint64_t time;
        EventRef event;
    };
    std::vector<Closing> closings;
    uint64_t carried = 0; // keys open here that later goes on with
    for (const BoundaryEnd& b : later.m_boundaryEnds) {
        const uint32_t number = m_keys.find(b.key);
        if (number == KeyIndex::kNone || !m_slots[number].open) continue;
        Slot& slot = m_slots[number];
        closings.push_back({b.at, slot.start, slot.group, b.time, b.event});
        slot.open = false;
        ++carried;
    }
    later.m_keys.forEach([&](std::string_view key, uint32_t) {
        const uint32_t number = m_keys.find(key);
        if (number == KeyIndex::kNone || !m_slots[number].open) return;
        m_slots[number].open = false;
        ++m_replaced;
        ++carried;
    });
    m_openKeys = m_openKeys - carried + later.m_openKeys;
    m_replaced += later.m_replaced;
    m_unmatchedEnds += later.m_unmatchedEnds - closings.size();

    const Pairs& from = later.m_pairs;
    const size_t total = m_pairs.size() + from.size() + closings.size();
    if (m_pairs.duration.capacity() < total) reserve(total, false);
    // Each column is later's with the closings' rows at their places; the events' columns on a
    // thread of their own (hundreds of megabytes are copied, into pages faulted as they are).
    auto merge = [&closings](auto& into, const auto& column, auto rowOf) {
        size_t done = 0;
        for (const Closing& c : closings) {
            into.insert(into.end(), column.begin() + ptrdiff_t(done), column.begin() + ptrdiff_t(c.at));
            into.push_back(rowOf(c));
            done = c.at;
        }
        into.insert(into.end(), column.begin() + ptrdiff_t(done), column.end());
    };
    std::exception_ptr eventsFailed;
    std::thread events([&] {
        try {
            merge(m_pairs.startEvent, from.startEvent, [](const Closing& c) { return c.start.event; });
            merge(m_pairs.endEvent, from.endEvent, [](const Closing& c) { return c.event; });
        } catch (...) {
            eventsFailed = std::current_exception();
        }
    });
    try {
        merge(m_pairs.start, from.start, [](const Closing& c) { return c.start.time; });
        merge(m_pairs.duration, from.duration,
              [](const Closing& c) { return c.time >= c.start.time ? c.time - c.start.time : 0; });
        const size_t groupsBefore = m_pairs.group.size();
        merge(m_pairs.group, from.group, [](const Closing& c) { return c.group; });
        // Later's groups in this one's numbers (the closings' already are).
        size_t next = 0;
        for (size_t row = groupsBefore, i = 0; row < m_pairs.group.size(); ++row) {
            if (next < closings.size() && closings[next].at == i) {
                ++next;
                continue;
            }
            m_pairs.group[row] = laterGroup[m_pairs.group[row]];
            ++i;
        }
    } catch (...) {
        events.join();
        throw;
    }
    events.join();
    if (eventsFailed) std::rethrow_exception(eventsFailed);
}

void PairMatcher::reserve(size_t count, bool populate)
{
    if (!populate) {
        m_pairs.start.reserve(count);
        m_pairs.duration.reserve(count);
        m_pairs.group.reserve(count);
        m_pairs.startEvent.reserve(count);
        m_pairs.endEvent.reserve(count);
        return;
    }
    // Committed at once: faulted a page at a time, millions of pairs spent a tenth of their
    // matching there.
    reservePopulated(m_pairs.start, count);
    reservePopulated(m_pairs.duration, count);
    reservePopulated(m_pairs.group, count);
    reservePopulated(m_pairs.startEvent, count);
    reservePopulated(m_pairs.endEvent, count);
}

bool PairMatcher::isOpen(std::string_view key) const
{
    const uint32_t number = m_keys.find(key);
    return number != KeyIndex::kNone && m_slots[number].open;
}

void PairMatcher::finish()
{
    if (m_finished) return;
    // Far fewer pairs than reserved (starts and ends of different keys): the room given back.
    if (m_pairs.size() < m_pairs.duration.capacity() / 2) {
        m_pairs.start.shrink_to_fit();
        m_pairs.duration.shrink_to_fit();
        m_pairs.group.shrink_to_fit();
        m_pairs.startEvent.shrink_to_fit();
        m_pairs.endEvent.shrink_to_fit();
    }
    m_openAtEnd = openStarts();
    m_finished = true;
}

namespace {

// "system/event" split; a bare name has no system.
std::pair<std::string, std::string> splitEvent(const std::string& name)
{
    const size_t slash = name.find('/');
    if (slash == std::string::npos) return {std::string(), name};
    return {name.substr(0, slash), name.substr(slash + 1)};
}

void appendKeyBytes(KeyBytes& key, const TypedValue& v)
{
    if (v.isText()) {
        key.append(v.asText());
        key.append(std::string_view("", 1));
        return;
    }
    key.appendWord(v.asUnsigned());
}

std::string groupLabelOf(const TypedValue& v)
{
    if (v.isText()) return std::string(v.asText());
    char text[32];
    if (v.isSigned())
        std::snprintf(text, sizeof text, "%lld", static_cast<long long>(v.asSigned()));
    else if (v.asUnsigned() > UINT32_MAX) // an address: as the kernel prints it
        std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(v.asUnsigned()));
    else
        std::snprintf(text, sizeof text, "%llu", static_cast<unsigned long long>(v.asUnsigned()));
    return text;
}

} // namespace

EventPairs::EventPairs(PairSpec spec) : m_spec(std::move(spec)), m_matcher(m_spec.nesting) {}

std::vector<EventRequest> EventPairs::requests() const
{
    EventRequest from, to;
    std::tie(from.system, from.event) = splitEvent(m_spec.from);
    std::tie(to.system, to.event) = splitEvent(m_spec.to);
    for (const auto& [start, end] : m_spec.fields) {
        from.fields.push_back(start);
        to.fields.push_back(end);
    }
    if (!sameEvent()) return {from, to};
    // One request: each record is an end (its end fields), then a start (its start fields).
    from.fields.insert(from.fields.end(), to.fields.begin(), to.fields.end());
    return {from};
}

bool EventPairs::sameEvent() const
{
    return m_spec.from == m_spec.to;
}

bool EventPairs::sameKeyFields() const
{
    for (const auto& [start, end] : m_spec.fields)
        if (start != end) return false;
    return true;
}

void EventPairs::bind(const std::vector<bool>& bound)
{
    m_unbound.clear();
    const char* sides[] = {"start", "end"};
    const std::string* names[] = {&m_spec.from, &m_spec.to};
    for (size_t i = 0; i < 2; ++i) {
        const size_t request = sameEvent() ? 0 : i;
        if (request < bound.size() && bound[request]) continue;
        if (sameEvent() && i == 1) break; // said once
        if (sameEvent()) {
            std::string fields;
            for (const auto& pair : m_spec.fields) {
                for (const std::string* f : {&pair.first, &pair.second})
                    if (fields.find(*f) == std::string::npos) fields += (fields.empty() ? "" : ", ") + *f;
            }
            m_unbound = "the event " + m_spec.from + " is not in the recording" +
                        (fields.empty() ? std::string() : " (or has no field " + fields + ")");
            break;
        }
        std::string fields;
        for (const auto& pair : m_spec.fields) fields += (fields.empty() ? "" : ", ") + (i ? pair.second : pair.first);
        if (!m_unbound.empty()) m_unbound += "; ";
        m_unbound += "the " + std::string(sides[i]) + " event " + *names[i] + " is not in the recording" +
                     (fields.empty() ? std::string() : " (or has no field " + fields + ")");
    }
}

void EventPairs::setStreams(const std::vector<StreamInfo>& streams)
{
    m_cpus.clear();
    for (const StreamInfo& s : streams) m_cpus.push_back(s.cpu);
    m_lastStart.resize(streams.size());
}

void EventPairs::startKey(int32_t pid, TaskId task, StreamId stream)
{
    m_key.clear();
    if (m_spec.sameTask) m_key.appendWord(task.valid() ? task.value : uint32_t(pid));
    if (m_spec.sameCpu) m_key.appendWord(stream.value);
}

void EventPairs::makeKey(const ConsumedRecord& record, size_t firstValue, size_t values)
{
    startKey(record.pid, record.task, record.stream);
    for (size_t f = firstValue; f < firstValue + values; ++f) appendKeyBytes(m_key, record.field(f));
}

void EventPairs::consume(const ConsumedRecord& record)
{
    if (sameEvent()) return consumeAs(record, true, true);
    const EventRef event{record.stream, record.index};
    const bool isStart = record.request == 0;
    makeKey(record, 0, m_spec.fields.size());
    if (!isStart) return endPair(record.timestamp, event);
    startPair(record.timestamp, event, record.pid, [&record](size_t f) { return record.field(f); });
}

void EventPairs::consumeNumbers(const NumberRecord& record)
{
    startKey(record.pid, record.task, record.event.stream);
    const size_t fields = m_spec.fields.size();
    for (size_t f = 0; f < fields; ++f) {
        uint64_t bits;
        std::memcpy(&bits, record.values + f * sizeof bits, sizeof bits);
        m_key.appendWord(bits);
    }
    if (record.isEnd) return endPair(record.timestamp, record.event);
    startPair(record.timestamp, record.event, record.pid, [&record](size_t f) {
        uint64_t bits;
        std::memcpy(&bits, record.values + f * sizeof bits, sizeof bits);
        return TypedValue::number(bits, record.isSigned[f], sizeof bits);
    });
}

void EventPairs::append(const EventPairs& later)
{
    // Later's groups are numbered here in the order later made them: new ones after these,
    // as one matcher fed both would have numbered them.
    std::vector<std::string> keys(later.m_groupLabels.size());
    later.m_groups.forEach([&keys](std::string_view key, uint32_t number) { keys[number] = std::string(key); });
    std::vector<uint32_t> groupHere(keys.size());
    for (size_t g = 0; g < keys.size(); ++g) {
        const auto [number, added] = m_groups.findOrAdd(keys[g]);
        if (added) m_groupLabels.push_back(later.m_groupLabels[g]);
        groupHere[g] = number;
    }
    m_matcher.append(later.m_matcher, groupHere);
    m_seen[0] += later.m_seen[0];
    m_seen[1] += later.m_seen[1];
}

void EventPairs::endPair(uint64_t time, EventRef event)
{
    ++m_seen[1];
    if (event.stream.value < m_lastStart.size()) {
        const LastStart& last = m_lastStart[event.stream.value];
        if (last.number != KeyIndex::kNone && last.key == m_key) return m_matcher.endOf(last.number, time, event);
    }
    m_matcher.end(m_key.view(), time, event);
}

void EventPairs::consumeAs(const ConsumedRecord& record, bool asEnd, bool asStart)
{
    // Both sides at once: the record closes the open start of its end key (the previous
    // record of a key, or a task switched out that this switch runs), then opens its own.
    // The first record of a key has nothing to close when both keys are the same fields and
    // every record is both: not an unmatched end.
    const size_t fields = m_spec.fields.size();
    const EventRef event{record.stream, record.index};
    if (asEnd) {
        ++m_seen[1];
        makeKey(record, fields, fields);
        if (!(asStart && sameKeyFields()) || m_matcher.isOpen(m_key.view()))
            m_matcher.end(m_key.view(), record.timestamp, event);
    }
    if (asStart) {
        makeKey(record, 0, fields);
        startPair(record.timestamp, event, record.pid, [&record](size_t f) { return record.field(f); });
    }
}

template <typename ValueOf>
void EventPairs::startPair(uint64_t time, EventRef event, int32_t pid, ValueOf&& valueOf)
{
    ++m_seen[0];
    const size_t fields = m_spec.fields.size();
    const size_t fieldsAt = keyFieldsAt();
    const std::string_view key = m_key.view();
    // The group, once per key: the matched values, else the task or CPU the key names.
    const uint32_t number = m_matcher.start(key, time, event, [&] {
        std::string_view groupKey = key.substr(fieldsAt);
        if (fields == 0) groupKey = key;
        const auto [group, added] = m_groups.findOrAdd(groupKey);
        if (!added) return group;
        std::string label;
        for (size_t f = 0; f < fields; ++f) label += (f ? ", " : "") + groupLabelOf(valueOf(f));
        if (fields == 0) {
            if (m_spec.sameTask)
                label = std::to_string(pid);
            else if (m_spec.sameCpu)
                label = std::to_string(event.stream.value < m_cpus.size() ? m_cpus[event.stream.value] : 0);
            else
                label = "all";
        }
        m_groupLabels.push_back(std::move(label));
        return group;
    });
    if (event.stream.value < m_lastStart.size()) {
        LastStart& last = m_lastStart[event.stream.value];
        last.key = m_key;
        last.number = number;
    }
}

size_t EventPairs::keyFieldsAt() const
{
    return (m_spec.sameTask ? sizeof(uint64_t) : 0) + (m_spec.sameCpu ? sizeof(uint64_t) : 0);
}

void EventPairs::finish()
{
    m_matcher.finish();
}

std::string EventPairs::nothingPaired() const
{
    if (!m_unbound.empty()) return m_unbound;
    if (m_matcher.pairs().size()) return {};
    std::string missing;
    if (!m_seen[0]) missing = m_spec.from;
    if (!m_seen[1]) missing += (missing.empty() ? "" : " nor ") + m_spec.to;
    return missing.empty() ? std::string() : "the recording holds no " + missing + " events";
}

std::string EventPairs::groupTitle() const
{
    std::string title;
    for (const auto& pair : m_spec.fields) title += (title.empty() ? "" : ", ") + pair.first;
    if (!title.empty()) return title;
    if (m_spec.sameTask) return "pid";
    if (m_spec.sameCpu) return "cpu";
    return "all";
}

} // namespace ringside
