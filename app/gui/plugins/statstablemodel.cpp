// SPDX-License-Identifier: GPL-2.0-or-later
#include "plugins/statstablemodel.h"

#include "plugin/statstext.h"
#include "table/eventtablemodel.h"

#include <QColor>

#include <algorithm>
#include <numeric>
#include <optional>

namespace ringside {

namespace {

// A number cell's value, or nothing for text and counts.
std::optional<double> numberOf(const StatsTable::Cell& cell)
{
    if (const auto* v = std::get_if<int64_t>(&cell)) return double(*v);
    if (const auto* v = std::get_if<uint64_t>(&cell)) return double(*v);
    if (const auto* v = std::get_if<double>(&cell)) return *v;
    return std::nullopt;
}

} // namespace

void StatsTableModel::setTable(const StatsTable* table, bool timesInUsecs)
{
    beginResetModel();
    m_table = table;
    m_usecs = timesInUsecs;
    m_order.clear();
    m_isTime.clear();
    m_pidOf.clear();
    m_timeColumn = m_errnoColumn = -1;
    m_jumps = false;
    if (table) {
        m_order.resize(table->rows.size());
        std::iota(m_order.begin(), m_order.end(), 0u);
        const size_t columns = table->columns.size();
        m_isTime.assign(columns, false);
        m_pidOf.assign(columns, -1);
        auto columnOf = [&](const std::string& key) {
            for (size_t c = 0; c < columns; ++c)
                if (table->columns[c].key == key) return int(c);
            return -1;
        };
        const int pidColumn = columnOf("pid");
        m_errnoColumn = columnOf("errno");
        for (size_t c = 0; c < columns; ++c) {
            const std::string& key = table->columns[c].key;
            if (key == "time") {
                m_timeColumn = int(c);
                m_isTime[c] = true;
                m_pidOf[c] = pidColumn;
            } else if (key.size() > 3 && key.compare(key.size() - 3, 3, "_at") == 0) {
                const int own = columnOf(key.substr(0, key.size() - 3) + "_pid");
                m_pidOf[c] = own >= 0 ? own : pidColumn;
                m_isTime[c] = true;
            }
            m_jumps |= m_pidOf[c] >= 0;
        }
    }
    endResetModel();
}

int StatsTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_table ? 0 : int(m_order.size());
}

int StatsTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_table ? 0 : int(m_table->columns.size());
}

const StatsTable::Cell* StatsTableModel::cell(int row, int column) const
{
    if (!m_table || row < 0 || size_t(row) >= m_order.size() || column < 0) return nullptr;
    const auto& cells = m_table->rows[m_order[size_t(row)]];
    return size_t(column) < cells.size() ? &cells[size_t(column)] : nullptr;
}

QString StatsTableModel::text(int row, int column) const
{
    const StatsTable::Cell* c = cell(row, column);
    if (!c) return {};
    if (m_isTime[size_t(column)])
        if (const auto* t = std::get_if<uint64_t>(c)) return *t ? EventTableModel::formatTime(*t, m_usecs) : QString();
    return QString::fromStdString(cellText(*c));
}

QVariant StatsTableModel::data(const QModelIndex& index, int role) const
{
    const StatsTable::Cell* c = cell(index.row(), index.column());
    if (!c) return {};
    const size_t column = size_t(index.column());
    switch (role) {
    case Qt::DisplayRole: return text(index.row(), index.column());
    case Qt::TextAlignmentRole: return numberOf(*c) ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    case Qt::ForegroundRole:
        return index.column() == m_errnoColumn && !cellText(*c).empty() ? QVariant(QColor(0xc0, 0x1c, 0x28))
                                                                        : QVariant();
    case Qt::UserRole: {
        if (const auto* v = std::get_if<int64_t>(c)) return qlonglong(*v);
        if (const auto* v = std::get_if<uint64_t>(c)) return qulonglong(*v);
        if (const auto* v = std::get_if<double>(c)) return *v;
        return {};
    }
    case kJumpTime:
    case kJumpPid: {
        const int pid = m_pidOf[column];
        const auto* time = std::get_if<uint64_t>(c);
        if (pid < 0 || !time || !*time) return {};
        if (role == kJumpTime) return qulonglong(*time);
        const StatsTable::Cell* p = cell(index.row(), pid);
        const auto* v = p ? std::get_if<int64_t>(p) : nullptr;
        return v ? QVariant(qlonglong(*v)) : QVariant();
    }
    case Qt::ToolTipRole: return data(index, kJumpTime).isValid() ? tr("Double-click to go to this event") : QVariant();
    default: return {};
    }
}

QVariant StatsTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || !m_table || section < 0 ||
        size_t(section) >= m_table->columns.size())
        return {};
    if (section == m_timeColumn) return tr("Time (s)");
    QString title = QString::fromStdString(m_table->columns[size_t(section)].title);
    if (m_isTime[size_t(section)]) title += tr(" (s)");
    return title;
}

void StatsTableModel::sort(int column, Qt::SortOrder order)
{
    if (!m_table || column < 0 || size_t(column) >= m_table->columns.size()) return;
    emit layoutAboutToBeChanged();
    // The persistent indexes (the view's selection and current row) follow their rows.
    const QModelIndexList before = persistentIndexList();
    std::vector<uint32_t> rowsBefore;
    for (const QModelIndex& i : before) rowsBefore.push_back(m_order[size_t(i.row())]);
    const auto& rows = m_table->rows;
    const size_t k = size_t(column);
    auto less = [&](uint32_t a, uint32_t b) {
        const auto& ra = rows[a];
        const auto& rb = rows[b];
        if (k >= ra.size() || k >= rb.size()) return ra.size() < rb.size();
        const auto na = numberOf(ra[k]), nb = numberOf(rb[k]);
        if (na && nb) return *na < *nb;
        const auto* ta = std::get_if<std::string>(&ra[k]);
        const auto* tb = std::get_if<std::string>(&rb[k]);
        if (ta && tb) return *ta < *tb;
        return cellText(ra[k]) < cellText(rb[k]);
    };
    std::stable_sort(m_order.begin(), m_order.end(),
                     [&](uint32_t a, uint32_t b) { return order == Qt::AscendingOrder ? less(a, b) : less(b, a); });
    std::vector<uint32_t> position(m_order.size());
    for (size_t r = 0; r < m_order.size(); ++r) position[m_order[r]] = uint32_t(r);
    QModelIndexList after;
    for (size_t i = 0; i < size_t(before.size()); ++i)
        after << index(int(position[rowsBefore[i]]), before[int(i)].column());
    changePersistentIndexList(before, after);
    emit layoutChanged();
}

QString StatsTableModel::asTsv() const
{
    QStringList lines;
    QStringList header;
    for (int c = 0; c < columnCount(); ++c) header << headerData(c, Qt::Horizontal).toString();
    lines << header.join('\t');
    for (int r = 0; r < rowCount(); ++r) {
        QStringList cells;
        for (int c = 0; c < columnCount(); ++c) cells << text(r, c);
        lines << cells.join('\t');
    }
    return lines.join('\n') + '\n';
}

} // namespace ringside
