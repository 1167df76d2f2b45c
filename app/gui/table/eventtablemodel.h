// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "query/eventfilter.h"
#include "state/tracesession.h"

#include <QAbstractTableModel>

namespace ringside {

// The event table: a virtual model over the merged order (it never copies rows; every cell
// is read from the store and formatted when asked). Rows are merged-order rows, or the
// members of a filter's row set.
class EventTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Index, Cpu, Time, Task, Pid, Latency, Event, Info, ColumnCount };

    explicit EventTableModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}

    void setSession(const TraceSession* session);
    // Shows only the rows of `filter` (nullptr: every row).
    void setFilter(std::shared_ptr<const FilterResult> filter);
    const FilterResult* filter() const { return m_filter.get(); }
    // A live capture published more rows: they are inserted at the end (unfiltered).
    void storeGrew();
    // Tasks got their names (a capture names them as they appear): the Task cells read anew.
    void taskNamesChanged();
    std::shared_ptr<const FilterResult> sharedFilter() const { return m_filter; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    EventRef eventAt(int row) const;
    int rowOf(EventRef event) const;
    // One row as text, the columns separated by tabs (for copying).
    QString rowText(int row) const;
    static QString formatTime(uint64_t ns, bool nanoseconds);
    // The text of one cell (any column but Index), as the table shows it. Needs no model, so
    // the search can read cells on its worker thread.
    static QString cellText(const TraceSession& session, EventRef event, int column);

private:
    size_t storeRow(int row) const;

    const TraceSession* m_session = nullptr;
    std::shared_ptr<const FilterResult> m_filter;
    size_t m_rows = 0; // unfiltered: the store's rows the views know of
};

} // namespace ringside
