// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "plugin/plugintables.h"

#include <QAbstractTableModel>

#include <vector>

namespace ringside {

// A plugin's statistics table for a view, read in place (a table of 400k failed calls costs
// no item per cell): cells as text, numbers right-aligned and sorted by value, errno names in
// red. A "time" column places the row's event (with its "pid"); a column "X_at" is the time of
// another event of the row (a maximum), of task "X_pid" or else "pid": such cells carry the
// event to go to (kJumpTime, kJumpPid).
class StatsTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Role { kJumpTime = Qt::UserRole + 1, kJumpPid = Qt::UserRole + 2 };

    explicit StatsTableModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}
    // `table` outlives the model's use of it (the session owns it); null empties the model.
    void setTable(const StatsTable* table, bool timesInUsecs);
    int timeColumn() const { return m_timeColumn; }
    bool hasJumps() const { return m_jumps; }
    // Whether a row as a whole places an event (its time and its task).
    bool rowsJump() const { return m_timeColumn >= 0 && m_pidOf[size_t(m_timeColumn)] >= 0; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

    // Header and rows in the view's order as tab-separated lines, for Copy.
    QString asTsv() const;

private:
    const StatsTable::Cell* cell(int row, int column) const;
    QString text(int row, int column) const;

    const StatsTable* m_table = nullptr;
    bool m_usecs = false;
    std::vector<uint32_t> m_order; // view row -> table row
    std::vector<bool> m_isTime;
    std::vector<int> m_pidOf; // per time column: its task's column
    int m_timeColumn = -1;
    int m_errnoColumn = -1;
    bool m_jumps = false;
};

} // namespace ringside
