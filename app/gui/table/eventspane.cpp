// SPDX-License-Identifier: GPL-2.0-or-later
#include "table/eventspane.h"

#include "details/detailspane.h"
#include "state/recordingset.h"
#include "state/tracesession.h"
#include "state/viewstate.h"
#include "table/eventtablemodel.h"
#include "table/eventtableview.h"
#include "table/searchbar.h"
#include "widgets/elidedlabel.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QVBoxLayout>

#include <algorithm>

namespace ringside {

EventsPane::EventsPane(ViewState* view, QWidget* parent) : QSplitter(Qt::Horizontal, parent), m_view(view)
{
    setObjectName("eventsSplitter");
    m_model = new EventTableModel(this);
    m_table = new EventTableView(this);
    m_table->setModel(m_model);
    // Narrow enough that the Info column shows at 1280 pixels wide, the details beside.
    const int widths[] = {56, 36, 118, 96, 50, 0, 110};
    for (int c = 0; c < 7; ++c) m_table->header()->resizeSection(c, widths[c]);
    // Latency's five characters are narrower than its header.
    m_table->header()->resizeSection(
        EventTableModel::Latency,
        fontMetrics().horizontalAdvance(m_model->headerData(EventTableModel::Latency, Qt::Horizontal).toString()) + 16);
    m_details = new DetailsPane(this);
    connect(m_details, &DetailsPane::plotFieldRequested, this,
            [this](const QString& name, const QString& sql, bool perTask, int32_t pid) {
                // A query track, kept in the session; per task, the event's task shows it.
                m_view->addQueryTrack({name, sql});
                if (perTask && pid >= 0) m_view->addTaskRow(pid);
            });

    auto* tableBox = new QWidget(this);
    m_tableLayout = new QVBoxLayout(tableBox);
    m_tableLayout->setContentsMargins(0, 0, 0, 0);
    m_tableLayout->setSpacing(0);
    m_search = new SearchBar(m_model, this);
    m_search->setCurrentRowProvider([this] { return m_table->currentRow(); });
    connect(m_search, &SearchBar::rowFound, this, [this](int row) { m_table->selectRow(row); });
    // With several recordings: which one the table, details and filters show.
    m_recordingBar = new QWidget(this);
    auto* recordingLayout = new QHBoxLayout(m_recordingBar);
    recordingLayout->setContentsMargins(6, 2, 6, 2);
    m_recordingBox = new QComboBox(m_recordingBar);
    m_recordingBox->setObjectName("recordingBox");
    // Long file names are elided in the box (the list shows them whole), not let widen the window.
    m_recordingBox->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_recordingBox->setMinimumContentsLength(24);
    m_recordingBox->setToolTip(tr("The recording the table, details, filters and task rows show; "
                                  "a click on another recording's event in the timeline shows that one"));
    connect(m_recordingBox, &QComboBox::activated, this,
            [this](int index) { emit recordingChosen(size_t(std::max(0, index))); });
    recordingLayout->addWidget(new QLabel(tr("Events of"), m_recordingBar));
    recordingLayout->addWidget(m_recordingBox);
    m_recordingNote = new ElidedLabel(m_recordingBar);
    m_recordingNote->setObjectName("recordingNote");
    recordingLayout->addWidget(m_recordingNote, 1);
    m_recordingBar->hide();
    m_tableLayout->addWidget(m_recordingBar);
    m_tableLayout->addWidget(m_search);
    m_tableLayout->addWidget(m_table);
    // Tab goes from the search's fields to the table, then the details (the table was made
    // first, and Tab went from the search to the next pane).
    setTabOrder(m_search->lastInTabOrder(), m_table);
    setTabOrder(m_table, m_details);

    addWidget(tableBox);
    addWidget(m_details);
    setStretchFactor(0, 7);
    setStretchFactor(1, 3);
    setSizes({700, 300});
    connect(m_table, &EventTableView::currentRowChanged, this, [this](int row) {
        if (m_syncingSelection || row < 0 || !m_session) return;
        m_view->select(m_model->eventAt(row));
    });
    addEventActions();
}

void EventsPane::setFilterBar(QWidget* bar)
{
    m_tableLayout->insertWidget(1, bar);
}

void EventsPane::setSession(std::shared_ptr<TraceSession> session)
{
    m_session = std::move(session);
    m_model->setSession(m_session.get());
    m_details->setSession(m_session.get());
    m_search->setSession(m_session);
    if (m_session) fitColumns();
}

void EventsPane::refreshDetails()
{
    m_details->showEvent(m_view->selection(), m_view->selectedCall());
}

void EventsPane::followSelection()
{
    refreshDetails();
    const auto selection = m_view->selection();
    if (!selection || !m_session) return;
    // The table follows the selection (unless it made it: a Shift+click keeps its range).
    const int row = m_model->rowOf(*selection);
    if (row >= 0 && row != m_table->currentRow()) {
        m_syncingSelection = true;
        m_table->selectRow(row);
        m_syncingSelection = false;
    }
}

void EventsPane::showRecordings(const RecordingSet& recordings, size_t active)
{
    m_recordingBox->clear();
    for (size_t i = 0; i < recordings.size(); ++i) {
        m_recordingBox->addItem(recordings.name(i));
        m_recordingBox->setItemData(int(i), recordings.at(i)->path, Qt::ToolTipRole);
    }
    m_recordingBox->setCurrentIndex(int(active));
    m_recordingBar->setVisible(recordings.size() > 1);
    // How the clocks were put together, in short; in full in the tooltip.
    const QStringList notes = recordings.notes();
    const auto& guests = recordings.guestViews();
    QString note;
    if (!guests.empty())
        note = tr("%1 is on %2's clock (trace-cmd's time shift)")
                   .arg(recordings.name(guests.front().guest), recordings.name(guests.front().host));
    else if (!notes.isEmpty())
        note = notes.first();
    m_recordingNote->setFullText(note, notes.isEmpty() ? QString() : "• " + notes.join("\n• "));
}

void EventsPane::fitColumns()
{
    const TraceSession& session = *m_session;
    const EventStore& store = session.store();
    QHeaderView* header = m_table->header();
    auto headerWidth = [this](int column) {
        return fontMetrics().horizontalAdvance(m_model->headerData(column, Qt::Horizontal).toString());
    };
    // The # column fits the largest row number (of a recording still read: room for 100M rows).
    const size_t rows = session.loading ? std::max<size_t>(store.eventCount(), 99999999) : store.eventCount();
    header->resizeSection(EventTableModel::Index, fontMetrics().horizontalAdvance(QString::number(rows)) + 16);
    // The CPU column fits its longest cell: a second buffer's CPUs read "name:N" there.
    int cpuWidth = headerWidth(EventTableModel::Cpu);
    for (size_t i = 0; i < store.streamCount(); ++i) {
        const EventRef first{StreamId(static_cast<uint16_t>(i)), 0};
        if (store.stream(first.stream).columns.size())
            cpuWidth = std::max(cpuWidth, fontMetrics().horizontalAdvance(
                                              EventTableModel::cellText(session, first, EventTableModel::Cpu)));
    }
    header->resizeSection(EventTableModel::Cpu, std::min(cpuWidth + 16, 220));
    // The Event column fits the recording's longest event name ("sys_enter_execve" was cut),
    // within reason: Info is what is read.
    int eventWidth = headerWidth(EventTableModel::Event);
    if (session.formatter)
        for (size_t type = 0; type < store.eventTypeCounts().size(); ++type)
            if (store.eventTypeCount(uint16_t(type)))
                eventWidth = std::max(eventWidth, fontMetrics().horizontalAdvance(QString::fromStdString(
                                                      session.formatter->eventName(uint16_t(type)))));
    header->resizeSection(EventTableModel::Event, std::clamp(eventWidth + 12, 110, 130));
    // The PID column fits the largest pid ("483..." was cut: a host's pids have six digits).
    int32_t largestPid = 0;
    for (const Task& task : store.tasks().snapshot()) largestPid = std::max(largestPid, task.pid);
    header->resizeSection(EventTableModel::Pid,
                          std::max(50, fontMetrics().horizontalAdvance(QString::number(largestPid)) + 16));
}

void EventsPane::copySelectedRows()
{
    if (!m_session) return;
    QStringList lines;
    for (int row : m_table->selectedRows()) lines << m_model->rowText(row);
    QApplication::clipboard()->setText(lines.join('\n'));
}

void EventsPane::addEventActions()
{
    auto* copy = new QAction(tr("Copy Rows"), this);
    copy->setObjectName("copyRowsAction");
    copy->setShortcut(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(copy, &QAction::triggered, this, &EventsPane::copySelectedRows);
    m_table->addAction(copy);
    auto* markA = new QAction(tr("Set Marker A at This Event"), this);
    markA->setObjectName("markerAAction");
    connect(markA, &QAction::triggered, this, [this] {
        if (auto s = m_view->selection(); s && m_session) m_view->setMarkerA(m_session->store().timestamp(*s));
    });
    m_table->addAction(markA);
    auto* markB = new QAction(tr("Set Marker B at This Event"), this);
    markB->setObjectName("markerBAction");
    connect(markB, &QAction::triggered, this, [this] {
        if (auto s = m_view->selection(); s && m_session) m_view->setMarkerB(m_session->store().timestamp(*s));
    });
    m_table->addAction(markB);
    auto* taskRow = new QAction(tr("Add Timeline Row for This Task"), this);
    taskRow->setObjectName("addTaskRowAction");
    connect(taskRow, &QAction::triggered, this, [this] {
        auto s = m_view->selection();
        if (!s || !m_session) return;
        m_view->addTaskRow(m_session->store().stream(s->stream).columns.pid[s->index]);
    });
    m_table->addAction(taskRow);
    auto* processRows = new QAction(tr("Add Timeline Rows for This Task's Process"), this);
    processRows->setObjectName("addProcessRowsAction");
    connect(processRows, &QAction::triggered, this, [this] {
        auto s = m_view->selection();
        if (!s || !m_session) return;
        const int32_t pid = m_session->store().stream(s->stream).columns.pid[s->index];
        QVector<int32_t> pids;
        for (int32_t member : m_session->trace->processes().members(pid)) pids.push_back(member);
        m_view->addTaskRows(pids.isEmpty() ? QVector<int32_t>{pid} : pids);
    });
    m_table->addAction(processRows);
    // Which tasks make a process is known from task:task_newtask only: say so, as the task
    // row's menu does, rather than add one row and call it the process.
    connect(m_table, &EventTableView::menuAboutToShow, this, [this, processRows] {
        const bool known = m_session && m_session->trace->processes().available();
        processRows->setEnabled(known);
        processRows->setText(known ? tr("Add Timeline Rows for This Task's Process")
                                   : tr("Tasks of This Process: Unknown (the recording has no task:task_newtask events)"));
    });
}

} // namespace ringside
