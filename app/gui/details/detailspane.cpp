// SPDX-License-Identifier: GPL-2.0-or-later
#include "details/detailspane.h"

#include "table/eventtablemodel.h"
#include "timeline/taskcolors.h"

#include <QFontDatabase>
#include <QFontMetrics>
#include <QHeaderView>
#include <QTreeWidgetItemIterator>

#include <algorithm>

namespace ringside {

DetailsPane::DetailsPane(QWidget* parent) : QTreeWidget(parent)
{
    setColumnCount(5);
    setHeaderLabels({tr("Field"), tr("Value"), tr("Hex"), tr("Symbol"), tr("Type")});
    setRootIsDecorated(true);
    setAlternatingRowColors(true);
    setUniformRowHeights(false);
    // Every column sized to its contents and resizable; a wide pane gives its spare width to the
    // last column, a narrow one scrolls sideways instead of cutting a column off.
    header()->setSectionResizeMode(QHeaderView::Interactive);
    header()->setStretchLastSection(false);
    header()->setMinimumSectionSize(36);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    setTextElideMode(Qt::ElideRight);
}

void DetailsPane::fitColumns()
{
    // Every column but Value gets its whole contents. Value gets what its field values need
    // (the summary rows above them hold prose such as the report line: those elide, their
    // tooltip has them in full), at most half the pane.
    for (int c = 0; c < columnCount(); ++c)
        if (c != 1) resizeColumnToContents(c);
    int value = 120;
    for (QTreeWidgetItemIterator it(this); *it; ++it)
        if (!(*it)->text(4).isEmpty() || (*it)->parent()) // a field row (or one nested under an item)
            value = std::max(value, QFontMetrics((*it)->font(1)).horizontalAdvance((*it)->text(1)) + 24);
    setColumnWidth(1, std::min(value, std::max(160, viewport()->width() / 2)));
    int used = 0;
    for (int c = 0; c < columnCount(); ++c) used += columnWidth(c);
    const int last = columnCount() - 1;
    if (used < viewport()->width()) setColumnWidth(last, columnWidth(last) + viewport()->width() - used);
}

void DetailsPane::resizeEvent(QResizeEvent* e)
{
    QTreeWidget::resizeEvent(e);
    fitColumns();
}

void DetailsPane::setSession(const TraceSession* session)
{
    m_session = session;
    clear();
}

void DetailsPane::showEvent(std::optional<EventRef> event)
{
    clear();
    if (!m_session || !event) return;
    const EventStore& store = m_session->store();
    EventFormatter& f = *m_session->formatter;
    const Stream& stream = store.stream(event->stream);
    const CpuColumns& c = stream.columns;
    const uint16_t type = c.eventType[event->index];
    const int32_t pid = c.pid[event->index];

    new QTreeWidgetItem(this, {tr("event"), QString::fromStdString(f.systemName(type) + "/" + f.eventName(type))});
    new QTreeWidgetItem(this, {tr("time"), EventTableModel::formatTime(c.timestamp[event->index],
                                                                       m_session->trace->file().info().timesInUsecs)});
    const QString buffer = QString::fromStdString(store.buffers()[stream.buffer].name);
    new QTreeWidgetItem(this, {tr("cpu"), (buffer.isEmpty() ? QString() : buffer + ':') + QString::number(stream.cpu)});
    auto* task = new QTreeWidgetItem(
        this,
        {tr("task"), QStringLiteral("%1 (pid %2)").arg(QString::fromStdString(m_session->taskName(pid))).arg(pid)});
    task->setIcon(1, [&] {
        QPixmap p(12, 12);
        p.fill(taskColor(pid));
        return QIcon(p);
    }());
    const ProcessGroups& processes = m_session->trace->processes();
    const auto members = processes.members(pid);
    new QTreeWidgetItem(
        this, {tr("process"), processes.available()
                                  ? tr("%1-%2, %3")
                                        .arg(QString::fromStdString(m_session->taskName(processes.leader(pid))))
                                        .arg(processes.leader(pid))
                                        .arg(members.size() == 1 ? tr("1 task") : tr("%1 tasks").arg(members.size()))
                                  : tr("unknown (no task_newtask events recorded)")});
    new QTreeWidgetItem(this, {tr("latency"), QString::fromStdString(f.latency(*event))});
    auto* line = new QTreeWidgetItem(this, {tr("line"), QString::fromStdString(f.info(*event))});
    line->setToolTip(1, QString::fromStdString(f.reportLine(*event)));

    auto* fields = new QTreeWidgetItem(this, {tr("fields")});
    auto* common = new QTreeWidgetItem(fields, {tr("common")});
    const QFont fixed = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    for (const FieldValue& v : f.fields(*event)) {
        auto* item = new QTreeWidgetItem(v.common ? common : fields,
                                         {QString::fromStdString(v.name), QString::fromStdString(v.value),
                                          QString::fromStdString(v.hex), QString::fromStdString(v.symbol),
                                          QString::fromStdString(v.type)});
        item->setFont(1, fixed);
        item->setFont(2, fixed);
    }
    fields->setExpanded(true);

    auto* format = new QTreeWidgetItem(this, {tr("format")});
    // The format is long prose: it spans the row instead of widening the Value column.
    auto* text = new QTreeWidgetItem(format, {QString::fromStdString(f.formatText(type))});
    text->setFont(0, fixed);
    text->setFirstColumnSpanned(true);
    for (QTreeWidgetItemIterator it(this); *it; ++it)
        if (!(*it)->text(1).isEmpty() && (*it)->toolTip(1).isEmpty()) (*it)->setToolTip(1, (*it)->text(1));
    fitColumns();
}

} // namespace ringside
