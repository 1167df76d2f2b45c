// SPDX-License-Identifier: GPL-2.0-or-later
#include "load/pageparser.h"

#include <algorithm>
#include <cstring>

#include "file/ringpage.h"
#include "util/bytereader.h"

#include "util/kbuffer.h"

namespace ringside {

PageParser::PageParser(int kernelLongSize, bool bigEndian, const CommonLayout& layout,
                       const TimestampConverter& converter, int cpu)
    : m_longSize(kernelLongSize), m_bigEndian(bigEndian), m_layout(layout), m_converter(converter), m_cpu(cpu)
{
    m_kbuf = kbuffer_alloc(kernelLongSize == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
                           bigEndian ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
}

PageParser::~PageParser()
{
    kbuffer_free(m_kbuf);
}

bool PageParser::headerIsSane(const uint8_t* page, uint32_t pageSize, int longSize, bool bigEndian)
{
    return ringpage::headerIsSane(page, pageSize, longSize, bigEndian);
}

void PageParser::setTaps(const std::vector<RecordTap>* taps, std::vector<TapColumn>* out, RecordSink* sink)
{
    m_taps = taps;
    m_tapOut = out;
    m_sink = sink;
    m_tapOfType.assign(65536, -1);
    if (!taps) return;
    out->resize(taps->size());
    m_tapBytes.clear();
    for (size_t t = 0; t < taps->size(); ++t) {
        m_tapOfType[(*taps)[t].eventType] = static_cast<int16_t>(t);
        m_tapBytes.push_back((*taps)[t].bytesPerHit());
    }
}

void PageParser::parse(const uint8_t* page, uint32_t pageSize, CpuColumns& out, CpuLoadStats& stats, uint64_t* perType)
{
    ++stats.pages;
    out.pageFirstEvent.push_back(static_cast<uint32_t>(out.timestamp.size()));
    if (!headerIsSane(page, pageSize, m_longSize, m_bigEndian)) {
        ++stats.corruptPages;
        if (stats.firstProblem.empty()) stats.firstProblem = "a page has an impossible commit size";
        return;
    }
    // kbuffer takes a non-const pointer but only reads.
    if (kbuffer_load_subbuffer(m_kbuf, const_cast<uint8_t*>(page)) < 0) {
        ++stats.corruptPages;
        return;
    }
    const size_t before = out.timestamp.size();
    // The page's sink records are written in place: a record built aside and pushed (narrow
    // stores read back as wide loads) stalled on every one of them.
    size_t sinkCount = 0;
    const auto sinkSlot = [&]() -> SinkRecord& {
        if (sinkCount == m_sinkRecords.size()) m_sinkRecords.resize(std::max<size_t>(64, sinkCount * 2));
        return m_sinkRecords[sinkCount++];
    };
    unsigned long long raw = 0;
    int lastOffset = -1;
    for (void* data = kbuffer_read_event(m_kbuf, &raw); data; data = kbuffer_next_event(m_kbuf, &raw)) {
        const int size = kbuffer_event_size(m_kbuf);
        const int offset = kbuffer_curr_offset(m_kbuf);
        // A damaged length can send kbuffer backwards, round the same records forever.
        if (offset <= lastOffset) {
            ++stats.corruptPages;
            if (stats.firstProblem.empty()) stats.firstProblem = "a page's records loop back on themselves";
            break;
        }
        lastOffset = offset;
        if (!recordIsStored(size, data, page, pageSize, m_layout.minSize)) {
            ++stats.shortRecords;
            continue;
        }
        const uint64_t ts = m_converter.convert(raw, m_cpu);
        const int missed = kbuffer_missed_events(m_kbuf);
        if (missed != 0) {
            out.lost.push_back({static_cast<uint32_t>(out.timestamp.size()), missed});
            if (missed > 0)
                out.lostTotal += static_cast<uint64_t>(missed);
            else
                ++out.unknownLostPages;
            if (m_sink) {
                SinkRecord& mark = sinkSlot();
                mark = SinkRecord();
                mark.timestamp = ts;
                mark.lost = true;
            }
        }
        const auto* rec = static_cast<const uint8_t*>(data);
        const int bytes = recordBytesInPage(size, data, page, pageSize);
        if (ts < m_lastTimestamp) ++stats.backwardsTimestamps;
        m_lastTimestamp = ts;
        const auto type =
            static_cast<uint16_t>(ByteReader::decode(rec + m_layout.typeOffset, m_layout.typeSize, m_bigEndian));
        const auto index = static_cast<uint32_t>(out.timestamp.size());
        const auto pid =
            static_cast<int32_t>(ByteReader::decode(rec + m_layout.pidOffset, m_layout.pidSize, m_bigEndian));
        out.push_back(ts, type, pid, rec[m_layout.flagsOffset], rec[m_layout.preemptOffset]);
        ++perType[type];
        if (m_taps && m_tapOfType[type] >= 0) {
            const size_t tapIndex = static_cast<size_t>(m_tapOfType[type]);
            const RecordTap& tap = (*m_taps)[tapIndex];
            if (tap.keep) {
                uint8_t* at = (*m_tapOut)[tapIndex].append(m_tapBytes[tapIndex]); // zeroed
                for (const auto& [offset, width] : tap.fields) {
                    // Whole fields at once; bytes past a short record stay zeros.
                    const int have = std::clamp(bytes - offset, 0, width);
                    if (have > 0) std::memcpy(at, rec + offset, size_t(have));
                    at += width;
                }
            }
            if (tap.feed && m_sink) {
                SinkRecord& fed = sinkSlot();
                fed.record = rec;
                fed.recordBytes = bytes;
                fed.tap = uint32_t(tapIndex);
                fed.index = index;
                fed.timestamp = ts;
                fed.pid = pid;
                fed.flags = rec[m_layout.flagsOffset];
                fed.lost = false;
            }
        }
    }
    if (sinkCount != 0) m_sink->records(m_sinkRecords.data(), sinkCount);
    out.publish(); // the page's events, every column written
    if (out.size() == before) ++stats.emptyPages;
}

} // namespace ringside
