// SPDX-License-Identifier: GPL-2.0-or-later
#include "load/storeappender.h"

#include "load/storebuilder.h"

#include <algorithm>
#include <limits>

namespace ringside {

StoreAppender::StoreAppender(EventStore& store, CommLookup comms)
    : m_store(store), m_comms(std::move(comms))
{
    if (m_store.m_typeCounts.empty()) m_store.m_typeCounts.assign(65536, 0);
    if (m_store.m_order.streamCount() != m_store.m_streams.size())
        m_store.m_order.setStreamCount(m_store.m_streams.size());
}

StreamId StoreAppender::addStream(uint16_t buffer, int cpu, std::unique_ptr<PageSource> pages)
{
    StoreBuilder builder(m_store);
    builder.addStream(buffer, cpu, std::move(pages));
    const StreamId id(static_cast<uint16_t>(m_store.m_streams.size() - 1));
    if (buffer < m_store.m_buffers.size()) m_store.m_buffers[buffer].streams.push_back(id);
    // Existing rows keep their streams; the checkpoints gain a count for the new stream.
    MergedOrder grown(m_store.m_streams.size());
    for (size_t row = 0; row < m_store.m_order.size(); ++row) grown.append(m_store.m_order.streamAt(row));
    m_store.m_order = std::move(grown);
    return id;
}

void StoreAppender::append(StreamId id, CpuColumns&& segment)
{
    Stream& stream = *m_store.m_streams[id.value];
    CpuColumns& columns = stream.columns;
    const size_t from = columns.size();
    if (from && segment.size() && segment.timestamp[0] < columns.timestamp.back()) m_needsRebuild = true;
    if (segment.size() && m_store.m_order.size() &&
        segment.timestamp[0] < m_store.m_last) {
        m_lateEvents += segment.size();
        m_needsRebuild = true;
    }
    columns.append(std::move(segment));
    TaskTable& tasks = m_store.m_tasks;
    for (size_t i = from; i < columns.size(); ++i) {
        ++m_store.m_typeCounts[columns.eventType[i]];
        const int32_t pid = columns.pid[i];
        TaskId task = tasks.find(pid);
        if (!task.valid()) task = tasks.intern(pid, m_comms ? m_comms(pid) : std::string("<...>"));
        ++tasks[task].events;
    }
}

size_t StoreAppender::publish(bool final)
{
    MergedOrder& order = m_store.m_order;
    const size_t before = order.size();
    if (final && m_needsRebuild) {
        std::vector<const ChunkedColumn<uint64_t>*> columns;
        for (const auto& s : m_store.m_streams) columns.push_back(&s->columns.timestamp);
        StoreBuilder::mergeStreams(columns, false, 1, order);
        m_needsRebuild = false;
    } else {
        uint64_t watermark = std::numeric_limits<uint64_t>::max();
        if (!final)
            for (const auto& s : m_store.m_streams)
                if (s->columns.size()) watermark = std::min(watermark, s->columns.timestamp.back());
        struct Head {
            uint64_t ts;
            uint16_t stream;
            size_t index, end;
        };
        auto after = [](const Head& a, const Head& b) { return a.ts != b.ts ? a.ts > b.ts : a.stream > b.stream; };
        std::vector<Head> heap;
        const auto& counts = order.countsPerStream();
        for (uint16_t s = 0; s < m_store.m_streams.size(); ++s) {
            const auto& ts = m_store.m_streams[s]->columns.timestamp;
            const size_t begin = counts[s];
            // Strictly before the watermark: a later event of a lower-numbered stream may still
            // share the watermark's timestamp and must come first.
            const size_t end = final ? ts.size() : ts.lowerBound(watermark, begin, ts.size());
            if (begin < end) heap.push_back({ts[begin], s, begin, end});
        }
        std::make_heap(heap.begin(), heap.end(), after);
        while (!heap.empty()) {
            std::pop_heap(heap.begin(), heap.end(), after);
            Head& h = heap.back();
            order.append(StreamId(h.stream));
            if (++h.index < h.end) {
                h.ts = m_store.m_streams[h.stream]->columns.timestamp[h.index];
                std::push_heap(heap.begin(), heap.end(), after);
            } else {
                heap.pop_back();
            }
        }
    }
    if (order.size()) {
        m_store.m_first = m_store.timestamp(m_store.eventAt(0));
        m_store.m_last = m_store.timestamp(m_store.eventAt(order.size() - 1));
    }
    return order.size() - before;
}

} // namespace ringside
