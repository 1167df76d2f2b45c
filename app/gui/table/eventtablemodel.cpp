// SPDX-License-Identifier: GPL-2.0-or-later
#include "table/eventtablemodel.h"

#include "timeline/taskcolors.h"

#include <QBrush>
#include <QFontDatabase>

namespace ringside {

void EventTableModel::setSession(const TraceSession* session)
{
    beginResetModel();
    m_session = session;
    m_filter.reset();
    m_rows = session ? session->store().eventCount() : 0;
    endResetModel();
}

void EventTableModel::storeGrew()
{
    if (!m_session) return;
    const size_t now = std::min<size_t>(m_session->store().eventCount(), INT32_MAX);
    if (m_filter || now <= m_rows) {
        m_rows = std::max(m_rows, now);
        return;
    }
    beginInsertRows({}, int(m_rows), int(now - 1));
    m_rows = now;
    endInsertRows();
}

void EventTableModel::taskNamesChanged()
{
    if (const int rows = rowCount(); rows > 0) emit dataChanged(index(0, Task), index(rows - 1, Task));
}

void EventTableModel::setFilter(std::shared_ptr<const FilterResult> filter)
{
    beginResetModel();
    m_filter = std::move(filter);
    if (m_session) m_rows = m_session->store().eventCount();
    endResetModel();
}

size_t EventTableModel::storeRow(int row) const
{
    return m_filter ? m_filter->merged.select(static_cast<size_t>(row)) : static_cast<size_t>(row);
}

int EventTableModel::rowCount(const QModelIndex& parent) const
{
    if (parent.isValid() || !m_session) return 0;
    const size_t rows = m_filter ? m_filter->merged.size() : m_rows;
    return static_cast<int>(std::min<size_t>(rows, INT32_MAX));
}

int EventTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

EventRef EventTableModel::eventAt(int row) const
{
    return m_session->store().eventAt(storeRow(row));
}

int EventTableModel::rowOf(EventRef event) const
{
    if (!m_session) return -1;
    const size_t row = m_session->store().rowOf(event);
    if (row >= m_session->store().eventCount()) return -1;
    if (!m_filter) return static_cast<int>(row);
    return m_filter->merged.contains(row) ? static_cast<int>(m_filter->merged.rank(row)) : -1;
}

QString EventTableModel::formatTime(uint64_t ns, bool nanoseconds)
{
    if (!nanoseconds) return QString::number(ns);
    return QStringLiteral("%1.%2").arg(ns / 1000000000ull).arg(ns % 1000000000ull, 9, 10, QLatin1Char('0'));
}

QString EventTableModel::cellText(const TraceSession& session, EventRef e, int column)
{
    const EventStore& store = session.store();
    const Stream& stream = store.stream(e.stream);
    const CpuColumns& c = stream.columns;
    EventFormatter& f = *session.formatter;
    switch (column) {
    case Cpu: {
        const QString buffer = QString::fromStdString(store.buffers()[stream.buffer].name);
        return buffer.isEmpty() ? QString::number(stream.cpu) : buffer + ':' + QString::number(stream.cpu);
    }
    case Time: return formatTime(c.timestamp[e.index], session.trace->file().info().timesInUsecs);
    case Task: return QString::fromStdString(session.taskName(c.pid[e.index]));
    case Pid: return QString::number(c.pid[e.index]);
    case Latency: return QString::fromStdString(f.latency(e));
    case Event: return QString::fromStdString(f.eventName(c.eventType[e.index]));
    case Info: {
        // One line in a one-line row (a kernel stack's frames are lines of their own in the
        // report; "=>" still sets them apart); whole in the tooltip.
        QString info = QString::fromStdString(f.info(e));
        info.replace('\n', ' ');
        return info;
    }
    }
    return {};
}

QVariant EventTableModel::data(const QModelIndex& index, int role) const
{
    if (!m_session || !index.isValid() || index.row() >= rowCount()) return {};
    const EventStore& store = m_session->store();
    const EventRef e = eventAt(index.row());
    const Stream& stream = store.stream(e.stream);
    const CpuColumns& c = stream.columns;
    if (role == Qt::DisplayRole) {
        if (index.column() == Index) return qulonglong(storeRow(index.row()));
        if (index.column() == Pid) return c.pid[e.index];
        return cellText(*m_session, e, index.column());
    } else if (role == Qt::DecorationRole && index.column() == Task) {
        return taskColor(c.pid[e.index]);
    } else if (role == Qt::TextAlignmentRole) {
        if (index.column() == Index || index.column() == Pid || index.column() == Time || index.column() == Cpu)
            return int(Qt::AlignRight | Qt::AlignVCenter);
    } else if (role == Qt::FontRole && (index.column() == Time || index.column() == Latency)) {
        return QFontDatabase::systemFont(QFontDatabase::FixedFont);
    } else if (role == Qt::ToolTipRole && index.column() == Info) {
        return QString::fromStdString(m_session->formatter->info(e));
    }
    return {};
}

QVariant EventTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case Index: return tr("#");
    case Cpu: return tr("CPU");
    case Time:
        // A raw counter clock without a conversion to nanoseconds counts ticks, not seconds.
        return m_session && !m_session->trace->file().info().timesInUsecs ? tr("Time (ticks)") : tr("Time (s)");
    case Task: return tr("Task");
    case Pid: return tr("PID");
    case Latency: return tr("Latency");
    case Event: return tr("Event");
    case Info: return tr("Info");
    }
    return {};
}

QString EventTableModel::rowText(int row) const
{
    QStringList cells;
    for (int column = 0; column < ColumnCount; ++column) cells << data(index(row, column)).toString();
    return cells.join('\t');
}

} // namespace ringside
