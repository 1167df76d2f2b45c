// SPDX-License-Identifier: GPL-2.0-or-later
#include "filters/filterpanel.h"

#include "timeline/taskcolors.h"
#include "widgets/countdelegate.h"

#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QSplitter>
#include <QTimer>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <map>

namespace ringside {

namespace {

constexpr int kTypeRole = Qt::UserRole + 1;
constexpr int kPidRole = Qt::UserRole + 2;
constexpr int kStreamRole = Qt::UserRole + 3;

// The name column takes the room, the others fit their content.
void fitColumns(QTreeWidget* tree)
{
    tree->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    tree->header()->setSectionResizeMode(0, QHeaderView::Stretch);
}

QTreeWidget* makeTree(const QStringList& headers, QWidget* parent)
{
    auto* tree = new QTreeWidget(parent);
    tree->setHeaderLabels(headers);
    tree->setUniformRowHeights(true);
    tree->header()->setStretchLastSection(false);
    fitColumns(tree);
    tree->header()->setMinimumSectionSize(40);
    return tree;
}

// Hides the items whose text does not contain `text` (a parent stays when a child matches).
// Hides or shows an item only when that changes: each change makes the view look the row up
// (linear in the rows), and the task list has tens of thousands.
void setShown(QTreeWidgetItem* item, bool shown)
{
    if (item->isHidden() == shown) item->setHidden(!shown);
}

void applySearch(QTreeWidget* tree, const QString& text)
{
    for (int i = 0; i < tree->topLevelItemCount(); ++i) {
        QTreeWidgetItem* top = tree->topLevelItem(i);
        bool anyChild = false;
        for (int c = 0; c < top->childCount(); ++c) {
            const bool match = text.isEmpty() || top->child(c)->text(0).contains(text, Qt::CaseInsensitive) ||
                               top->text(0).contains(text, Qt::CaseInsensitive);
            setShown(top->child(c), match);
            anyChild |= match;
        }
        const bool match = text.isEmpty() || top->text(0).contains(text, Qt::CaseInsensitive) ||
                           top->text(1).contains(text, Qt::CaseInsensitive);
        setShown(top, match || anyChild);
        if (!text.isEmpty() && anyChild) top->setExpanded(true);
    }
}

} // namespace

FilterPanel::FilterPanel(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);

    auto* exprLabel = new QLabel(tr("Advanced filter (as trace-cmd report -F):"), this);
    m_expression = new QLineEdit(this);
    // Hints short enough for the pane's default width; the whole of each in its tooltip.
    m_expression->setPlaceholderText(tr("event: condition"));
    m_expression->setToolTip(tr("A filter as trace-cmd report -F takes it, for example\n"
                                "sched/sched_switch: prev_state != 0\nEnter or Apply applies it."));
    m_expression->setClearButtonEnabled(true);
    auto* apply = new QPushButton(tr("Apply"), this);
    auto* exprRow = new QHBoxLayout;
    exprRow->addWidget(m_expression, 1);
    exprRow->addWidget(apply);
    m_expressionError = new QLabel(this);
    m_expressionError->setWordWrap(true);
    m_expressionError->setStyleSheet("color: #c0392b;");
    m_expressionError->hide();
    layout->addWidget(exprLabel);
    layout->addLayout(exprRow);
    layout->addWidget(m_expressionError);

    auto* split = new QSplitter(Qt::Vertical, this);
    m_cpus = makeTree({tr("CPU"), tr("Events")}, this);
    m_cpus->setItemDelegateForColumn(1, new CountDelegate(m_cpus));
    split->addWidget(m_cpus);
    auto* eventsBox = new QWidget(this);
    auto* eventsLayout = new QVBoxLayout(eventsBox);
    eventsLayout->setContentsMargins(0, 0, 0, 0);
    m_eventSearch = new QLineEdit(eventsBox);
    m_eventSearch->setPlaceholderText(tr("Search events"));
    m_eventSearch->setToolTip(tr("Show the event types whose name or system contains this text"));
    m_eventSearch->setClearButtonEnabled(true);
    m_events = makeTree({tr("Event"), tr("Count")}, eventsBox);
    m_events->setItemDelegateForColumn(1, new CountDelegate(m_events));
    eventsLayout->addWidget(m_eventSearch);
    eventsLayout->addWidget(m_events);
    split->addWidget(eventsBox);
    auto* tasksBox = new QWidget(this);
    auto* tasksLayout = new QVBoxLayout(tasksBox);
    tasksLayout->setContentsMargins(0, 0, 0, 0);
    m_taskSearch = new QLineEdit(tasksBox);
    m_taskSearch->setPlaceholderText(tr("Search tasks (name or pid)"));
    m_taskSearch->setClearButtonEnabled(true);
    m_tasks = makeTree({tr("Task"), tr("PID"), tr("Events")}, tasksBox);
    m_tasks->setItemDelegateForColumn(2, new CountDelegate(m_tasks));
    tasksLayout->addWidget(m_taskSearch);
    tasksLayout->addWidget(m_tasks);
    split->addWidget(tasksBox);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 3);
    split->setStretchFactor(2, 4);
    layout->addWidget(split, 1);

    m_debounce = new QTimer(this);
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(150);
    connect(m_debounce, &QTimer::timeout, this, &FilterPanel::specChanged);
    for (QTreeWidget* tree : {m_cpus, m_events, m_tasks})
        connect(tree, &QTreeWidget::itemChanged, this, [this] { scheduleChange(); });
    connect(m_eventSearch, &QLineEdit::textChanged, this, [this](const QString& t) { applySearch(m_events, t); });
    connect(m_taskSearch, &QLineEdit::textChanged, this, [this](const QString& t) { applySearch(m_tasks, t); });
    auto applyExpression = [this] {
        m_appliedExpression = m_expression->text().trimmed();
        emit specChanged();
    };
    connect(apply, &QPushButton::clicked, this, applyExpression);
    connect(m_expression, &QLineEdit::returnPressed, this, applyExpression);
    connect(m_tasks, &QTreeWidget::itemDoubleClicked, this,
            [this](QTreeWidgetItem* item) { emit addTaskRowRequested(item->data(0, kPidRole).toInt()); });
    m_taskSearch->setToolTip(tr("Search tasks by name or pid; double-click a task to add its timeline row"));
    // A long name keeps its start and its end (a pid or number at the end tells tasks apart).
    for (QTreeWidget* tree : {m_cpus, m_events, m_tasks}) tree->setTextElideMode(Qt::ElideMiddle);
    // The same as a double-click, where users look for it: the task's menu.
    m_tasks->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_tasks, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
        QTreeWidgetItem* item = m_tasks->itemAt(pos);
        if (!item) return;
        const int32_t pid = item->data(0, kPidRole).toInt();
        QMenu menu(this);
        menu.addAction(tr("Add Timeline Row for %1-%2").arg(item->text(0)).arg(pid), this,
                       [this, pid] { emit addTaskRowRequested(pid); });
        menu.exec(m_tasks->viewport()->mapToGlobal(pos));
    });
}

void FilterPanel::scheduleChange()
{
    if (!m_populating) m_debounce->start();
}

void FilterPanel::setSession(const TraceSession* session)
{
    m_session = session;
    m_appliedExpression.clear();
    m_expression->clear();
    setExpressionError(QString());
    populate();
}

void FilterPanel::populate()
{
    m_populating = true;
    m_cpus->clear();
    m_events->clear();
    m_tasks->clear();
    m_populating = false;
    refreshCounts();
}

void FilterPanel::refreshCounts()
{
    if (!m_session) return;
    m_populating = true;
    // Read as a store that may be growing allows (column sizes, atomic type counts, a
    // snapshot of the task table): a live capture's lists fill in as events arrive.
    const EventStore& store = m_session->store();
    std::map<int, QTreeWidgetItem*> cpuItems;
    for (int i = 0; i < m_cpus->topLevelItemCount(); ++i)
        cpuItems[m_cpus->topLevelItem(i)->data(0, kStreamRole).toInt()] = m_cpus->topLevelItem(i);
    for (size_t s = 0; s < store.streamCount(); ++s) {
        const Stream& stream = store.stream(StreamId(static_cast<uint16_t>(s)));
        QTreeWidgetItem*& item = cpuItems[int(s)];
        if (!item) {
            const QString buffer = QString::fromStdString(store.buffers()[stream.buffer].name);
            item = new QTreeWidgetItem(m_cpus,
                                       {(buffer.isEmpty() ? QString() : buffer + ": ") + tr("CPU %1").arg(stream.cpu)});
            item->setData(0, kStreamRole, int(s));
            item->setCheckState(0, Qt::Checked);
        }
        item->setData(1, Qt::DisplayRole, qulonglong(stream.columns.size()));
    }

    std::map<QString, QTreeWidgetItem*> systems;
    std::map<int, QTreeWidgetItem*> eventItems;
    bool addedHidden = false;
    for (int i = 0; i < m_events->topLevelItemCount(); ++i) {
        QTreeWidgetItem* system = m_events->topLevelItem(i);
        systems[system->text(0)] = system;
        for (int c = 0; c < system->childCount(); ++c)
            eventItems[system->child(c)->data(0, kTypeRole).toInt()] = system->child(c);
    }
    const size_t types = store.eventTypeCounts().size();
    for (size_t type = 0; type < types; ++type) {
        const uint64_t count = store.eventTypeCount(uint16_t(type));
        if (!count) continue;
        QTreeWidgetItem*& item = eventItems[int(type)];
        if (!item) {
            const std::string system = m_session->formatter->systemName(uint16_t(type));
            QTreeWidgetItem*& parent = systems[QString::fromStdString(system.empty() ? "?" : system)];
            if (!parent) {
                parent = new QTreeWidgetItem(m_events, {QString::fromStdString(system.empty() ? "?" : system)});
                parent->setFlags(parent->flags() | Qt::ItemIsAutoTristate | Qt::ItemIsUserCheckable);
                parent->setCheckState(0, Qt::Checked);
            }
            // A new event of a system the user hid stays hidden.
            const Qt::CheckState state = parent->checkState(0) == Qt::Unchecked ? Qt::Unchecked : Qt::Checked;
            item = new QTreeWidgetItem(parent,
                                       {QString::fromStdString(m_session->formatter->eventName(uint16_t(type)))});
            item->setData(0, kTypeRole, int(type));
            item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
            item->setCheckState(0, state);
            addedHidden |= state == Qt::Unchecked;
        }
        item->setData(1, Qt::DisplayRole, qulonglong(count));
    }
    for (auto& [name, item] : systems) {
        uint64_t total = 0;
        for (int c = 0; c < item->childCount(); ++c) total += item->child(c)->data(1, Qt::DisplayRole).toULongLong();
        item->setData(1, Qt::DisplayRole, qulonglong(total));
    }
    m_events->sortItems(1, Qt::DescendingOrder);

    // Fitted columns measure their content again at each item changed: the tens of thousands
    // of tasks the analyses name at once held the window for minutes. Measured once, after.
    m_tasks->header()->setSectionResizeMode(QHeaderView::Interactive);
    std::map<int32_t, QTreeWidgetItem*> taskItems;
    for (int i = 0; i < m_tasks->topLevelItemCount(); ++i)
        taskItems[m_tasks->topLevelItem(i)->data(0, kPidRole).toInt()] = m_tasks->topLevelItem(i);
    for (const Task& task : store.tasks().snapshot()) {
        QTreeWidgetItem*& item = taskItems[task.pid];
        if (!item) {
            item = new QTreeWidgetItem(m_tasks);
            item->setData(1, Qt::DisplayRole, task.pid);
            item->setData(0, kPidRole, task.pid);
            item->setCheckState(0, Qt::Checked);
            QPixmap swatch(10, 10);
            swatch.fill(taskColor(task.pid));
            item->setIcon(0, QIcon(swatch));
        }
        // Names may come later in a capture (its first context switch, or the end's comms).
        // The whole name in the tooltip of an elided one: the same string, shared, not a copy
        // per task (tens of thousands of them, refreshed as a capture grows).
        const QString name = QString::fromStdString(m_session->taskName(task.pid));
        item->setText(0, name);
        item->setToolTip(0, name);
        item->setData(2, Qt::DisplayRole, qulonglong(task.events));
    }
    m_tasks->sortItems(2, Qt::DescendingOrder);
    fitColumns(m_tasks);
    applySearch(m_events, m_eventSearch->text());
    applySearch(m_tasks, m_taskSearch->text());
    m_populating = false;
    // The view's filter hides the new event too.
    if (addedHidden) scheduleChange();
}

FilterSpec FilterPanel::spec() const
{
    FilterSpec spec;
    if (!m_session) return spec;
    spec.hiddenStreams.assign(m_session->store().streamCount(), false);
    for (int i = 0; i < m_cpus->topLevelItemCount(); ++i)
        if (m_cpus->topLevelItem(i)->checkState(0) == Qt::Unchecked)
            spec.hiddenStreams[size_t(m_cpus->topLevelItem(i)->data(0, kStreamRole).toInt())] = true;
    for (int i = 0; i < m_events->topLevelItemCount(); ++i) {
        QTreeWidgetItem* system = m_events->topLevelItem(i);
        for (int c = 0; c < system->childCount(); ++c) {
            if (system->child(c)->checkState(0) != Qt::Unchecked) continue;
            if (spec.hiddenTypes.empty()) spec.hiddenTypes.assign(65536, false);
            spec.hiddenTypes[size_t(system->child(c)->data(0, kTypeRole).toInt())] = true;
        }
    }
    for (int i = 0; i < m_tasks->topLevelItemCount(); ++i)
        if (m_tasks->topLevelItem(i)->checkState(0) == Qt::Unchecked)
            spec.hiddenPids.insert(m_tasks->topLevelItem(i)->data(0, kPidRole).toInt());
    spec.expression = m_appliedExpression.toStdString();
    return spec;
}

void FilterPanel::setSpec(const FilterSpec& spec)
{
    m_populating = true;
    auto check = [](QTreeWidgetItem* item, bool hidden) {
        item->setCheckState(0, hidden ? Qt::Unchecked : Qt::Checked);
    };
    for (int i = 0; i < m_cpus->topLevelItemCount(); ++i) {
        const size_t stream = size_t(m_cpus->topLevelItem(i)->data(0, kStreamRole).toInt());
        check(m_cpus->topLevelItem(i), stream < spec.hiddenStreams.size() && spec.hiddenStreams[stream]);
    }
    for (int i = 0; i < m_events->topLevelItemCount(); ++i) {
        QTreeWidgetItem* system = m_events->topLevelItem(i);
        for (int c = 0; c < system->childCount(); ++c) {
            const size_t type = size_t(system->child(c)->data(0, kTypeRole).toInt());
            check(system->child(c), type < spec.hiddenTypes.size() && spec.hiddenTypes[type]);
        }
    }
    for (int i = 0; i < m_tasks->topLevelItemCount(); ++i)
        check(m_tasks->topLevelItem(i), spec.hiddenPids.count(m_tasks->topLevelItem(i)->data(0, kPidRole).toInt()) > 0);
    m_appliedExpression = QString::fromStdString(spec.expression);
    m_expression->setText(m_appliedExpression);
    setExpressionError(QString());
    m_populating = false;
    m_debounce->stop();
}

void FilterPanel::clearAll()
{
    m_appliedExpression.clear();
    m_expression->clear();
    setExpressionError(QString());
    populate();
    emit specChanged();
}

void FilterPanel::setExpressionError(const QString& message)
{
    m_expressionError->setText(message);
    m_expressionError->setVisible(!message.isEmpty());
}

} // namespace ringside
