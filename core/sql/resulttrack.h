// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "analysis/tracktables.h"
#include "sql/recordingsql.h"

#include <memory>
#include <string>
#include <vector>

namespace ringside {
class Trace;
}

namespace ringside::sql {

// What a query's result can be on the timeline, from its column names: slices when it has
// `ts` and `dur`, a counter when it has `ts` and `value`; on the row of the task in `utid`, or
// of `tid`/`pid` at that time, or of the CPU in `cpu`; a counter with none of those is the
// recording's own. `name` labels the slices, `depth` nests them.
struct TrackShape {
    enum class Kind { None, Slices, Counter };
    Kind kind = Kind::None;
    RowOwner owner = RowOwner::Task;
    int ts = -1, dur = -1, value = -1, utid = -1, pid = -1, cpu = -1, name = -1, depth = -1;
    std::string why; // for None: what is missing
};
TrackShape trackShape(const std::vector<std::string>& columns);

// The query that plots a number field of one event type as a counter (its SQL kept as a query
// track's): per task (`utid`), per CPU (the CPU that recorded each event) or one line for the
// recording, the field's value at each event of the type. Empty when the recording has no
// events of the type.
std::string fieldCounterQuery(const Trace& trace, uint16_t type, const std::string& field, RowOwner owner);

// A ResultSink that makes a track table of the first statement's result, row by row (the whole
// result, however long: only the table holds it). Rows without a time or an owner it can place
// are counted, not drawn.
class ResultTrack : public ResultSink {
public:
    ResultTrack(const Trace& trace, std::string key, std::string title);
    void columns(const std::vector<std::string>& names) override;
    bool row(const std::vector<Value>& values) override;
    // The table, published; null when the result has no track shape (error() says why).
    std::unique_ptr<AnalysisTables> take();
    const std::string& error() const { return m_shape.why; }
    size_t rows() const { return m_rows; }
    size_t skipped() const { return m_skipped; }
    // The tasks the rows are on (utids), for the rows to show.
    const std::vector<uint32_t>& tasks() const { return m_tasks; }

private:
    uint32_t ownerOf(const std::vector<Value>& values, uint64_t ts);

    const Trace& m_trace;
    std::string m_key, m_title;
    TrackShape m_shape;
    bool m_started = false;
    std::unique_ptr<AnalysisTables> m_tables;
    SliceSink* m_slices = nullptr;
    CounterSink* m_counter = nullptr;
    size_t m_rows = 0, m_skipped = 0;
    struct CounterValue {
        uint32_t owner = 0;
        uint64_t time = 0;
        int64_t value = 0;
    };
    std::vector<CounterValue> m_counterRows; // sorted when taken
    std::vector<uint32_t> m_tasks;
    std::vector<bool> m_taskSeen;
};

} // namespace ringside::sql
