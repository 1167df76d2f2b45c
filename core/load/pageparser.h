// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "load/timestampconverter.h"
#include "store/cpucolumns.h"
#include "store/recordtap.h"

#include <cstdint>
#include <string>
#include <vector>

struct kbuffer;

namespace ringside {

// Where the common fields sit in every event record (from the event formats).
struct CommonLayout {
    int typeOffset = 0, typeSize = 2;
    int flagsOffset = 2, preemptOffset = 3;
    int pidOffset = 4, pidSize = 4;
    int minSize = 8;
};

// What one CPU's load counted beside the events themselves.
struct CpuLoadStats {
    uint64_t pages = 0;
    uint64_t emptyPages = 0;
    uint64_t corruptPages = 0;
    uint64_t shortRecords = 0;
    uint64_t backwardsTimestamps = 0;
    uint64_t unreadablePages = 0;
    std::string firstProblem;

    void add(const CpuLoadStats& o)
    {
        pages += o.pages;
        emptyPages += o.emptyPages;
        corruptPages += o.corruptPages;
        shortRecords += o.shortRecords;
        backwardsTimestamps += o.backwardsTimestamps;
        unreadablePages += o.unreadablePages;
        if (firstProblem.empty()) firstProblem = o.firstProblem;
    }
};

// Parses ring-buffer pages with libtraceevent's kbuffer and appends their events to one CPU's
// columns. The same code serves file pages and live trace_pipe_raw pages. One per thread.
class PageParser {
public:
    PageParser(int kernelLongSize, bool bigEndian, const CommonLayout& layout, const TimestampConverter& converter,
               int cpu);
    ~PageParser();
    PageParser(const PageParser&) = delete;
    PageParser& operator=(const PageParser&) = delete;

    // `page` must be readable for pageSize + PageSource::kPadding bytes. Counts each event's
    // type in perType (65536 entries).
    void parse(const uint8_t* page, uint32_t pageSize, CpuColumns& out, CpuLoadStats& stats, uint64_t* perType);

    // Copies the tapped fields of matching records into `out` (one column per tap) from now on,
    // and gives those of `feed` taps to `sink`.
    void setTaps(const std::vector<RecordTap>* taps, std::vector<TapColumn>* out, RecordSink* sink = nullptr);
    // The sink of the next stretch (a capture's pages come stretch after stretch).
    void setSink(RecordSink* sink) { m_sink = sink; }

    // Checks a page header before kbuffer trusts it; false if its sizes are impossible.
    static bool headerIsSane(const uint8_t* page, uint32_t pageSize, int kernelLongSize, bool bigEndian);

private:
    kbuffer* m_kbuf = nullptr;
    int m_longSize;
    bool m_bigEndian;
    CommonLayout m_layout;
    const TimestampConverter& m_converter;
    int m_cpu;
    uint64_t m_lastTimestamp = 0;
    const std::vector<RecordTap>* m_taps = nullptr;
    std::vector<TapColumn>* m_tapOut = nullptr;
    std::vector<int16_t> m_tapOfType; // event type -> tap index, or -1
    std::vector<size_t> m_tapBytes;   // per tap: bytesPerHit()
    RecordSink* m_sink = nullptr;
    std::vector<SinkRecord> m_sinkRecords; // the page's, given to m_sink after its parse
};

} // namespace ringside
