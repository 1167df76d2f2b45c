// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "sql/recordingsql.h"

#include <QAbstractTableModel>

#include <optional>
#include <vector>

namespace ringside {

// A query's result as the pane got it: the columns, the first kMaxRows rows and how many there
// were in all. Numbers right-aligned with their digits grouped; NULL greyed; times (ts, ts_end,
// *_ts, at) in seconds as the event table shows them and durations (dur, *_dur, latency, *_ns)
// with their unit, each with its raw value in the tooltip (copies and exports keep the raw
// values).
struct QueryResult {
    static constexpr size_t kMaxRows = 200000;
    std::vector<std::string> columns;
    std::vector<std::vector<sql::Value>> rows;
    size_t totalRows = 0;
    int column(const char* name) const; // -1 when absent
};

class QueryResultModel : public QAbstractTableModel {
    Q_OBJECT
public:
    using QAbstractTableModel::QAbstractTableModel;
    void setResult(QueryResult result);
    // Whether the recording's times are nanoseconds (else a counter's ticks, shown as counts).
    void setNanoseconds(bool nanoseconds) { m_nanoseconds = nanoseconds; }
    enum class Format : uint8_t { Plain, Grouped, Time, Duration };
    // How a column of this name is shown.
    static Format formatOf(const std::string& column);
    const QueryResult& result() const { return m_result; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
    // Whether the column holds numbers (and nothing but numbers and NULLs), for a histogram.
    bool isNumeric(int column) const;

private:
    QueryResult m_result;
    std::vector<Format> m_formats; // per column
    bool m_nanoseconds = true;
};

} // namespace ringside
