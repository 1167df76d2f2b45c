// SPDX-License-Identifier: GPL-2.0-or-later
// The timeline's calls rows: a CPU's or task's function_graph calls in lanes by depth, laid out
// by the track renderer's workers; what is under the pointer, the selected call kept in view.
#include "timeline/timelinewidget.h"

#include "calls/callcontext.h"

#include <QPainter>

namespace ringside {

void TimelineWidget::revealSelectedCall()
{
    update();
    if (!m_session || !m_session->trace || !m_view->selectedCall()) return;
    const CallSlices& calls = m_session->trace->callSlices();
    const uint32_t call = *m_view->selectedCall();
    if (call >= calls.size()) return;
    // Its task's calls row or its CPU's: none moves while one of them is in view (the click
    // that selected it was there).
    const auto& rows = m_rows.rows();
    const int visible = height() - kRulerHeight;
    int index = -1;
    for (int i = 0; i < rows.size(); ++i) {
        if (rows[i].kind != TimelineRows::Kind::Calls || rows[i].recording != m_rows.activeRecording() ||
            (rows[i].pid >= 0 ? rows[i].pid != calls.pid(call) : rows[i].stream != calls.stream(call)))
            continue;
        const int top = m_rows.rowTop(i);
        if (top < m_scrollY + visible && top + rows[i].height > m_scrollY) return;
        if (index < 0) index = i;
    }
    if (index < 0) return;
    // The row above it (its CPU's or task's) too, when there is room.
    m_scrollY = m_rows.rowTop(index > 0 ? index - 1 : index);
    clampScroll();
}

QRect TimelineWidget::callLanesRect(int index) const
{
    const TimelineRows::Row& row = m_rows.rows()[index];
    const int top = kRulerHeight - m_scrollY + m_rows.rowTop(index) + TimelineRows::kCallsPadding / 2;
    return QRect(kLabelWidth, top, dataWidth(), std::max(1, row.lanes) * TimelineRows::kLaneHeight);
}

std::pair<RowOwner, uint32_t> TimelineWidget::callsOwner(const TimelineRows::Row& callsRow) const
{
    if (callsRow.pid < 0) return {RowOwner::Cpu, callsRow.stream.value};
    const TimelineRows::TaskData* data = m_rows.task(callsRow.pid);
    return {RowOwner::Task, data ? data->task.value : TaskId().value};
}

void TimelineWidget::paintCallsRow(QPainter& p, const TimelineRows::Row& row, int top, int index)
{
    const auto [kind, owner] = callsOwner(row);
    const std::optional<TrackRenderer::FlameExtent> extent = m_tracks.flameExtent(kind, owner);
    const QRect area = callLanesRect(index);
    QString note;
    if (!extent)
        note = tr("laying out the calls\u2026");
    else if (extent->slices == 0)
        note = row.pid >= 0 ? tr("no function_graph calls recorded for this task")
                            : tr("no function_graph calls recorded on this CPU");
    if (!note.isEmpty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(area.adjusted(8, 0, 0, 0), Qt::AlignVCenter | Qt::AlignLeft, note);
        return;
    }
    p.save();
    p.setClipRect(area.intersected(QRect(kLabelWidth, kRulerHeight, dataWidth(), height() - kRulerHeight)));
    m_tracks.paintFlame(p, kind, owner, area, m_view->visibleRange());
    p.restore();
    // The depth of each lane, in the label column when the lanes are tall enough to read.
    p.setPen(palette().color(QPalette::PlaceholderText));
    for (int lane = 1; lane < extent->lanes; ++lane) {
        const int y = area.top() + lane * TimelineRows::kLaneHeight;
        if (y + TimelineRows::kLaneHeight > top + row.height) break;
        if (lane % 5 == 0)
            p.drawText(QRect(0, y, kLabelWidth - 6, TimelineRows::kLaneHeight), Qt::AlignVCenter | Qt::AlignRight,
                       QString::number(lane));
    }
}

void TimelineWidget::onLanesReady()
{
    // Calls rows take the height their lanes need.
    const QVector<TimelineRows::Row> rows = m_rows.rows();
    for (const TimelineRows::Row& row : rows)
        if (row.kind == TimelineRows::Kind::Calls) {
            const auto [kind, owner] = callsOwner(row);
            if (auto extent = m_tracks.flameExtent(kind, owner)) m_rows.setLaneCount(row, extent->lanes);
        }
    m_cacheKey = CacheKey(); // what was drawn before they were ready
    update();
}

void TimelineWidget::layOutCallsNow()
{
    const QVector<TimelineRows::Row> rows = m_rows.rows();
    for (const TimelineRows::Row& row : rows)
        if (row.kind == TimelineRows::Kind::Calls) {
            const auto [kind, owner] = callsOwner(row);
            m_tracks.layOutFlameNow(kind, owner);
        }
    onLanesReady();
}

std::optional<TrackRenderer::FlameHit> TimelineWidget::callAt(QPoint pos)
{
    if (!m_session || pos.y() < kRulerHeight) return std::nullopt;
    const int index = m_rows.rowAt(contentY(pos.y()));
    if (index < 0 || m_rows.rows()[index].kind != TimelineRows::Kind::Calls) return std::nullopt;
    const auto [kind, owner] = callsOwner(m_rows.rows()[index]);
    return m_tracks.flameAt(kind, owner, callLanesRect(index), m_view->visibleRange(), pos);
}

QString TimelineWidget::callToolTip(QPoint pos)
{
    const std::optional<TrackRenderer::FlameHit> hit = callAt(pos);
    if (!hit) return {};
    // Which task made the call and where: a task row's, or the task that ran on the CPU then.
    const TimelineRows::Row& row = m_rows.rows()[m_rows.rowAt(contentY(pos.y()))];
    QString where;
    if (row.pid >= 0) {
        where = tr("%1-%2").arg(QString::fromStdString(m_session->taskName(row.pid))).arg(row.pid);
    } else {
        const Stream& stream = m_session->store().stream(row.stream);
        where = tr("on CPU %1").arg(stream.cpu);
        // Without scheduling events, the task of the CPU's record where the call began.
        std::optional<int32_t> pid;
        if (const TaskId task = m_session->trace->runningTasks().taskAt(row.stream, hit->start); task.valid())
            pid = m_session->trace->taskIndex().task(task).pid;
        if (!pid) {
            const size_t at = stream.columns.timestamp.lowerBound(hit->start, 0, stream.columns.size());
            if (at < stream.columns.size() && stream.columns.timestamp[at] == hit->start) pid = stream.columns.pid[at];
        }
        if (pid) where = tr("%1-%2 %3").arg(QString::fromStdString(m_session->taskName(*pid))).arg(*pid).arg(where);
    }
    return m_tracks.flameToolTip(*hit, where);
}

void TimelineWidget::selectCallAt(QPoint pos)
{
    // The selection holds a row of the calls table (the call tree and details pane follow it).
    const std::optional<TrackRenderer::FlameHit> hit = callAt(pos);
    if (!hit || hit->id == SliceTable::kNoId || hit->table->key() != CallSlices::kTableKey) return;
    m_view->selectCall(hit->id, callRecord(*m_session->trace, m_session->trace->callSlices(), hit->id));
}

} // namespace ringside
