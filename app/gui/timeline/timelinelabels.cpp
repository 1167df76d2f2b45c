// SPDX-License-Identifier: GPL-2.0-or-later
// TimelineWidget, continued: the rows as the ViewState lists them, and what the row labels and
// the row menu offer (see timelinewidget.cpp for painting, timelineinput.cpp for the mouse and
// keys on the data).
#include "timeline/timelinewidget.h"

#include <QContextMenuEvent>
#include <QDir>
#include <QFileInfo>
#include <QLocale>
#include <QMenu>

namespace ringside {

using timeline::TimeRange;

void TimelineWidget::syncRowsFromView()
{
    if (!m_session) return;
    const QVector<int32_t> before = m_rows.taskPids();
    const QVector<int32_t>& wanted = m_view->taskRows();
    for (int32_t pid : before)
        if (!wanted.contains(pid)) m_rows.removeTask(pid);
    for (int32_t pid : wanted)
        if (!m_rows.hasTask(pid)) m_rows.addTask(pid);
    for (uint16_t b = 0; b < m_session->store().buffers().size(); ++b)
        if (m_rows.isCollapsed(b) != m_view->isCollapsed(b)) m_rows.toggleBuffer(b);
    m_rows.setCallRows(m_view->callTaskRows(), m_view->callCpuRows());
    syncQueryTracks();
    onLanesReady();
    if (m_rows.taskPids() != before) emit taskRowsChanged();
    update();
}

void TimelineWidget::addProcessRows(int32_t pid)
{
    QVector<int32_t> pids;
    for (int32_t member : m_session->trace->processes().members(pid)) pids.push_back(member);
    if (pids.isEmpty()) pids.push_back(pid);
    m_view->addTaskRows(pids);
}

timeline::ClockUnit TimelineWidget::clockUnit() const
{
    return m_session && !m_session->trace->file().info().timesInUsecs ? timeline::ClockUnit::Ticks
                                                                      : timeline::ClockUnit::Nanoseconds;
}

void TimelineWidget::addCallsActions(QMenu& menu, const TimelineRows::Row& row, QPoint pos)
{
    if (!m_tracks.hasFlameCharts()) return;
    if (row.kind == TimelineRows::Kind::Calls) {
        if (auto hit = callAt(pos)) {
            menu.addAction(tr("Zoom to %1").arg(m_tracks.flameLabel(*hit)), this,
                           [this, start = hit->start, end = hit->end] { zoomToSpan(start, end); });
        }
        if (row.pid >= 0)
            menu.addAction(tr("Hide the calls"), this,
                           [this, pid = row.pid] { m_view->setTaskShowsCalls(pid, false); });
        else
            menu.addAction(tr("Hide the calls"), this, [this, s = row.stream] { m_view->setCpuShowsCalls(s, false); });
        return;
    }
    if (row.kind == TimelineRows::Kind::Task)
        menu.addAction(m_view->taskShowsCalls(row.pid) ? tr("Hide its calls") : tr("Show its calls (flame chart)"),
                       this, [this, pid = row.pid] { m_view->setTaskShowsCalls(pid, !m_view->taskShowsCalls(pid)); });
    if (row.kind == TimelineRows::Kind::Cpu)
        menu.addAction(m_view->cpuShowsCalls(row.stream) ? tr("Hide the calls run on this CPU")
                                                         : tr("Show the calls run on this CPU (flame chart)"),
                       this, [this, s = row.stream] { m_view->setCpuShowsCalls(s, !m_view->cpuShowsCalls(s)); });
}

std::pair<int32_t, uint64_t> TimelineWidget::taskForLabel(const TimelineRows::Row& row) const
{
    const TraceSession& session = sessionOf(row);
    const TimeRange range = m_view->visibleRange();
    uint64_t t = range.start + range.span() / 2;
    if (auto sel = m_view->selection(); isActive(row) && sel && range.contains(session.store().timestamp(*sel)))
        t = session.store().timestamp(*sel);
    return {session.pidRunningAt(row.stream, t), t};
}

QString TimelineWidget::labelToolTip(const TimelineRows::Row& row) const
{
    const TraceSession& session = sessionOf(row);
    const EventStore& store = session.store();
    const bool several = m_rows.recordingCount() > 1;
    const QString file = several ? QDir::toNativeSeparators(session.path) : QFileInfo(session.path).fileName();
    const QString others = several && !isActive(row)
                               ? tr("\nA click on one of its events shows %1 in the table and details").arg(file)
                               : QString();
    if (row.kind == TimelineRows::Kind::GuestTask)
        return tr("%1: the host thread %2 that runs this vCPU\nSolid: in the guest (kvm_entry to kvm_exit); "
                  "faint: running in the host")
                   .arg(file, row.label) +
               others;
    if (row.kind == TimelineRows::Kind::QueryTrack) {
        const QVector<QueryTrackSpec>& tracks = m_view->queryTracks();
        const QString sql = row.sliceTable < tracks.size() ? tracks[row.sliceTable].sql : QString();
        const TrackTable* table = m_rows.queryTableOf(row);
        return tr("Query track \"%1\"%2\n%3\nRight-click to remove it")
            .arg(row.label, table ? tr(", %1 rows").arg(QLocale().toString(qulonglong(table->rows()))) : QString(),
                 sql);
    }
    const QString buffer = QString::fromStdString(store.buffers()[row.buffer].name);
    QString where = buffer.isEmpty() ? tr("top-level buffer") : tr("buffer \"%1\"").arg(buffer);
    if (several) where = tr("%1 of %2").arg(where, file);
    if (row.kind == TimelineRows::Kind::BufferHeader) {
        const size_t cpus = store.buffers()[row.buffer].streams.size();
        return tr("%1, %2\nClick to collapse or expand").arg(where, cpus == 1 ? tr("1 CPU") : tr("%1 CPUs").arg(cpus)) +
               others;
    }
    if (row.kind == TimelineRows::Kind::Cpu) {
        QString text = tr("CPU %1 of the %2, %3 events")
                           .arg(store.stream(row.stream).cpu)
                           .arg(where)
                           .arg(QLocale().toString(qulonglong(store.stream(row.stream).columns.size())));
        const auto [pid, t] = taskForLabel(row);
        const QString at = timeline::formatTimestamp(t, 1000, clockUnit());
        if (pid > 0)
            text += tr("\nDouble-click: add a row for %1-%2, running here at %3 (the selection, or else mid-view)")
                        .arg(QString::fromStdString(session.taskName(pid)))
                        .arg(pid)
                        .arg(at);
        else
            text += tr("\nNo task runs here at %1 (the selection, or else mid-view); double-click on the row "
                       "where a task runs adds its row")
                        .arg(at);
        return text + others;
    }
    return row.label;
}

void TimelineWidget::contextMenuEvent(QContextMenuEvent* e)
{
    if (!m_session) return;
    const int index = m_rows.rowAt(contentY(e->pos().y()));
    if (index < 0) return;
    const auto row = m_rows.rows()[index];
    QMenu menu(this);
    if (m_rows.recordingCount() > 1 && row.kind == TimelineRows::Kind::BufferHeader) {
        // Recordings far apart in time each take a sliver of the whole: one click to show one.
        const EventStore& store = sessionOf(row).store();
        if (store.eventCount() > 0)
            menu.addAction(tr("Zoom to %1").arg(QFileInfo(sessionOf(row).path).fileName()), this,
                           [this, range = TimeRange{store.firstTimestamp(), store.lastTimestamp() + 1}] {
                               m_view->setVisibleRange(range);
                           });
    }
    if (!isActive(row)) {
        // Another recording's row: what the panes need first is that recording.
        const QString file = QFileInfo(sessionOf(row).path).fileName();
        menu.addAction(tr("Show %1 in the table and details").arg(file), this,
                       [this, r = row.recording] { emit recordingActivated(r, std::nullopt, 0); });
        if (row.kind == TimelineRows::Kind::BufferHeader)
            menu.addAction(m_rows.isCollapsed(row.recording, row.buffer) ? tr("Expand") : tr("Collapse"), this,
                           [this, row] { toggleInactiveGroup(row); });
        menu.exec(e->globalPos());
        return;
    }
    int32_t taskPid = row.kind == TimelineRows::Kind::Task ? row.pid : -1;
    if (row.kind == TimelineRows::Kind::Cpu)
        taskPid = e->pos().x() >= kLabelWidth ? m_session->pidRunningAt(row.stream, timeAtX(e->pos().x()))
                                              : taskForLabel(row).first;
    if (row.kind == TimelineRows::Kind::Cpu && taskPid > 0 && !m_view->hasTaskRow(taskPid))
        menu.addAction(
            tr("Add task row for %1-%2").arg(QString::fromStdString(m_session->taskName(taskPid))).arg(taskPid), this,
            [this, pid = taskPid] { m_view->addTaskRow(pid); });
    if (row.kind == TimelineRows::Kind::BufferHeader)
        menu.addAction(m_view->isCollapsed(row.buffer) ? tr("Expand buffer") : tr("Collapse buffer"), this,
                       [this, b = row.buffer] { m_view->setCollapsed(b, !m_view->isCollapsed(b)); });
    if (taskPid > 0) {
        const ProcessGroups& processes = m_session->trace->processes();
        const size_t members = processes.members(taskPid).size();
        QAction* process = menu.addAction(members == 1 ? tr("Add a row for this process (its only known task)")
                                                       : tr("Add rows for the %1 tasks of this process").arg(members),
                                          this, [this, taskPid] { addProcessRows(taskPid); });
        if (!processes.available()) {
            process->setText(tr("Tasks of this process: unknown (the recording has no task:task_newtask events)"));
            process->setEnabled(false);
        }
    }
    if (row.kind == TimelineRows::Kind::Task)
        menu.addAction(tr("Remove this task row"), this, [this, pid = row.pid] { m_view->removeTaskRow(pid); });
    if (row.kind == TimelineRows::Kind::Counters) addCounterActions(menu, row);
    if (row.kind == TimelineRows::Kind::QueryTrack)
        menu.addAction(tr("Remove the query track \"%1\"").arg(row.label), this,
                       [this, index = row.sliceTable] { m_view->removeQueryTrack(index); });
    addCallsActions(menu, row, e->pos());
    if (e->pos().x() >= kLabelWidth) {
        const uint64_t t = timeAtX(e->pos().x());
        menu.addAction(tr("Set marker A here"), this, [this, t] { m_view->setMarkerA(t); });
        menu.addAction(tr("Set marker B here"), this, [this, t] { m_view->setMarkerB(t); });
        menu.addAction(tr("Count time from here"), this, [this, t] { m_view->setTimeOrigin(t); });
    }
    if (m_view->timeOrigin())
        menu.addAction(tr("Show absolute time"), this, [this] { m_view->setTimeOrigin(std::nullopt); });
    if (!menu.isEmpty()) menu.exec(e->globalPos());
}

void TimelineWidget::addCounterActions(QMenu& menu, const TimelineRows::Row& row)
{
    QAction* share = menu.addAction(tr("Counters of one unit share a row"), this,
                                    [this](bool on) { m_rows.setCountersShareRows(on); });
    share->setCheckable(true);
    share->setChecked(m_rows.countersShareRows());
    // A plotted field or a query's counter (the session's query tracks, keyed query_N) goes as
    // it came: from its context menu.
    if (const std::optional<CounterGroup> group = counterGroupOf(row))
        for (const CounterTable* table : group->tables) {
            const std::string& key = table->spec().key;
            if (key.rfind("query_", 0) != 0) continue;
            const int index = std::atoi(key.c_str() + 6);
            menu.addAction(tr("Remove the counter \"%1\"").arg(QString::fromStdString(table->spec().title)), this,
                           [this, index] { m_view->removeQueryTrack(index); });
        }
}

} // namespace ringside
