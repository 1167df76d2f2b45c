// SPDX-License-Identifier: GPL-2.0-or-later
// The timeline: its rows painted (CPUs, tasks, calls, plugin layers), the ruler and overlays,
// and the image export (timelineinput.cpp has the mouse and keys, timelinelabels.cpp the labels,
// timelinecalls.cpp the calls rows).
#include "timeline/timelinewidget.h"

#include "timeline/taskcolors.h"

#include "calls/callslices.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QPainter>
#include <QScrollBar>
#include <QSvgGenerator>

#include <algorithm>
#include <cmath>
#include <utility>

namespace ringside {

using timeline::TimeRange;

TimelineWidget::TimelineWidget(ViewState* view, QWidget* parent) : QWidget(parent), m_view(view)
{
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    setMinimumHeight(kRulerHeight + 3 * TimelineRows::kCpuHeight);
    m_rowScroll = new QScrollBar(Qt::Vertical, this);
    m_rowScroll->hide();
    connect(m_rowScroll, &QScrollBar::valueChanged, this, [this](int value) {
        m_scrollY = value;
        update();
    });
    connect(view, &ViewState::visibleRangeChanged, this, qOverload<>(&QWidget::update));
    connect(view, &ViewState::selectionChanged, this, &TimelineWidget::revealSelectedCall);
    connect(view, &ViewState::markersChanged, this, qOverload<>(&QWidget::update));
    connect(view, &ViewState::timeOriginChanged, this, qOverload<>(&QWidget::update));
    connect(view, &ViewState::taskRowsChanged, this, &TimelineWidget::syncRowsFromView);
    connect(view, &ViewState::collapsedChanged, this, &TimelineWidget::syncRowsFromView);
    connect(view, &ViewState::callRowsChanged, this, &TimelineWidget::syncRowsFromView);
    connect(view, &ViewState::queryTracksChanged, this, &TimelineWidget::syncQueryTracks);
    m_tracks.setFlameReady([this] { onLanesReady(); });
}

void TimelineWidget::setFilter(std::shared_ptr<const FilterResult> filter, const std::vector<bool>& hiddenStreams)
{
    m_filter = std::move(filter);
    ++m_filterVersion;
    m_rows.setHiddenStreams(hiddenStreams);
    update();
}

void TimelineWidget::install(const TraceSession* session)
{
    m_session = session;
    m_filter.reset();
    m_tracks.setSession(session);
    // The other recordings' renderers hold their sessions' tables, which may be gone now: they
    // are made again for the rows drawn (tracksOf).
    m_otherTracks.clear();
}

TrackRenderer& TimelineWidget::tracksOf(const TimelineRows::Row& row)
{
    if (isActive(row)) return m_tracks;
    if (m_otherTracks.size() <= row.recording) m_otherTracks.resize(row.recording + 1u);
    TrackRenderer& tracks = m_otherTracks[row.recording];
    tracks.setSession(m_rows.session(row));
    return tracks;
}

void TimelineWidget::tablesGrew()
{
    m_tracks.tablesGrew();
    for (TrackRenderer& tracks : m_otherTracks) tracks.tablesGrew();
    m_rows.tablesGrew(); // an owner's first counter values give it a counter row
    m_cacheKey = CacheKey();
    update();
}

void TimelineWidget::tracksChanged()
{
    m_tracks.setSession(m_session);
    syncQueryTracks(); // a query track's row is as tall as what its table draws
    m_rows.tablesGrew();
    m_cacheKey = CacheKey();
    update();
}

void TimelineWidget::syncQueryTracks()
{
    QStringList names;
    for (const QueryTrackSpec& track : m_view->queryTracks()) names << track.name;
    const bool added = names.size() > m_shownQueryTracks;
    m_shownQueryTracks = int(names.size());
    m_rows.setQueryTracks(names);
    // A track just added is where the user looks next: its row is scrolled into view.
    const auto& rows = m_rows.rows();
    for (int i = rows.size(); added && i-- > 0;)
        if (rows[i].kind == TimelineRows::Kind::QueryTrack) {
            const int top = m_rows.rowTop(i), view = height() - kRulerHeight;
            if (top < m_scrollY || top + rows[i].height > m_scrollY + view)
                m_scrollY = std::max(0, top - 2 * TimelineRows::kHeaderHeight);
            clampScroll();
            break;
        }
    m_cacheKey = CacheKey();
    update();
}

void TimelineWidget::setSession(const TraceSession* session)
{
    install(session);
    m_rows.setSession(session);
    m_rows.setViewportHeight(height() - kRulerHeight);
    m_scrollY = 0;
    m_cacheKey = CacheKey();
    syncRowsFromView();
    update();
}

void TimelineWidget::toggleInactiveGroup(const TimelineRows::Row& row)
{
    // Another recording's groups fold here; its saved view is the window's to keep.
    m_rows.toggleBuffer(row.recording, row.buffer);
    emit inactiveGroupFolded(row.recording, row.buffer, m_rows.isCollapsed(row.recording, row.buffer));
    update();
}

void TimelineWidget::setRecordings(const RecordingSet& set, size_t active)
{
    std::vector<const TraceSession*> sessions;
    for (size_t i = 0; i < set.size(); ++i) sessions.push_back(set.at(i).get());
    install(active < sessions.size() ? sessions[active] : nullptr);
    m_rows.setRecordings(std::move(sessions), active, set.guestViews());
    m_rows.setViewportHeight(height() - kRulerHeight);
    m_cacheKey = CacheKey();
    syncRowsFromView();
    update();
}

uint64_t TimelineWidget::timeAtX(int x) const
{
    return timeline::xToTime(x - kLabelWidth, m_view->visibleRange(), dataWidth());
}

int TimelineWidget::xOfTime(uint64_t t) const
{
    return kLabelWidth + int(std::floor(timeline::timeToX(t, m_view->visibleRange(), dataWidth())));
}

void TimelineWidget::clampScroll()
{
    const int visible = height() - kRulerHeight;
    const int most = std::max(0, m_rows.totalHeight() - visible);
    m_scrollY = std::clamp(m_scrollY, 0, most);
    // Rows cut at the bottom say so with a scroll bar beside them.
    const bool shown = most > 0;
    if (shown != (m_scrollBarWidth > 0)) {
        m_scrollBarWidth = shown ? m_rowScroll->sizeHint().width() : 0;
        m_rowScroll->setVisible(shown);
        m_cache = QPixmap(); // the rows are narrower or wider now
    }
    if (!shown) return;
    m_rowScroll->setGeometry(width() - m_scrollBarWidth, kRulerHeight, m_scrollBarWidth, visible);
    const QSignalBlocker quiet(m_rowScroll);
    m_rowScroll->setRange(0, most);
    m_rowScroll->setPageStep(visible);
    m_rowScroll->setSingleStep(TimelineRows::kTaskHeight);
    m_rowScroll->setValue(m_scrollY);
}

// ---- painting --------------------------------------------------------------------------

void TimelineWidget::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    // QWidget::render() to an SVG redirects this painter: draw shapes there, not the cache.
    paintView(p, p.device()->devType() == QInternal::Widget || p.device()->devType() == QInternal::Pixmap);
}

bool TimelineWidget::saveImage(const QString& path, QString* error)
{
    if (path.endsWith(".svg", Qt::CaseInsensitive)) {
        QSvgGenerator svg;
        svg.setFileName(path);
        svg.setSize(size());
        svg.setViewBox(rect());
        svg.setTitle(m_session ? QFileInfo(m_session->path).fileName() : QStringLiteral("Ringside"));
        svg.setDescription(tr("Ringside timeline"));
        QPainter p;
        if (!p.begin(&svg)) return *error = tr("%1: cannot write").arg(path), false;
        paintView(p, false);
        if (!p.end()) return *error = tr("%1: cannot write").arg(path), false;
        return true;
    }
    const qreal dpr = devicePixelRatioF();
    QImage image(size() * dpr, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(dpr);
    QPainter p(&image);
    paintView(p, false);
    p.end();
    if (image.save(path)) return true;
    *error = tr("%1: cannot write (a .png or .svg file)").arg(path);
    return false;
}

void TimelineWidget::paintView(QPainter& p, bool cached)
{
    p.fillRect(rect(), palette().base());
    if (!m_session) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("Open a recording with File > Open, or drop a .dat file here"));
        return;
    }
    if (m_session->store().eventCount() == 0 && m_session->growing()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter,
                   m_session->loading ? tr("Reading the recording: its first events come in a moment…")
                                      : tr("Capturing: waiting for the first events…"));
        return;
    }
    if (m_session->store().eventCount() == 0) {
        // Say why the view is empty rather than show blank rows.
        QStringList lines{tr("This recording holds no events.")};
        for (const auto& d : m_session->store().diagnostics().items())
            if (d.severity != Diagnostic::Severity::Info) lines << QString::fromStdString(d.message);
        if (lines.size() == 1) lines << tr("No CPU buffer of the file has trace data (see View > Trace health).");
        p.setPen(palette().color(QPalette::Text));
        p.drawText(rect().adjusted(20, 20, -20, -20), Qt::AlignCenter | Qt::TextWordWrap, lines.join('\n'));
        return;
    }
    clampScroll();
    if (!cached) {
        renderRows(p);
        p.setClipping(false);
        paintRuler(p);
        paintOverlays(p);
        return;
    }
    const qreal dpr = devicePixelRatioF();
    CacheKey key{m_view->visibleRange(), size(), m_scrollY, m_rows.version(), m_filterVersion, dpr};
    if (!(key == m_cacheKey) || m_cache.isNull()) {
        m_cache = QPixmap(size() * dpr);
        m_cache.setDevicePixelRatio(dpr);
        m_cache.fill(palette().color(QPalette::Base));
        QPainter cp(&m_cache);
        renderRows(cp);
        m_cacheKey = key;
    }
    p.drawPixmap(0, 0, m_cache);
    paintRuler(p);
    paintOverlays(p);
}

void TimelineWidget::renderRowsForBenchmark()
{
    m_cacheKey = CacheKey();
    QPixmap pixmap(size());
    pixmap.fill(Qt::white);
    QPainter p(&pixmap);
    renderRows(p);
}

void TimelineWidget::renderRows(QPainter& p)
{
    // A frame of rows (not a paint from the cache): what the renderers laid out for rows not
    // drawn since may go.
    m_tracks.beginFrame();
    for (TrackRenderer& tracks : m_otherTracks) tracks.beginFrame();
    QElapsedTimer timer;
    timer.start();
    const auto& rows = m_rows.rows();
    int top = kRulerHeight - m_scrollY;
    const QColor grid = palette().color(QPalette::Mid);
    p.setClipRect(0, kRulerHeight, width(), height() - kRulerHeight);
    for (int i = 0; i < rows.size(); ++i) {
        const auto& row = rows[i];
        if (top + row.height >= kRulerHeight && top < height()) {
            if (row.kind == TimelineRows::Kind::ProcessHeader) {
                p.fillRect(0, top, width(), row.height, palette().color(QPalette::AlternateBase));
                p.setPen(palette().color(QPalette::Text));
                p.drawText(QRect(8, top, width(), row.height), Qt::AlignVCenter | Qt::AlignLeft, row.label);
            } else if (row.kind == TimelineRows::Kind::BufferHeader) {
                p.fillRect(0, top, width(), row.height, palette().color(QPalette::AlternateBase));
                p.setPen(palette().color(QPalette::Text));
                const QString arrow = m_rows.isCollapsed(row.recording, row.buffer) ? QStringLiteral("\u25B8 ")
                                                                                    : QStringLiteral("\u25BE ");
                // With several recordings, the active one's headers stand out: the panes show it.
                QFont font = p.font();
                const bool bold = m_rows.recordingCount() > 1 && isActive(row);
                if (bold) {
                    QFont b = font;
                    b.setBold(true);
                    p.setFont(b);
                }
                const QRect box(6, top, width() - 12, row.height);
                p.drawText(box, Qt::AlignVCenter | Qt::AlignLeft,
                           p.fontMetrics().elidedText(arrow + row.label, Qt::ElideMiddle, box.width()));
                if (bold) p.setFont(font);
            } else {
                // CPU rows sit indented under their buffer's header (which names the buffer);
                // a label too long for the column is elided (a task's or vCPU thread's pid
                // stays), its tooltip has it in full.
                const int labelHeight = row.kind == TimelineRows::Kind::Calls ? TimelineRows::kLaneHeight : row.height;
                const QRect box(row.indent, top, kLabelWidth - row.indent - 4, labelHeight);
                p.setPen(palette().color(QPalette::Text));
                p.drawText(box, Qt::AlignVCenter | Qt::AlignLeft,
                           timeline::elideRowLabel(p.fontMetrics(), row.label, box.width()));
                if (row.kind == TimelineRows::Kind::Cpu)
                    paintCpuRow(p, row, top);
                else if (row.kind == TimelineRows::Kind::Task)
                    paintTaskRow(p, row, top);
                else if (row.kind == TimelineRows::Kind::GuestTask)
                    paintGuestTaskRow(p, row, top);
                else if (row.kind == TimelineRows::Kind::Counters)
                    paintCountersRow(p, row, top);
                else if (row.kind == TimelineRows::Kind::QueryTrack)
                    paintQueryTrackRow(p, row, top);
                else if (row.kind == TimelineRows::Kind::SliceTrack) {
                    if (const SliceTable* table = m_rows.sliceTableOf(row))
                        tracksOf(row).paintSliceRow(p, *table, counterOwnerOf(row),
                                                    QRect(kLabelWidth, top, dataWidth(), row.height - 1),
                                                    m_view->visibleRange());
                } else
                    paintCallsRow(p, row, top, i);
            }
            p.setPen(grid);
            p.drawLine(0, top + row.height - 1, width(), top + row.height - 1);
        }
        top += row.height;
    }
    p.setPen(grid);
    p.drawLine(kLabelWidth - 1, kRulerHeight, kLabelWidth - 1, height());
    // The plugins' flows between task rows (wakeups), when few enough to read; the selected
    // task's are drawn over the view anyway (paintOverlays).
    if (m_tracks.flowsIn(m_view->visibleRange()) <= TrackRenderer::kMaxFlowsDrawn) {
        p.setClipRect(kLabelWidth, kRulerHeight, dataWidth(), height() - kRulerHeight);
        m_tracks.paintFlows(p, m_view->visibleRange(), kLabelWidth, dataWidth(), taskRowCentre(), std::nullopt,
                            QColor(40, 70, 170, 150));
    }
    m_lastRenderMs = timer.nsecsElapsed() / 1e6;
}

void TimelineWidget::paintCpuRow(QPainter& p, const TimelineRows::Row& row, int top)
{
    const TraceSession& session = sessionOf(row);
    const EventStore& store = session.store();
    const CpuColumns& columns = store.stream(row.stream).columns;
    const TimeRange range = m_view->visibleRange();
    const int w = dataWidth();
    const int barTop = top + 3, barHeight = row.height - 10;

    // Which task ran (the CPU's intervals of the analyses: a colour per task).
    tracksOf(row).paintCpu(p, row.stream, QRect(kLabelWidth, barTop, w, barHeight), QRect(kLabelWidth, top, w, row.height),
                           range);

    // Where events are: a tick per pixel column holding events, taller for more.
    const RowSet* shown = m_filter && isActive(row) ? &m_filter->perStream[row.stream.value] : nullptr;
    if (columns.size()) {
        const QColor tick = palette().color(QPalette::Text);
        size_t index = columns.timestamp.lowerBound(range.start, 0, columns.size());
        const int baseline = top + row.height - 3;
        for (int x = 0; x < w && index < columns.size(); ++x) {
            const uint64_t tEnd = timeline::xToTime(x + 1, range, w);
            if (columns.timestamp[index] >= tEnd) {
                // Jump straight to the pixel of the next event.
                const double nx = timeline::timeToX(columns.timestamp[index], range, w);
                if (nx > x + 1) x = std::min(w, int(nx)) - 1;
                continue;
            }
            const size_t next = columns.timestamp.lowerBound(tEnd, index, columns.size());
            const size_t inPixel = shown ? shown->rank(next) - shown->rank(index) : next - index;
            if (inPixel == 0) {
                index = next;
                continue;
            }
            // Height and strength grow with the count, so dense stretches read as a soft band.
            const double weight = std::min(1.0, std::log2(double(inPixel) + 1) / 10);
            const int h = 2 + int(weight * (row.height - 10) * 0.35);
            QColor shade = tick;
            shade.setAlphaF(float(0.35 + 0.5 * weight));
            p.fillRect(kLabelWidth + x, baseline - h, 1, h, shade);
            index = next;
        }
    }

    // Events lost before an event: the gap since the CPU's previous event is shaded, and a
    // red line marks where recording resumed.
    for (size_t l = 0; l < columns.lost.size(); ++l) {
        const LostEvents& lost = columns.lost[l];
        if (lost.beforeEvent >= columns.size()) continue;
        const uint64_t resumed = columns.timestamp[lost.beforeEvent];
        const uint64_t since = lost.beforeEvent > 0 ? columns.timestamp[lost.beforeEvent - 1] : store.firstTimestamp();
        if (resumed < range.start || since > range.end) continue;
        const int x0 = std::max(kLabelWidth, xOfTime(since)), x1 = xOfTime(resumed);
        p.fillRect(x0, top + 1, std::max(1, x1 - x0), row.height - 3,
                   QBrush(QColor(220, 40, 40, 60), Qt::BDiagPattern));
        p.setPen(QPen(QColor(220, 40, 40), 2));
        if (range.contains(resumed)) p.drawLine(x1, top + 1, x1, top + row.height - 2);
    }
}

namespace {

// Fills a task's runs into `bar`, one pixel column at most once: after each, a binary search
// skips to the first run past the painted pixels.
void fillRuns(QPainter& p, const TaskIndex::Runs& runs, const TimeRange& range, const QRect& bar, const QColor& color)
{
    const int w = bar.width();
    size_t i = runs.firstEndingFrom(0, range.start);
    int lastX = -1;
    for (TaskIndex::Interval run; i < runs.size() && (run = runs[i]).start < range.end;) {
        const int x0 = std::max(0, int(timeline::timeToX(run.start, range, w)));
        const int x1 = std::min(w, std::max(x0 + 1, int(timeline::timeToX(run.end, range, w))));
        if (x1 > lastX) {
            p.fillRect(bar.left() + std::max(x0, lastX), bar.top(), x1 - std::max(x0, lastX), bar.height(), color);
            lastX = x1;
        }
        i = runs.firstEndingFrom(i + 1, timeline::xToTime(lastX, range, w));
    }
}

} // namespace

void TimelineWidget::paintTaskRow(QPainter& p, const TimelineRows::Row& row, int top)
{
    const TimelineRows::TaskData* task = m_rows.task(row.pid);
    if (!task || !task->task.valid()) return;
    const TaskIndex& index = m_session->trace->taskIndex();
    const TimeRange range = m_view->visibleRange();
    const int w = dataWidth();
    const QColor color = taskColor(row.pid);
    // What the task was doing (the analyses' states) under its running intervals.
    const QRect bar(kLabelWidth, top + 3, w, row.height - 9);
    m_tracks.paintTaskStates(p, task->task, bar, range);
    fillRuns(p, index.running(task->task), range, bar, color);
    // The analyses' slices (system calls, work items): lanes along the bottom of the bar.
    m_tracks.paintSlices(p, RowOwner::Task, task->task.value, QRect(kLabelWidth, top + 3, w, row.height - 9), range);
    m_tracks.paintMarks(p, RowOwner::Task, task->task.value, QRect(kLabelWidth, top, w, row.height), range);
    paintTaskEvents(p, *m_session, task->task, true, top, row.height);
}

std::optional<CounterGroup> TimelineWidget::counterGroupOf(const TimelineRows::Row& row) const
{
    if (row.kind == TimelineRows::Kind::QueryTrack) {
        const TrackTable* table = m_rows.queryTableOf(row);
        if (!table || table->kind() != TrackTable::Kind::Counters || table->owner() != RowOwner::Recording)
            return std::nullopt;
        return CounterGroup{{static_cast<const CounterTable*>(table)}};
    }
    std::vector<CounterGroup> groups = m_rows.counterGroupsOf(row);
    if (row.counterGroup >= int(groups.size())) return std::nullopt;
    return std::move(groups[size_t(row.counterGroup)]);
}

uint32_t TimelineWidget::counterOwnerOf(const TimelineRows::Row& row)
{
    return row.counterOwner == RowOwner::Cpu    ? row.stream.value
           : row.counterOwner == RowOwner::Task ? row.task.value
                                                : 0;
}

void TimelineWidget::paintCountersRow(QPainter& p, const TimelineRows::Row& row, int top)
{
    const std::optional<CounterGroup> group = counterGroupOf(row);
    if (!group) return;
    tracksOf(row).paintCounters(p, *group, counterOwnerOf(row), QRect(kLabelWidth, top, dataWidth(), row.height - 1),
                                m_view->visibleRange());
}

void TimelineWidget::paintQueryTrackRow(QPainter& p, const TimelineRows::Row& row, int top)
{
    const QRect area(kLabelWidth, top, dataWidth(), row.height - 1);
    const TrackTable* table = m_rows.queryTableOf(row);
    if (table && table->kind() == TrackTable::Kind::Slices) {
        const auto& slices = static_cast<const SliceTable&>(*table);
        m_tracks.paintSliceRow(p, slices, TrackRenderer::kEveryOwner, area, m_view->visibleRange());
        if (!m_tracks.layingOut(slices)) return;
    }
    if (counterGroupOf(row)) {
        paintCountersRow(p, row, top);
        return;
    }
    // A counter per task or CPU is drawn on their rows; this row says so (and why it is empty).
    QString text = queryTrackNote(row, table);
    QFont font = p.font();
    font.setItalic(true);
    p.save();
    p.setFont(font);
    p.setPen(palette().color(QPalette::PlaceholderText));
    p.drawText(area.adjusted(8, 0, -8, 0), Qt::AlignVCenter | Qt::AlignLeft,
               p.fontMetrics().elidedText(text, Qt::ElideRight, area.width() - 16));
    p.restore();
}

QString TimelineWidget::queryTrackNote(const TimelineRows::Row& row, const TrackTable* table) const
{
    if (table && table->kind() == TrackTable::Kind::Slices)
        return tr("laying out its %1 slices…").arg(QLocale().toString(qulonglong(table->rows())));
    if (!table)
        return m_queryTrackProblems.value(row.sliceTable, m_makingQueryTracks ? tr("running its query…")
                                                                              : tr("its query gave no track"));
    return table->owner() == RowOwner::Cpu
               ? tr("drawn on the CPU rows, as a counter per CPU")
               : tr("drawn on the rows of its tasks, as a counter per task (add a task's row to see it)");
}

void TimelineWidget::setQueryTracksMaking(bool making, QMap<int, QString> problems)
{
    m_makingQueryTracks = making;
    m_queryTrackProblems = std::move(problems);
    update();
}

void TimelineWidget::pickQuerySlice(const TimelineRows::Row& row, uint64_t t)
{
    const TrackTable* table = m_rows.queryTableOf(row);
    if (!table || table->kind() != TrackTable::Kind::Slices) return;
    const uint64_t slack = m_view->visibleRange().span() / uint64_t(std::max(dataWidth(), 1)) * 2;
    const auto hit = m_tracks.sliceAt(static_cast<const SliceTable&>(*table), TrackRenderer::kEveryOwner, t, slack);
    if (!hit) {
        emit notice(tr("No slice of \"%1\" here").arg(row.label));
        return;
    }
    // Its span between the markers (the user's go to Back), the task's event at its start
    // selected when it has one.
    const SliceTable::View& v = hit->slice;
    m_view->setMarkersKeepingPrevious(v.start, std::max(v.end, v.start));
    if (table->owner() == RowOwner::Task && v.owner < m_session->trace->taskIndex().size()) {
        const int32_t pid = m_session->trace->taskIndex().task(TaskId(v.owner)).pid;
        const std::vector<EventRef> events = m_session->trace->taskIndex().eventsAt(m_session->store(), pid, v.start);
        if (!events.empty()) m_view->select(events.front());
    }
    emit notice(querySliceText(*hit, *table).section('\n', 0, 0));
}

QString TimelineWidget::querySliceText(const TrackRenderer::SliceHit& hit, const TrackTable& table) const
{
    QString text = m_tracks.sliceText(hit);
    const uint32_t owner = hit.slice.owner;
    QString where;
    if (table.owner() == RowOwner::Task && owner < m_session->trace->taskIndex().size())
        where = tr("task %1").arg(QString::fromStdString(m_session->trace->taskName(TaskId(owner))));
    else if (table.owner() == RowOwner::Cpu && owner < m_session->store().streamCount())
        where = tr("CPU %1").arg(m_session->store().stream(StreamId(uint16_t(owner))).cpu);
    if (!where.isEmpty())
        text.replace(text.indexOf('\n') < 0 ? text.size() : text.indexOf('\n'), 0, tr(", on %1").arg(where));
    return text;
}

void TimelineWidget::paintCounterReadouts(QPainter& p)
{
    // Over each counter row: the values at the pointer (or at the selected event) and the
    // view's lowest, mean and highest, on a pale backdrop that keeps them readable over the line.
    std::optional<uint64_t> cursor;
    if (m_hoverX >= kLabelWidth)
        cursor = timeAtX(m_hoverX);
    else if (auto sel = m_view->selection();
             sel && m_session && sel->index < m_session->store().stream(sel->stream).columns.size())
        cursor = m_session->store().timestamp(*sel);
    const auto& rows = m_rows.rows();
    int top = kRulerHeight - m_scrollY;
    QFont small = p.font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    p.save();
    p.setFont(small);
    p.setClipRect(kLabelWidth, kRulerHeight, dataWidth(), height() - kRulerHeight);
    const QFontMetrics metrics(small);
    for (int i = 0; i < rows.size(); top += rows[i].height, ++i) {
        const TimelineRows::Row& row = rows[i];
        if ((row.kind != TimelineRows::Kind::Counters && row.kind != TimelineRows::Kind::QueryTrack) ||
            top + row.height < kRulerHeight || top > height())
            continue;
        const std::optional<CounterGroup> group = counterGroupOf(row);
        if (!group) continue;
        const QStringList lines =
            tracksOf(row).counterReadout(*group, counterOwnerOf(row), m_view->visibleRange(), cursor);
        int y = top + 1;
        for (int n = 0; n < lines.size() && y + metrics.height() <= top + row.height; ++n, y += metrics.height()) {
            const QString text = metrics.elidedText(lines[n], Qt::ElideRight, dataWidth() - 12);
            const QRect box(kLabelWidth + 4, y, metrics.horizontalAdvance(text) + 8, metrics.height());
            p.fillRect(box, QColor(255, 255, 255, 200));
            p.setPen(TrackRenderer::counterColor(size_t(n)).darker(130));
            p.drawText(box.adjusted(4, 0, 0, 0), Qt::AlignVCenter | Qt::AlignLeft, text);
        }
    }
    p.restore();
}

namespace {

const QColor kInGuestColor(46, 139, 87);

} // namespace

void TimelineWidget::paintGuestTaskRow(QPainter& p, const TimelineRows::Row& row, int top)
{
    // A host thread that runs a vCPU: faint where it ran in the host, solid where it was in
    // the guest (kvm_entry to kvm_exit), as KernelShark's KVM combo plugin draws it.
    const TraceSession& host = sessionOf(row);
    const TimeRange range = m_view->visibleRange();
    const QRect bar(kLabelWidth, top + 3, dataWidth(), row.height - 9);
    if (row.task.valid()) {
        QColor inHost = taskColor(row.pid);
        inHost.setAlpha(80);
        fillRuns(p, host.trace->taskIndex().running(row.task), range, bar, inHost);
    }
    if (row.task.valid()) tracksOf(row).paintGuestStays(p, row.task, bar, range, kInGuestColor);
    if (row.task.valid()) paintTaskEvents(p, host, row.task, isActive(row), top, row.height);
}

void TimelineWidget::paintTaskEvents(QPainter& p, const TraceSession& session, TaskId task, bool filtered, int top,
                                     int height)
{
    const TaskIndex& index = session.trace->taskIndex();
    const EventStore& store = session.store();
    const TimeRange range = m_view->visibleRange();
    const int w = dataWidth();
    // Events, one tick per pixel column holding some (shown by the filter): per stream, jump
    // from pixel to pixel with binary searches over the task's runs.
    const QColor tick = palette().color(QPalette::Text);
    for (const TaskIndex::StreamRuns& list : index.streams(task)) {
        const auto& ts = store.stream(list.stream).columns.timestamp;
        const RowSet* shown = m_filter && filtered ? &m_filter->perStream[list.stream.value] : nullptr;
        const uint64_t total = list.events();
        uint64_t k = TaskIndex::countBefore(store, list, range.start);
        while (k < total) {
            const uint64_t t = ts[TaskIndex::eventAt(list, k).index];
            if (t >= range.end) break;
            const int x = std::max(0, int(timeline::timeToX(t, range, w)));
            const uint64_t next =
                std::max(k + 1, TaskIndex::countBefore(store, list, timeline::xToTime(x + 1, range, w)));
            bool any = !shown;
            // With a filter: whether any of events [k, next) is shown, run by run.
            for (uint64_t j = k; j < next && !any;) {
                // One binary search finds the run of event j; the rest of the run is one rank.
                const size_t run =
                    size_t(std::upper_bound(list.before.begin(), list.before.end(), j) - list.before.begin()) - 1;
                const uint64_t index = list.runs[run].begin + (j - list.before[run]);
                const uint64_t inRun = std::min<uint64_t>(next - j, list.runs[run].end - index);
                any = shown->rank(index + inRun) > shown->rank(index);
                j += inRun;
            }
            if (any) p.fillRect(kLabelWidth + x, top + height - 6, 1, 4, tick);
            k = next;
        }
    }
}

TrackRenderer::RowCentre TimelineWidget::taskRowCentre() const
{
    return [this](uint32_t task) -> std::optional<int> {
        const auto& rows = m_rows.rows();
        for (int i = 0; i < rows.size(); ++i) {
            if (rows[i].kind != TimelineRows::Kind::Task || !isActive(rows[i])) continue;
            const TimelineRows::TaskData* data = m_rows.task(rows[i].pid);
            if (!data || data->task.value != task) continue;
            const int y = kRulerHeight - m_scrollY + m_rows.rowTop(i) + rows[i].height / 2;
            if (y < kRulerHeight || y > height()) return std::nullopt;
            return y;
        }
        return std::nullopt;
    };
}

void TimelineWidget::zoomToSpan(uint64_t start, uint64_t end)
{
    // The whole span, with a little room on either side.
    end = std::max(end, start + 1);
    const uint64_t margin = std::max<uint64_t>(1, (end - start) / 20);
    m_view->setVisibleRange({start > margin ? start - margin : 0, end + margin});
}

void TimelineWidget::paintRuler(QPainter& p)
{
    const TimeRange range = m_view->visibleRange();
    const int w = dataWidth();
    p.fillRect(0, 0, width(), kRulerHeight, palette().color(QPalette::Window));
    p.setPen(palette().color(QPalette::Mid));
    p.drawLine(0, kRulerHeight - 1, width(), kRulerHeight - 1);
    const uint64_t step = timeline::tickStep(range.span(), w, 110);
    const uint64_t minor = std::max<uint64_t>(1, step / 5);
    const std::optional<uint64_t> origin = m_view->timeOrigin();
    // Ticks fall on multiples of the step, counted from the origin when one is set.
    const uint64_t base = origin.value_or(0);
    const auto firstTick = [&](uint64_t s) {
        if (range.start <= base) return base - ((base - range.start) / s) * s;
        return base + ((range.start - base + s - 1) / s) * s;
    };
    p.setPen(palette().color(QPalette::Mid));
    for (uint64_t t = firstTick(minor); t < range.end; t += minor) {
        const int x = xOfTime(t);
        p.drawLine(x, kRulerHeight - 5, x, kRulerHeight - 1);
    }
    p.setPen(palette().color(QPalette::WindowText));
    for (uint64_t t = firstTick(step); t < range.end; t += step) {
        const int x = xOfTime(t);
        p.drawLine(x, kRulerHeight - 12, x, kRulerHeight - 1);
        QString label;
        if (origin) {
            const int64_t rel = int64_t(t) - int64_t(*origin);
            label = (rel < 0 ? "-" : "+") + timeline::formatDuration(std::llabs(rel), clockUnit());
            if (rel == 0) label = QStringLiteral("0");
        } else {
            label = timeline::formatTimestamp(t, step, clockUnit());
        }
        p.drawText(x + 3, 4, 200, kRulerHeight - 16, Qt::AlignLeft | Qt::AlignTop, label);
    }
    p.drawText(QRect(6, 0, kLabelWidth - 8, kRulerHeight), Qt::AlignVCenter | Qt::AlignLeft,
               timeline::formatDuration(int64_t(range.span()), clockUnit()));
    if (m_drag == Drag::RulerRange) {
        const int x0 = std::min(m_pressPos.x(), m_lastDragX), x1 = std::max(m_pressPos.x(), m_lastDragX);
        QColor fill = palette().color(QPalette::Highlight);
        fill.setAlpha(70);
        p.fillRect(x0, 0, x1 - x0, height(), fill);
    }
}

void TimelineWidget::paintOverlays(QPainter& p)
{
    p.setClipRect(kLabelWidth, 0, dataWidth(), height());
    auto vline = [&](uint64_t t, const QColor& c, const QString& label) {
        if (!m_view->visibleRange().contains(t)) return;
        const int x = xOfTime(t);
        p.setPen(QPen(c, 1));
        p.drawLine(x, 0, x, height());
        if (!label.isEmpty()) {
            p.fillRect(x + 1, kRulerHeight - 14, 12, 13, c);
            p.setPen(Qt::white);
            p.drawText(QRect(x + 1, kRulerHeight - 14, 12, 13), Qt::AlignCenter, label);
        }
    };
    if (m_view->markerA()) vline(*m_view->markerA(), QColor(30, 120, 220), QStringLiteral("A"));
    if (m_view->markerB()) vline(*m_view->markerB(), QColor(220, 120, 30), QStringLiteral("B"));
    if (auto sel = m_view->selection();
        sel && m_session && sel->index < m_session->store().stream(sel->stream).columns.size()) {
        const uint64_t t = m_session->store().timestamp(*sel);
        vline(t, palette().color(QPalette::Highlight), QString());
        // Ring the event in its CPU row.
        const auto& rows = m_rows.rows();
        for (int i = 0; i < rows.size(); ++i) {
            if (rows[i].kind != TimelineRows::Kind::Cpu || rows[i].stream != sel->stream || !isActive(rows[i]))
                continue;
            const int y = kRulerHeight - m_scrollY + m_rows.rowTop(i) + rows[i].height / 2;
            p.setPen(QPen(palette().color(QPalette::Highlight), 2));
            p.drawEllipse(QPoint(xOfTime(t), y), 5, 5);
        }
    }
    if (auto sel = m_view->selection();
        sel && m_session && sel->index < m_session->store().stream(sel->stream).columns.size()) {
        // The selected event's task: its flows (who woke it, whom it woke) stand out.
        const CpuColumns& columns = m_session->store().stream(sel->stream).columns;
        const TaskId task = m_session->trace->taskIndex().taskAt(columns.pid[sel->index], columns.timestamp[sel->index]);
        p.setClipRect(kLabelWidth, kRulerHeight, dataWidth(), height() - kRulerHeight);
        if (task.valid())
            m_tracks.paintFlows(p, m_view->visibleRange(), kLabelWidth, dataWidth(), taskRowCentre(), task.value,
                                QColor(0xd0, 0x40, 0x10, 220));
        p.setClipRect(kLabelWidth, 0, dataWidth(), height());
    }
    const SliceTable* callsTable = m_session ? m_tracks.flameTable(CallSlices::kTableKey) : nullptr;
    if (auto call = m_view->selectedCall(); call && callsTable) {
        // Outline the call in every Calls row that shows it.
        const auto& rows = m_rows.rows();
        for (int i = 0; i < rows.size(); ++i) {
            if (rows[i].kind != TimelineRows::Kind::Calls) continue;
            const auto [kind, owner] = callsOwner(rows[i]);
            const QRect box =
                m_tracks.flameRect(kind, owner, *callsTable, *call, callLanesRect(i), m_view->visibleRange());
            if (box.isEmpty()) continue;
            p.setPen(QPen(palette().color(QPalette::Highlight), 2));
            p.setBrush(Qt::NoBrush);
            p.drawRect(box.adjusted(-1, -1, 0, 0));
        }
    }
    if (m_hoverX >= kLabelWidth) {
        p.setPen(QPen(palette().color(QPalette::Mid), 1, Qt::DotLine));
        p.drawLine(m_hoverX, kRulerHeight, m_hoverX, height());
    }
    paintCounterReadouts(p);
}

} // namespace ringside
