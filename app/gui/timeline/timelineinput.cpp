// SPDX-License-Identifier: GPL-2.0-or-later
// TimelineWidget, continued: the mouse and keys on the data (zoom, pan, select, markers, call
// lanes), what lies under the pointer, and its tooltips (see timelinewidget.cpp for painting).
#include "timeline/timelinewidget.h"

#include <QFileInfo>
#include <QHelpEvent>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <utility>

namespace ringside {

using timeline::TimeRange;

void TimelineWidget::zoomBy(double factor, int anchorX)
{
    if (!m_session) return;
    const uint64_t anchor = timeAtX(std::clamp(anchorX, kLabelWidth, width()));
    m_view->setVisibleRange(timeline::zoomAround(m_view->visibleRange(), anchor, factor, m_view->fullRange()));
}

void TimelineWidget::panByPixels(int dx)
{
    const TimeRange range = m_view->visibleRange();
    const double nsPerPixel = double(range.span()) / dataWidth();
    m_view->setVisibleRange(timeline::pan(range, int64_t(std::llround(-dx * nsPerPixel)), m_view->fullRange()), false);
}

void TimelineWidget::wheelEvent(QWheelEvent* e)
{
    const QPoint delta = e->angleDelta();
    const bool ctrl = e->modifiers() & Qt::ControlModifier;
    if (ctrl != m_plainWheelZooms && !(e->modifiers() & Qt::ShiftModifier) && delta.x() == 0) {
        zoomBy(std::pow(0.8, delta.y() / 120.0), int(e->position().x()));
    } else if ((e->modifiers() & Qt::ShiftModifier) || delta.x() != 0) {
        panByPixels((delta.x() != 0 ? delta.x() : delta.y()) / 2);
    } else {
        m_scrollY -= delta.y() / 4;
        clampScroll();
        update();
    }
    e->accept();
}

void TimelineWidget::mousePressEvent(QMouseEvent* e)
{
    setFocus();
    m_pressPos = e->pos();
    m_lastDragX = e->pos().x();
    m_moved = false;
    if (e->button() != Qt::LeftButton) return;
    if (e->pos().y() < kRulerHeight && e->pos().x() >= kLabelWidth)
        m_drag = Drag::RulerRange;
    else
        m_drag = Drag::Pan;
}

void TimelineWidget::mouseMoveEvent(QMouseEvent* e)
{
    m_hoverX = e->pos().x();
    if (m_drag != Drag::None && (e->pos() - m_pressPos).manhattanLength() > 3) m_moved = true;
    if (m_drag == Drag::Pan && m_moved) panByPixels(e->pos().x() - m_lastDragX);
    m_lastDragX = e->pos().x();
    update();
}

void TimelineWidget::mouseReleaseEvent(QMouseEvent* e)
{
    const Drag drag = m_drag;
    m_drag = Drag::None;
    if (e->button() != Qt::LeftButton || !m_session) return;
    if (drag == Drag::RulerRange && m_moved) {
        const uint64_t a = timeAtX(m_pressPos.x()), b = timeAtX(e->pos().x());
        if (a != b) m_view->setVisibleRange({std::min(a, b), std::max(a, b)});
        update();
        return;
    }
    if (m_moved) return;
    if (std::exchange(m_ignoreRelease, false)) return;
    const int index = m_rows.rowAt(contentY(e->pos().y()));
    if (index >= 0 && m_rows.rows()[index].kind == TimelineRows::Kind::BufferHeader && e->pos().y() >= kRulerHeight) {
        const TimelineRows::Row& row = m_rows.rows()[index];
        if (isActive(row)) {
            m_view->setCollapsed(row.buffer, !m_view->isCollapsed(row.buffer));
        } else {
            toggleInactiveGroup(row);
        }
        return;
    }
    if (e->pos().x() < kLabelWidth) return;
    const uint64_t t = timeAtX(e->pos().x());
    if (e->modifiers() & Qt::ShiftModifier)
        m_view->setMarkerA(t);
    else if (e->modifiers() & Qt::ControlModifier)
        m_view->setMarkerB(t);
    else if (index >= 0 && m_rows.rows()[index].kind == TimelineRows::Kind::Calls)
        selectCallAt(e->pos());
    else if (auto hit = anyEventNear(e->pos().x(), e->pos().y())) {
        if (hit->recording == m_rows.activeRecording())
            m_view->select(hit->event);
        else
            emit recordingActivated(hit->recording, hit->event, 0);
    } else if (index >= 0 && m_rows.rows()[index].kind == TimelineRows::Kind::Task)
        pickSpan(m_rows.rows()[index], t);
    else if (index >= 0 && m_rows.rows()[index].kind == TimelineRows::Kind::QueryTrack)
        pickQuerySlice(m_rows.rows()[index], t);
}

void TimelineWidget::pickSpan(const TimelineRows::Row& row, uint64_t t)
{
    // Inside a long system call or sleep no event is near: the slice or state there is what
    // the user pointed at. Its ends become the markers (the interval on the timeline, its
    // length in the status bar), and the event that began it (else ended it) is selected, so
    // the details show its fields.
    const TimelineRows::TaskData* task = m_rows.task(row.pid);
    if (!task) return;
    const uint64_t slack = m_view->visibleRange().span() / uint64_t(std::max(dataWidth(), 1)) * 2;
    const auto span = m_tracks.spanAt(task->task, t, slack);
    if (!span) {
        emit notice(tr("Nothing recorded for this task here: no event, system call or state"));
        return;
    }
    m_view->setMarkerA(span->start);
    m_view->setMarkerB(span->end);
    if (span->startEvent.valid())
        m_view->select(span->startEvent);
    else if (span->endEvent.valid())
        m_view->select(span->endEvent);
    emit notice(span->text);
}

void TimelineWidget::mouseDoubleClickEvent(QMouseEvent* e)
{
    if (!m_session || e->button() != Qt::LeftButton) return;
    const int index = m_rows.rowAt(contentY(e->pos().y()));
    if (index < 0 || e->pos().y() < kRulerHeight) return;
    const auto& row = m_rows.rows()[index];
    if (row.kind == TimelineRows::Kind::BufferHeader) {
        // The first click already toggled the buffer; the double-click's release must not undo it.
        m_ignoreRelease = true;
        return;
    }
    if (row.kind == TimelineRows::Kind::Calls) {
        if (auto hit = callAt(e->pos())) zoomToSpan(hit->start, hit->end);
        m_ignoreRelease = true;
        return;
    }
    if (row.kind != TimelineRows::Kind::Cpu && row.kind != TimelineRows::Kind::GuestTask) return;
    m_ignoreRelease = true; // no selection change on the second release
    int32_t pid = row.pid;
    if (row.kind == TimelineRows::Kind::Cpu) {
        const TraceSession& session = sessionOf(row);
        pid =
            e->pos().x() < kLabelWidth || !isActive(row)
                ? (isActive(row) ? taskForLabel(row).first
                                 : session.pidRunningAt(row.stream, timeAtX(std::max(e->pos().x(), kLabelWidth))))
                : session.pidRunningAt(row.stream, timeAtX(e->pos().x()));
    }
    if (pid <= 0) {
        emit notice(pid == 0 ? tr("The CPU is idle here (<idle>): no task to add a row for")
                             : tr("No task is recorded running on this CPU here: no row to add"));
        return;
    }
    if (isActive(row))
        m_view->addTaskRow(pid);
    else
        emit recordingActivated(row.recording, std::nullopt, pid);
}

bool TimelineWidget::handleKey(QKeyEvent* e)
{
    if (!m_session || (e->modifiers() & ~(Qt::KeypadModifier | Qt::ShiftModifier))) return false;
    const int anchor = (m_hoverX >= kLabelWidth && m_hoverX < width()) ? m_hoverX : kLabelWidth + dataWidth() / 2;
    // Around the selected event, kept in view (where it is, but off the screen's edges, or
    // brought to the middle); without one, around the pointer or the middle.
    auto zoomKey = [&](double factor) {
        if (const auto selected = m_view->selection()) {
            const EventStore& store = m_session->store();
            if (selected->stream.value < store.streamCount() &&
                selected->index < store.stream(selected->stream).columns.size())
                return m_view->setVisibleRange(timeline::zoomKeepingInView(
                    m_view->visibleRange(), store.timestamp(*selected), factor, m_view->fullRange()));
        }
        zoomBy(factor, anchor);
    };
    switch (e->key()) {
    case Qt::Key_W:
    case Qt::Key_Plus:
    case Qt::Key_Equal: zoomKey(0.5); break;
    case Qt::Key_S:
    case Qt::Key_Minus: zoomKey(2.0); break;
    case Qt::Key_A:
    case Qt::Key_Left: panByPixels(dataWidth() / 5); break;
    case Qt::Key_D:
    case Qt::Key_Right: panByPixels(-dataWidth() / 5); break;
    case Qt::Key_0:
    case Qt::Key_Home: m_view->zoomToFit(); break;
    case Qt::Key_Backspace: m_view->zoomBack(); break;
    default: return false;
    }
    e->accept();
    return true;
}

void TimelineWidget::keyPressEvent(QKeyEvent* e)
{
    if (!handleKey(e)) QWidget::keyPressEvent(e);
}

void TimelineWidget::leaveEvent(QEvent*)
{
    m_hoverX = -1;
    update();
}

void TimelineWidget::resizeEvent(QResizeEvent*)
{
    m_rows.setViewportHeight(height() - kRulerHeight);
    clampScroll();
}

std::optional<EventRef> TimelineWidget::eventNear(int x, int y, int slack) const
{
    auto hit = anyEventNear(x, y, slack);
    if (!hit || hit->recording != m_rows.activeRecording()) return std::nullopt;
    return hit->event;
}

std::optional<TimelineWidget::RecordingEvent> TimelineWidget::anyEventNear(int x, int y, int slack) const
{
    if (!m_session || x < kLabelWidth) return std::nullopt;
    const int index = m_rows.rowAt(contentY(y));
    if (index < 0) return std::nullopt;
    const auto& row = m_rows.rows()[index];
    const TraceSession& session = sessionOf(row);
    const EventStore& store = session.store();
    // The filter is the active recording's.
    const FilterResult* filter = isActive(row) ? m_filter.get() : nullptr;
    const uint64_t t = timeAtX(x);
    std::optional<EventRef> best;
    int bestDistance = slack + 1;
    auto consider = [&](EventRef e) {
        if (filter && !filter->perStream[e.stream.value].contains(e.index)) return;
        const int d = std::abs(xOfTime(store.timestamp(e)) - x);
        if (d < bestDistance) bestDistance = d, best = e;
    };
    if (row.kind == TimelineRows::Kind::Cpu) {
        const auto& ts = store.stream(row.stream).columns.timestamp;
        const size_t i = ts.lowerBound(t, 0, ts.size());
        if (filter) {
            // The nearest shown events on either side.
            const RowSet& shown = filter->perStream[row.stream.value];
            const size_t k = shown.rank(i);
            if (k < shown.size()) consider({row.stream, static_cast<uint32_t>(shown.select(k))});
            if (k > 0) consider({row.stream, static_cast<uint32_t>(shown.select(k - 1))});
        } else {
            if (i < ts.size()) consider({row.stream, static_cast<uint32_t>(i)});
            if (i > 0) consider({row.stream, static_cast<uint32_t>(i - 1)});
        }
    } else if (row.kind == TimelineRows::Kind::Task || row.kind == TimelineRows::Kind::GuestTask) {
        const auto* data = row.kind == TimelineRows::Kind::Task ? m_rows.task(row.pid) : nullptr;
        const TaskId task = data ? data->task : row.task;
        if (!task.valid()) return std::nullopt;
        // Per stream the task's nearest events on either side of t (looking past a few that
        // the filter hides).
        for (const TaskIndex::StreamRuns& list : session.trace->taskIndex().streams(task)) {
            auto shown = [&](uint64_t j) {
                const EventRef e = TaskIndex::eventAt(list, j);
                return !filter || filter->perStream[e.stream.value].contains(e.index);
            };
            const uint64_t k = TaskIndex::countBefore(store, list, t);
            for (uint64_t j = k; j < list.events() && j < k + 64; ++j)
                if (shown(j)) {
                    consider(TaskIndex::eventAt(list, j));
                    break;
                }
            for (uint64_t j = k; j > 0 && j + 64 > k; --j)
                if (shown(j - 1)) {
                    consider(TaskIndex::eventAt(list, j - 1));
                    break;
                }
        }
    }
    if (!best) return std::nullopt;
    return RecordingEvent{row.recording, *best};
}

bool TimelineWidget::event(QEvent* e)
{
    if (e->type() == QEvent::ToolTip && m_session) {
        auto* help = static_cast<QHelpEvent*>(e);
        const int index = help->pos().y() >= kRulerHeight ? m_rows.rowAt(contentY(help->pos().y())) : -1;
        if (index >= 0 &&
            (help->pos().x() < kLabelWidth || m_rows.rows()[index].kind == TimelineRows::Kind::BufferHeader)) {
            QToolTip::showText(help->globalPos(), labelToolTip(m_rows.rows()[index]), this);
            return true;
        }
        if (index >= 0 && m_rows.rows()[index].kind == TimelineRows::Kind::Calls) {
            if (const QString text = callToolTip(help->pos()); !text.isEmpty())
                QToolTip::showText(help->globalPos(), text, this);
            else
                QToolTip::hideText();
        } else {
            // The nearest event's line; on a task row, what the plugins say of that moment: its
            // state, the system call or work item it is in, its marks.
            QStringList lines;
            if (index >= 0 && m_rows.rows()[index].kind == TimelineRows::Kind::Task) {
                const TimelineRows::TaskData* task = m_rows.task(m_rows.rows()[index].pid);
                const uint64_t t = timeAtX(help->pos().x());
                const uint64_t slack = m_view->visibleRange().span() / uint64_t(dataWidth()) * 2;
                if (task) {
                    const QString line = m_tracks.describeTask(task->task, t, slack);
                    if (!line.isEmpty()) lines << line;
                }
            }
            if (index >= 0 && m_rows.rows()[index].kind == TimelineRows::Kind::SliceTrack) {
                const TimelineRows::Row& row = m_rows.rows()[index];
                const uint64_t slack = m_view->visibleRange().span() / uint64_t(dataWidth()) * 2;
                if (auto hit =
                        tracksOf(row).sliceAt(row.counterOwner, counterOwnerOf(row), timeAtX(help->pos().x()), slack))
                    lines << tracksOf(row).sliceText(*hit);
            }
            if (index >= 0 && m_rows.rows()[index].kind == TimelineRows::Kind::QueryTrack) {
                const TimelineRows::Row& row = m_rows.rows()[index];
                const uint64_t slack = m_view->visibleRange().span() / uint64_t(dataWidth()) * 2;
                const TrackTable* table = m_rows.queryTableOf(row);
                if (table && table->kind() == TrackTable::Kind::Slices) {
                    if (auto hit = m_tracks.sliceAt(static_cast<const SliceTable&>(*table), TrackRenderer::kEveryOwner,
                                                    timeAtX(help->pos().x()), slack))
                        lines << querySliceText(*hit, *table);
                } else if (const std::optional<CounterGroup> group = counterGroupOf(row)) {
                    lines << m_tracks.counterReadout(*group, 0, m_view->visibleRange(), timeAtX(help->pos().x()))
                                 .join('\n');
                } else {
                    lines << queryTrackNote(row, table);
                }
            }
            if (index >= 0 && m_rows.rows()[index].kind == TimelineRows::Kind::Counters) {
                const TimelineRows::Row& row = m_rows.rows()[index];
                if (const std::optional<CounterGroup> group = counterGroupOf(row))
                    lines << tracksOf(row)
                                 .counterReadout(*group, counterOwnerOf(row), m_view->visibleRange(),
                                                 timeAtX(help->pos().x()))
                                 .join('\n');
            }
            if (index >= 0 && m_rows.rows()[index].kind == TimelineRows::Kind::Cpu) {
                const TimelineRows::Row& row = m_rows.rows()[index];
                const uint64_t slack = m_view->visibleRange().span() / uint64_t(dataWidth()) * 2;
                const QString line = tracksOf(row).describeCpu(row.stream, timeAtX(help->pos().x()), slack);
                if (!line.isEmpty()) lines << line;
            }
            if (index >= 0 && m_rows.rows()[index].kind == TimelineRows::Kind::GuestTask) {
                const TimelineRows::Row& row = m_rows.rows()[index];
                const uint64_t t = timeAtX(help->pos().x());
                const uint64_t slack = m_view->visibleRange().span() / uint64_t(dataWidth());
                const timeline::ClockUnit unit = clockUnit();
                const TraceSession& host = sessionOf(row);
                const std::optional<IntervalRow> stay =
                    row.task.valid() ? tracksOf(row).guestStayAt(row.task, t, slack) : std::nullopt;
                if (stay && stay->end == IntervalTable::kOpenEnd) {
                    lines << tr("In the guest from %1 on: no kvm_exit recorded after it")
                                 .arg(timeline::formatTimestamp(stay->start, 1, unit));
                } else if (stay) {
                    // The exit as the table says it: the reason by name, where the guest was.
                    std::string exit;
                    for (const EventRef e : host.trace->taskIndex().eventsAt(host.store(), row.pid, stay->end)) {
                        const uint16_t type = host.store().stream(e.stream).columns.eventType[e.index];
                        if (exit.empty() || host.formatter->eventName(type) == "kvm_exit") exit = host.formatter->info(e);
                    }
                    lines << tr("In the guest for %1 from %2, until kvm_exit: %3")
                                 .arg(timeline::formatDuration(int64_t(stay->end - stay->start), unit))
                                 .arg(timeline::formatTimestamp(stay->start, 1, unit))
                                 .arg(QString::fromStdString(exit).simplified());
                } else {
                    lines << tr("In the host (not between a kvm_entry and its kvm_exit)");
                }
            }
            if (auto hit = anyEventNear(help->pos().x(), help->pos().y())) {
                const TraceSession& session = *m_rows.session(m_rows.rows()[index]);
                QString line = QString::fromStdString(session.formatter->reportLine(hit->event)).trimmed();
                if (m_rows.recordingCount() > 1) line = QFileInfo(session.path).fileName() + ": " + line;
                lines << line;
            }
            if (lines.isEmpty())
                QToolTip::hideText();
            else
                QToolTip::showText(help->globalPos(), lines.join('\n'), this);
        }
        return true;
    }
    return QWidget::event(e);
}

} // namespace ringside
