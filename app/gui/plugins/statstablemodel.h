// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "plugin/statstext.h"

#include <QAbstractTableModel>

#include <memory>
#include <vector>

namespace ringside {

// An analysis's statistics table for a view, read in place (a table of 400k failed calls costs
// no item per cell), its cells shown by their kind: counts with separators, durations in one
// adaptive unit (the exact nanoseconds in the tooltip and in Copy), a task by its name beside
// its pid, an event as its time, errno names in red; numbers right-aligned and sorted by
// value. An event cell (and a row with one) goes to that very event (kJumpEvent).
class StatsTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    // kBar: a histogram cell's share of its column's largest value (0 to 1), drawn as a bar.
    // kJumpSpan: the interval the jump's event ends or begins (StatsTable::Column::spanKey), as
    // a list of two times (ns), when its duration is known.
    enum Role { kJumpEvent = Qt::UserRole + 1, kExact = Qt::UserRole + 2, kBar = Qt::UserRole + 3, kJumpSpan = Qt::UserRole + 4 };

    explicit StatsTableModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}
    // Shows table `index` of `tables` (kept alive here), its tasks and events named by
    // `context`; null empties the model.
    void setTable(std::shared_ptr<const std::vector<StatsTable>> tables, size_t index, StatsContext context,
                  bool timesInUsecs);
    const StatsTable* table() const { return m_table; }
    // The first column that names an event (a row goes there), or -1.
    int eventColumn() const { return m_eventColumn; }
    bool hasJumps() const { return m_eventColumn >= 0; }
    // The column drawn as bars (kBar), or -1.
    int barColumn() const { return m_barColumn; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

    // Header and rows in the view's order as tab-separated lines, exact values, for Copy.
    QString asTsv() const;

private:
    QString text(size_t row, size_t column) const;
    QString exact(size_t row, size_t column) const;

    std::shared_ptr<const std::vector<StatsTable>> m_tables;
    const StatsTable* m_table = nullptr;
    StatsContext m_context;
    bool m_usecs = false;
    std::vector<uint32_t> m_order; // view row -> table row
    int m_eventColumn = -1;
    int m_errnoColumn = -1;
    int m_barColumn = -1;
    double m_barMax = 0;
};

} // namespace ringside
