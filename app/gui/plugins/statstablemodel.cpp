// SPDX-License-Identifier: GPL-2.0-or-later
#include "plugins/statstablemodel.h"

#include "table/eventtablemodel.h"
#include "timeline/timelinemath.h"

#include <QColor>
#include <QLocale>

#include <algorithm>
#include <numeric>

namespace ringside {

using Kind = StatsTable::Kind;

namespace {

bool barKind(Kind kind)
{
    return kind == Kind::Count || kind == Kind::Number || kind == Kind::Duration;
}

} // namespace

void StatsTableModel::setTable(std::shared_ptr<const std::vector<StatsTable>> tables, size_t index,
                               StatsContext context, bool timesInUsecs)
{
    beginResetModel();
    m_tables = std::move(tables);
    m_table = m_tables && index < m_tables->size() ? &(*m_tables)[index] : nullptr;
    m_context = std::move(context);
    m_usecs = timesInUsecs;
    m_order.clear();
    m_eventColumn = m_errnoColumn = m_barColumn = -1;
    m_barMax = 0;
    if (m_table) {
        const int bars = m_table->barColumn;
        if (bars >= 0 && size_t(bars) < m_table->columns.size() && barKind(m_table->columns[size_t(bars)].kind)) {
            m_barColumn = bars;
            for (int64_t n : m_table->columns[size_t(bars)].numbers) m_barMax = std::max(m_barMax, double(n));
        }
        m_order.resize(m_table->rows());
        std::iota(m_order.begin(), m_order.end(), 0u);
        for (size_t c = 0; c < m_table->columns.size(); ++c) {
            if (m_table->columns[c].kind == Kind::Event && m_eventColumn < 0) m_eventColumn = int(c);
            if (m_table->columns[c].key == "errno") m_errnoColumn = int(c);
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

QString StatsTableModel::text(size_t row, size_t column) const
{
    const StatsTable::Column& c = m_table->columns[column];
    const size_t r = m_order[row];
    switch (c.kind) {
    case Kind::Count: return QLocale().toString(qulonglong(c.numbers[r]));
    case Kind::Duration:
        return c.numbers[r] == StatsTable::kUnknown ? QStringLiteral("—") : timeline::formatDuration(c.numbers[r]);
    case Kind::Event: {
        if (c.numbers[r] == StatsTable::kUnknown || !m_context.eventTime) return QStringLiteral("—");
        return EventTableModel::formatTime(m_context.eventTime(StatsTable::eventOf(c.numbers[r])), m_usecs);
    }
    case Kind::Task:
        if (c.numbers[r] == StatsTable::kUnknown) return QStringLiteral("—");
        return QString::fromStdString(cellText(*m_table, column, r, m_context));
    case Kind::Counts: {
        // "ENOENT 13,599, EAGAIN 12": the counts read as the Count columns do.
        QStringList parts;
        for (const auto& [name, n] : c.counts[r])
            parts << QStringLiteral("%1 %2").arg(QString::fromStdString(name), QLocale().toString(qlonglong(n)));
        return parts.isEmpty() ? QStringLiteral("—") : parts.join(QStringLiteral(", "));
    }
    default: return QString::fromStdString(cellText(*m_table, column, r, m_context));
    }
}

QString StatsTableModel::exact(size_t row, size_t column) const
{
    const StatsTable::Column& c = m_table->columns[column];
    const size_t r = m_order[row];
    if (c.kind == Kind::Duration && c.numbers[r] != StatsTable::kUnknown)
        return QStringLiteral("%1 ns").arg(QLocale().toString(qlonglong(c.numbers[r])));
    if (c.kind == Kind::Event) return text(row, column);
    return QString::fromStdString(cellText(*m_table, column, r, m_context));
}

QVariant StatsTableModel::data(const QModelIndex& index, int role) const
{
    if (!m_table || index.row() < 0 || size_t(index.row()) >= m_order.size() || index.column() < 0 ||
        size_t(index.column()) >= m_table->columns.size())
        return {};
    const size_t row = size_t(index.row()), column = size_t(index.column());
    const StatsTable::Column& c = m_table->columns[column];
    const size_t r = m_order[row];
    switch (role) {
    case Qt::DisplayRole: return text(row, column);
    case kExact: return exact(row, column);
    case Qt::TextAlignmentRole: return isNumberColumn(c.kind) ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    case Qt::ForegroundRole:
        return index.column() == m_errnoColumn && !cellText(*m_table, column, r, m_context).empty()
                   ? QVariant(QColor(0xc0, 0x1c, 0x28))
                   : QVariant();
    case kBar:
        if (index.column() != m_barColumn || m_barMax <= 0) return {};
        return std::max(0.0, double(c.numbers[r]) / m_barMax);
    case kJumpEvent: {
        // The event cell itself, else the row's first event.
        const StatsTable::Column& e =
            c.kind == Kind::Event ? c : m_table->columns[size_t(m_eventColumn >= 0 ? m_eventColumn : 0)];
        if (e.kind != Kind::Event || e.numbers[r] == StatsTable::kUnknown) return {};
        return qlonglong(e.numbers[r]);
    }
    case kJumpSpan: {
        const StatsTable::Column& e =
            c.kind == Kind::Event ? c : m_table->columns[size_t(m_eventColumn >= 0 ? m_eventColumn : 0)];
        if (e.kind != Kind::Event || e.spanKey.empty() || e.numbers[r] == StatsTable::kUnknown || !m_context.eventTime)
            return {};
        for (const StatsTable::Column& d : m_table->columns) {
            if (d.key != e.spanKey || d.kind != Kind::Duration || d.numbers[r] == StatsTable::kUnknown || d.numbers[r] < 0)
                continue;
            const uint64_t at = m_context.eventTime(StatsTable::eventOf(e.numbers[r]));
            const uint64_t length = uint64_t(d.numbers[r]);
            if (!e.spanStarts && length > at) return {};
            return e.spanStarts ? QVariantList{qulonglong(at), qulonglong(at + length)}
                                : QVariantList{qulonglong(at - length), qulonglong(at)};
        }
        return {};
    }
    case Qt::ToolTipRole: {
        QString tip = c.kind == Kind::Duration ? exact(row, column) : text(row, column);
        if (data(index, kJumpEvent).isValid()) tip += tr("\nDouble-click to go to this event");
        return tip;
    }
    default: return {};
    }
}

QVariant StatsTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || !m_table || section < 0 || size_t(section) >= m_table->columns.size())
        return {};
    const StatsTable::Column& c = m_table->columns[size_t(section)];
    if (role == Qt::DisplayRole) return QString::fromStdString(c.title) + (c.kind == Kind::Event ? tr(" (s)") : QString());
    if (role == Qt::TextAlignmentRole) return isNumberColumn(c.kind) ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    if (role == Qt::ToolTipRole)
        return c.description.empty() ? QString::fromStdString(c.title) : QString::fromStdString(c.description);
    return {};
}

void StatsTableModel::sort(int column, Qt::SortOrder order)
{
    if (!m_table || column < 0 || size_t(column) >= m_table->columns.size()) return;
    emit layoutAboutToBeChanged();
    // The persistent indexes (the view's selection and current row) follow their rows.
    const QModelIndexList before = persistentIndexList();
    std::vector<uint32_t> rowsBefore;
    for (const QModelIndex& i : before) rowsBefore.push_back(m_order[size_t(i.row())]);
    const StatsTable::Column& c = m_table->columns[size_t(column)];
    // Sort keys once: names of tasks and times of events are looked up, not compared cell by cell.
    std::vector<double> numbers;
    std::vector<std::string> texts;
    const size_t rows = m_table->rows();
    if (c.kind == Kind::Text || c.kind == Kind::Task || c.kind == Kind::Counts) {
        texts.resize(rows);
        for (size_t r = 0; r < rows; ++r) texts[r] = cellText(*m_table, size_t(column), r, m_context);
    } else if (c.kind == Kind::Label) {
        // By each label's place in alphabetical order.
        std::vector<uint32_t> byText(c.labels.size());
        std::iota(byText.begin(), byText.end(), 0u);
        std::sort(byText.begin(), byText.end(), [&](uint32_t a, uint32_t b) { return c.labels[a] < c.labels[b]; });
        std::vector<double> rank(c.labels.size());
        for (size_t i = 0; i < byText.size(); ++i) rank[byText[i]] = double(i);
        numbers.resize(rows);
        for (size_t r = 0; r < rows; ++r)
            numbers[r] = c.numbers[r] >= 0 && size_t(c.numbers[r]) < rank.size() ? rank[size_t(c.numbers[r])] : -1.0;
    } else {
        numbers.resize(rows);
        for (size_t r = 0; r < rows; ++r) {
            if (c.kind == Kind::Real)
                numbers[r] = c.reals[r];
            else if (c.kind == Kind::Event)
                numbers[r] = c.numbers[r] == StatsTable::kUnknown || !m_context.eventTime
                                 ? -1.0
                                 : double(m_context.eventTime(StatsTable::eventOf(c.numbers[r])));
            else if (c.kind == Kind::Count)
                numbers[r] = double(uint64_t(c.numbers[r]));
            else
                numbers[r] = c.numbers[r] == StatsTable::kUnknown ? -1e300 : double(c.numbers[r]);
        }
    }
    auto less = [&](uint32_t a, uint32_t b) { return texts.empty() ? numbers[a] < numbers[b] : texts[a] < texts[b]; };
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
    for (size_t r = 0; r < m_order.size(); ++r) {
        QStringList cells;
        for (size_t c = 0; c < size_t(columnCount()); ++c) {
            const StatsTable::Column& column = m_table->columns[c];
            cells << (column.kind == Kind::Duration || column.kind == Kind::Count
                          ? QString::fromStdString(cellText(*m_table, c, m_order[r], m_context))
                          : text(r, c));
        }
        lines << cells.join('\t');
    }
    return lines.join('\n') + '\n';
}

} // namespace ringside
