// SPDX-License-Identifier: GPL-2.0-or-later
#include "load/storeappender.h"

#include "store/timemerge.h"

#include <algorithm>
#include <limits>
#include <span>
#include <unordered_map>
#include <utility>

namespace ringside {

StoreAppender::StoreAppender(EventStore& store, CommLookup comms) : m_store(store), m_comms(std::move(comms))
{
    if (m_store.m_typeCounts.empty()) m_store.m_typeCounts.assign(65536, 0);
    while (m_store.m_order.streamCount() < m_store.m_streams.size()) m_store.m_order.addStream();
    m_advanced.assign(m_store.m_streams.size(), 0);
}

StreamId StoreAppender::addStream(uint16_t buffer, int cpu, std::unique_ptr<PageSource> pages)
{
    auto stream = std::make_unique<Stream>();
    stream->buffer = buffer;
    stream->cpu = cpu;
    stream->columns.cpu = cpu;
    stream->pages = std::move(pages);
    m_store.m_streams.push_back(std::move(stream));
    m_store.m_streamTable.push_back(m_store.m_streams.back().get());
    const StreamId id(static_cast<uint16_t>(m_store.m_streams.size() - 1));
    if (buffer < m_store.m_buffers.size()) m_store.m_buffers[buffer].streams.push_back(id);
    m_store.m_order.addStream();
    m_advanced.push_back(0);
    return id;
}

void StoreAppender::append(StreamId id, CpuColumns&& segment)
{
    CpuColumns& columns = m_store.m_streams[id.value]->columns;
    const size_t from = columns.size();
    columns.append(std::move(segment));
    counted(columns, from, true);
}

void StoreAppender::appendBatch(StreamId id, CpuColumns& batch)
{
    CpuColumns& columns = m_store.m_streams[id.value]->columns;
    const size_t from = columns.size();
    columns.appendBatch(batch);
    counted(columns, from, true);
}

void StoreAppender::appendCounted(StreamId id, CpuColumns&& segment)
{
    CpuColumns& columns = m_store.m_streams[id.value]->columns;
    const size_t from = columns.size();
    columns.append(std::move(segment));
    counted(columns, from, false);
}

void StoreAppender::addTypeCounts(const std::vector<uint64_t>& perType)
{
    for (size_t t = 0; t < perType.size() && t < m_store.m_typeCounts.size(); ++t)
        if (perType[t])
            std::atomic_ref<uint64_t>(m_store.m_typeCounts[t]).fetch_add(perType[t], std::memory_order_relaxed);
}

void StoreAppender::counted(const CpuColumns& columns, size_t from, bool types)
{
    TaskTable& tasks = m_store.m_tasks;
    // Counted per segment, then handed to the task table at once (it locks for readers). The
    // columns are codes of each block's distinct values: counted by code, then by value.
    std::unordered_map<int32_t, uint64_t> perPid;
    std::vector<int32_t> firstSeen; // pids in order of first appearance
    // A run's codes counted, then `each(code, count)` in order of first appearance.
    std::vector<uint64_t> perCode;
    std::vector<uint16_t> codesSeen;
    auto countCodes = [&](std::span<const uint16_t> codes, auto&& each) {
        for (const uint16_t code : codes) {
            if (code >= perCode.size()) perCode.resize(code + size_t(1), 0);
            if (perCode[code]++ == 0) codesSeen.push_back(code);
        }
        for (const uint16_t code : codesSeen) each(code, std::exchange(perCode[code], 0));
        codesSeen.clear();
    };
    const size_t end = columns.size();
    for (size_t i = from; i < end;) {
        const size_t block = i >> DictionaryColumn<int32_t>::kBlockBits;
        const std::span<const uint16_t> codes = columns.pid.codes(i, end);
        countCodes(codes, [&](uint16_t code, uint64_t count) {
            const int32_t pid = columns.pid.valueOf(block, code);
            auto [it, added] = perPid.try_emplace(pid, 0);
            if (added) firstSeen.push_back(pid);
            it->second += count;
        });
        if (types)
            countCodes(columns.shapes.codes(i, i + codes.size()), [&](uint16_t code, uint64_t count) {
                const auto type = static_cast<uint16_t>(columns.shapes.valueOf(block, code));
                std::atomic_ref<uint64_t>(m_store.m_typeCounts[type]).fetch_add(count, std::memory_order_relaxed);
            });
        i += codes.size();
    }
    for (int32_t pid : firstSeen)
        if (!tasks.find(pid).valid()) tasks.intern(pid, m_comms ? m_comms(pid) : std::string("<...>"));
    tasks.addEvents(perPid);
}

void StoreAppender::advance(StreamId stream, uint64_t upTo)
{
    if (stream.value < m_advanced.size()) m_advanced[stream.value] = std::max(m_advanced[stream.value], upTo);
}

size_t StoreAppender::publish(bool final, int threads, bool sorted)
{
    MergedOrder& order = m_store.m_order;
    const size_t before = order.size();
    const size_t streams = m_store.m_streams.size();
    if (final && before == 0 && threads > 1) {
        // Everything at once into an empty order, before anyone reads it (a recording): merged
        // in pieces.
        std::vector<const TimestampColumn*> columns;
        for (const auto& stream : m_store.m_streams) columns.push_back(&stream->columns.timestamp);
        MergedOrder::mergeStreams(columns, sorted, threads, order);
        const size_t rows = order.size();
        if (rows) {
            m_store.m_first.store(m_store.timestamp(order.eventAt(0)), std::memory_order_release);
            m_store.m_last.store(m_store.timestamp(order.eventAt(rows - 1)), std::memory_order_release);
            if (m_store.m_growth) m_store.m_growth(rows);
        }
        return rows;
    }
    // The time every stream has reached; a stream that never had data nor was advanced does
    // not hold the others back.
    uint64_t watermark = std::numeric_limits<uint64_t>::max();
    if (!final)
        for (size_t s = 0; s < streams; ++s) {
            const CpuColumns& c = m_store.m_streams[s]->columns;
            const uint64_t reached = std::max(c.size() ? c.timestamp[c.size() - 1] : 0, m_advanced[s]);
            if (reached) watermark = std::min(watermark, reached);
        }
    const auto& counts = order.countsPerStream();
    const uint64_t lastPublished = before ? m_store.lastTimestamp() : 0;
    std::vector<size_t> next(streams), end(streams);
    for (uint16_t s = 0; s < streams; ++s) {
        const auto& ts = m_store.m_streams[s]->columns.timestamp;
        const size_t available = m_store.m_streams[s]->columns.size();
        next[s] = counts[s];
        // Strictly before the watermark: a later event of a lower-numbered stream may still
        // share the watermark's timestamp and must come first.
        end[s] = final ? available : std::max(next[s], ts.lowerBound(watermark, next[s], available));
        // Events older than rows already published can only follow them.
        if (before && next[s] < end[s]) m_lateEvents += ts.lowerBound(lastPublished, next[s], end[s]) - next[s];
    }
    uint64_t first = before ? m_store.firstTimestamp() : std::numeric_limits<uint64_t>::max();
    uint64_t last = lastPublished;
    mergeByTime(
        streams,
        [&](uint32_t s, uint64_t& ts) {
            if (next[s] >= end[s]) return false;
            ts = m_store.m_streams[s]->columns.timestamp[next[s]++];
            return true;
        },
        [&](uint32_t s, uint64_t ts) {
            first = std::min(first, ts);
            last = std::max(last, ts);
            order.append(StreamId(static_cast<uint16_t>(s)));
            return true;
        });
    const size_t added = order.size() - before;
    if (added) {
        m_store.m_first.store(first, std::memory_order_release);
        m_store.m_last.store(last, std::memory_order_release);
    }
    if (final && m_lateEvents && !m_lateReported) {
        m_store.m_diagnostics.warn("late-events",
                                   std::to_string(m_lateEvents) +
                                       " events arrived after later events were shown; they follow them in the table",
                                   m_lateEvents);
        m_lateReported = true;
    }
    if (added && m_store.m_growth) m_store.m_growth(order.size());
    return added;
}

} // namespace ringside
