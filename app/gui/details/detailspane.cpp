// SPDX-License-Identifier: GPL-2.0-or-later
#include "details/detailspane.h"

#include "table/eventtablemodel.h"
#include "timeline/taskcolors.h"
#include "timeline/timelinemath.h"

#include "calls/calltree.h"
#include "sql/resulttrack.h"

#include <QContextMenuEvent>
#include <QFontDatabase>
#include <QFontMetrics>
#include <QHeaderView>
#include <QLocale>
#include <QMenu>
#include <QStyledItemDelegate>
#include <QTreeWidgetItemIterator>

#include <algorithm>

namespace ringside {

namespace {

// A tree view asks its delegate for row heights without the column's width, so wrapped text
// would keep one line: the delegate measures at the column's width.
class ColumnWidthDelegate : public QStyledItemDelegate {
public:
    explicit ColumnWidthDelegate(QTreeView* view) : QStyledItemDelegate(view), m_view(view) {}
    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override
    {
        // The style wraps only within a valid rectangle: any height does.
        QStyleOptionViewItem measured = option;
        measured.rect = QRect(0, 0, m_view->columnWidth(index.column()), 1 << 16);
        return QStyledItemDelegate::sizeHint(measured, index);
    }

private:
    QTreeView* m_view;
};

} // namespace

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
    // A value longer than its column (a system call's six arguments, a long file name) wraps
    // onto more lines of its row instead of being cut; a word too long for a line elides.
    setWordWrap(true);
    setItemDelegate(new ColumnWidthDelegate(this));
    setTextElideMode(Qt::ElideRight);
}

void DetailsPane::fitColumns()
{
    // Every column but Value gets its whole contents. Value gets what its values need, the
    // summary rows' too (the event's name, the task), up to what the pane has beside Field:
    // in a narrow pane Field and Value are what is read, Hex, Symbol and Type scroll in from
    // the side. Longer values wrap in their rows; tooltips have them in full.
    for (int c = 0; c < columnCount(); ++c)
        if (c != 1) resizeColumnToContents(c);
    int value = 120;
    for (QTreeWidgetItemIterator it(this); *it; ++it)
        value = std::max(value, QFontMetrics((*it)->font(1)).horizontalAdvance((*it)->text(1)) + 24);
    const int others = columnWidth(2) + columnWidth(3) + columnWidth(4);
    const int room = std::max(viewport()->width() - columnWidth(0), 120);
    // Wide enough for all: Value takes what it needs; else Value before the others.
    setColumnWidth(1, std::min(value, std::max(room - others, std::min(room, 360))));
    int used = 0;
    for (int c = 0; c < columnCount(); ++c) used += columnWidth(c);
    const int last = columnCount() - 1;
    if (used < viewport()->width()) setColumnWidth(last, columnWidth(last) + viewport()->width() - used);
    // Rows wrapped for the old widths take the height the new ones need.
    scheduleDelayedItemsLayout();
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

void DetailsPane::addCall(uint32_t index)
{
    const CallSlices& calls = m_session->trace->callSlices();
    if (index >= calls.size()) return;
    auto nameOf = [&](uint32_t i) {
        const std::string& name = calls.functionName(calls.function(i));
        return name.empty() ? QStringLiteral("?") : QString::fromStdString(name);
    };
    const bool ticks = !m_session->trace->file().info().timesInUsecs;
    const auto unit = ticks ? timeline::ClockUnit::Ticks : timeline::ClockUnit::Nanoseconds;
    auto duration = [&](uint64_t ns) { return timeline::formatDuration(int64_t(ns), unit); };
    const uint8_t flags = calls.flags(index);
    const bool returned = !(flags & kCallOpen);
    const CallFamily family = CallFamily::of(calls, index);

    auto* call = new QTreeWidgetItem(this, {tr("call"), nameOf(index)});
    QFont bold = call->font(1);
    bold.setBold(true);
    call->setFont(1, bold);
    auto add = [&](const QString& field, const QString& value) { return new QTreeWidgetItem(call, {field, value}); };
    auto* start = add(tr("start"), EventTableModel::formatTime(calls.start(index), !ticks) +
                                       ((flags & kCallNoEntry) ? tr(" (entry not recorded)") : QString()));
    if (flags & kCallNoEntry)
        start->setToolTip(1, tr("The call began before the recording (or a gap in it); its start is its exit's "
                                "time less its duration"));
    if (returned) {
        add(tr("duration"), duration(calls.duration(index)));
        add(tr("self time"), duration(family.selfTime(calls, index)))
            ->setToolTip(1, tr("Its duration less that of the calls it made (interrupts not counted)"));
    } else {
        add(tr("duration"), (flags & kCallBroken) ? tr("unknown: its exit was lost") : tr("unknown: still running"))
            ->setToolTip(1, (flags & kCallBroken) ? tr("Events were lost before its exit was recorded")
                                                  : tr("It had not returned when the recording ended"));
    }
    add(tr("depth"), QString::number(calls.depth(index)));
    if (calls.hasRetval(index)) {
        const int64_t ret = calls.retval(index);
        const std::string err = errnoName(ret);
        auto* item =
            add(tr("return value"),
                err.empty() ? QString::number(ret) : QStringLiteral("%1 %2").arg(ret).arg(QString::fromStdString(err)));
        if (!err.empty()) item->setForeground(1, QColor(0xc0, 0x1c, 0x28));
    } else {
        add(tr("return value"), tr("not recorded"))
            ->setToolTip(1, calls.recordsRetval()
                                ? tr("Its exit was not recorded")
                                : tr("Kernels record return values from 6.5 on, with the funcgraph-retval option"));
    }
    const uint32_t parent = calls.parent(index);
    add(tr("parent"), parent == CallSlices::kNoParent
                          ? tr("none (an outermost call)")
                          : QStringLiteral("%1 at %2")
                                .arg(nameOf(parent))
                                .arg(EventTableModel::formatTime(calls.start(parent), !ticks)));
    const QLocale locale;
    auto count = [&](uint64_t n, const QString& one, const QString& many) {
        return n == 1 ? one : many.arg(locale.toString(qulonglong(n)));
    };
    add(tr("children"),
        count(family.children, tr("1 call"), tr("%1 calls")) + ", " +
            count(family.descendants, tr("1 below in all"), tr("%1 below in all")) +
            (family.interrupts ? ", " + count(family.interrupts, tr("1 interrupt"), tr("%1 interrupts")) : QString()));
    add(tr("task"), QStringLiteral("%1 (pid %2) on CPU %3")
                        .arg(QString::fromStdString(m_session->taskName(calls.pid(index))))
                        .arg(calls.pid(index))
                        .arg(calls.cpu(index)));
    if (flags & kCallInterrupt)
        add(tr("context"), (flags & kCallNmi)       ? tr("NMI")
                           : (flags & kCallHardIrq) ? tr("hard interrupt")
                                                    : tr("soft interrupt"));
    call->setExpanded(true);
}

void DetailsPane::showEvent(std::optional<EventRef> event, std::optional<uint32_t> call)
{
    clear();
    if (!m_session) return;
    if (call) addCall(*call);
    if (!event) {
        fitColumns();
        return;
    }
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

    auto* fields = m_fields = new QTreeWidgetItem(this, {tr("fields")});
    m_type = type;
    m_pid = pid;
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

QList<QAction*> DetailsPane::fieldActions(QTreeWidgetItem* item, QObject* parent)
{
    QList<QAction*> actions;
    // A number field of the event's own (its hex column is filled): common ones are the
    // table's columns already.
    if (!m_session || !item || !m_fields || item->parent() != m_fields || item->text(2).isEmpty()) return actions;
    const QString field = item->text(0);
    const QString event = QString::fromStdString(m_session->formatter->eventName(m_type));
    for (const RowOwner owner : {RowOwner::Task, RowOwner::Cpu, RowOwner::Recording}) {
        const QString per = owner == RowOwner::Task  ? tr("per task")
                            : owner == RowOwner::Cpu ? tr("per CPU")
                                                     : tr("for the whole recording");
        auto* action = new QAction(tr("Plot %1 as a counter %2").arg(field, per), parent);
        connect(action, &QAction::triggered, this, [this, field, event, owner, per, type = m_type, pid = m_pid] {
            const std::string sql = sql::fieldCounterQuery(*m_session->trace, type, field.toStdString(), owner);
            if (sql.empty()) return;
            emit plotFieldRequested(QStringLiteral("%1.%2 %3").arg(event, field, per), QString::fromStdString(sql),
                                    owner == RowOwner::Task, pid);
        });
        actions << action;
    }
    return actions;
}

void DetailsPane::contextMenuEvent(QContextMenuEvent* e)
{
    QMenu menu(this);
    const QList<QAction*> actions = fieldActions(itemAt(e->pos()), &menu);
    if (actions.isEmpty()) return QTreeWidget::contextMenuEvent(e);
    menu.addActions(actions);
    menu.exec(e->globalPos());
}

} // namespace ringside
