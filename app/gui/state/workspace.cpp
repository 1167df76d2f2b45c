// SPDX-License-Identifier: GPL-2.0-or-later
#include "state/workspace.h"

#include "capture/livecapture.h"
#include "jobs/analysisjob.h"

#include <algorithm>
#include <utility>

namespace ringside {

namespace {
// The recording box and the timeline's recording ids hold one byte.
constexpr size_t kMostRecordings = 255;
} // namespace

Workspace::Workspace(QObject* parent) : QObject(parent)
{
    // An open shows its recording at once, drawn as its pages are read.
    connect(&m_load, &LoadJob::opened, this, [this](std::shared_ptr<TraceSession> session) {
        m_shownLoad = session;
        replace(std::move(session));
    });
    connect(&m_load, &LoadJob::finished, this, [this](std::shared_ptr<TraceSession> session) {
        if (session->loading) {
            if (endShownLoad(session)) {
                emit loaded(session->path);
                startAnalyses(*session, false);
                emit storeComplete(session.get());
            }
            return continueLoading();
        }
        emit loadEnded();
        emit loaded(session->path);
        startAnalyses(*session, false);
        if (std::exchange(m_appending, false) && m_session)
            append(std::move(session));
        else
            replace(std::move(session));
        continueLoading();
    });
    connect(&m_load, &LoadJob::cancelled, this, [this] {
        m_appending = false;
        m_pendingAppends.clear();
        m_shownLoad.reset(); // replaced (showCapture): its thread may still write into it
        m_queuedOpen.reset();
        emit loadEnded();
    });
    connect(&m_load, &LoadJob::failed, this, [this](const QString&, const QString& message) {
        m_appending = false;
        const std::shared_ptr<TraceSession> shown = m_shownLoad;
        if (shown && endShownLoad(shown)) {
            emit storeComplete(shown.get());
            emit loadFailed(message + tr("\nThe window shows the events read before it."));
        } else if (!shown) {
            emit loadEnded();
            emit loadFailed(message);
        }
        continueLoading(); // the other files given still open
    });
}

bool Workspace::endShownLoad(const std::shared_ptr<TraceSession>& session)
{
    session->loading = false;
    m_shownLoad.reset();
    emit loadEnded();
    if (m_queuedOpen) {
        const auto [path, isSample] = *std::exchange(m_queuedOpen, std::nullopt);
        startLoad(path, isSample, false);
        return false;
    }
    const std::optional<size_t> index = m_recordings.indexOf(session->path);
    return index && m_recordings.at(*index) == session;
}

void Workspace::open(const QString& path, bool isSample)
{
    m_pendingAppends.clear();
    if (m_load.shown()) {
        // The recording shown while it loads stops first (at once: the segments being read
        // are finished); this one loads then.
        m_queuedOpen = {path, isSample};
        m_load.stop();
        return;
    }
    startLoad(path, isSample, false);
}

void Workspace::openAll(const QStringList& paths)
{
    if (paths.isEmpty()) return;
    open(paths.first());
    m_pendingAppends = paths.mid(1);
}

void Workspace::reloadAll()
{
    if (m_recordings.empty()) return;
    QStringList paths;
    for (size_t i = 1; i < m_recordings.size(); ++i) paths << m_recordings.at(i)->path;
    open(m_recordings.at(0)->path, m_recordings.at(0)->isSample);
    m_pendingAppends = paths;
}

void Workspace::appendPath(const QString& path)
{
    if (m_load.running()) {
        m_pendingAppends << path; // after the load running
        return;
    }
    if (!m_session) return open(path);
    if (auto index = m_recordings.indexOf(path)) {
        emit alreadyOpen(*index);
        return continueLoading();
    }
    if (m_recordings.size() >= kMostRecordings) {
        m_pendingAppends.clear();
        emit appendRefused(tr("%1: a window shows at most %2 recordings").arg(path).arg(kMostRecordings));
        return;
    }
    startLoad(path, false, true);
}

void Workspace::queueAppends(const QStringList& paths)
{
    m_pendingAppends << paths;
}

void Workspace::startLoad(const QString& path, bool isSample, bool appending)
{
    m_appending = appending;
    emit loadStarted(path);
    // An append joins the others once loaded (their clocks are paired on what it holds).
    m_load.start(path, isSample, !appending);
}

void Workspace::continueLoading()
{
    if (m_load.running()) return; // an open queued behind a shown load began: it goes on at its end
    if (!m_pendingAppends.isEmpty()) return appendPath(m_pendingAppends.takeFirst());
    emit loadsDone();
}

void Workspace::showCapture(std::shared_ptr<TraceSession> session, bool idleAnalyses)
{
    m_pendingAppends.clear();
    m_queuedOpen.reset();
    // A recording shown while it loads goes: its thread stops soon, writing into a store no
    // view reads any more (the thread keeps it alive).
    if (m_load.running()) m_load.cancel();
    startAnalyses(*session, idleAnalyses);
    replace(std::move(session));
}

bool Workspace::captureGrew(TraceSession& capture)
{
    if (capture.analyses) capture.analyses->storeGrew();
    return capture.live && capture.live->applySeenTaskNames();
}

void Workspace::captureEnded(TraceSession& capture)
{
    if (capture.analyses) capture.analyses->captureEnded();
}

void Workspace::startAnalyses(TraceSession& session, bool idlePriority)
{
    if (session.analyses) return;
    std::weak_ptr<LiveCapture> live = session.live;
    const bool growing = session.live && !session.live->progress().ended;
    session.analyses = std::make_unique<AnalysisJob>(*session.trace, growing, [live]() -> uint64_t {
        auto capture = live.lock();
        if (!capture) return 0;
        const LiveCapture::Progress p = capture->progress();
        return p.overrun + p.dropped;
    });
    if (growing) session.analyses->setIdlePriority(idlePriority);
    const TraceSession* raw = &session;
    AnalysisJob* job = session.analyses.get();
    connect(job, &AnalysisJob::updated, this, [this, raw] { emit analysesUpdated(raw); });
    connect(job, &AnalysisJob::progress, this, &Workspace::analysesProgress);
    connect(job, &AnalysisJob::tasksKnown, this, [this, raw] { emit tasksKnown(raw); });
    connect(job, &AnalysisJob::statisticsUpdated, this, [this, raw] { emit statisticsUpdated(raw); });
    connect(job, &AnalysisJob::tablesFinished, this, [this, raw] { emit tablesFinished(raw); });
    emit analysesProgress();
}

void Workspace::replace(std::shared_ptr<TraceSession> session)
{
    emit recordingsAboutToGo();
    // The active one lives until its observers have let go of it (activeChanged).
    const std::shared_ptr<TraceSession> leaving = std::exchange(m_session, nullptr);
    m_recordings.clear();
    m_recordings.add(session);
    m_stashed.assign(1, std::nullopt);
    m_active = 0;
    m_session = std::move(session);
    emit activeChanged(0, true);
}

void Workspace::append(std::shared_ptr<TraceSession> session)
{
    m_recordings.add(std::move(session));
    m_stashed.push_back(std::nullopt);
    emit recordingsChanged();
}

bool Workspace::setActive(size_t index)
{
    if (index >= m_recordings.size() || index == m_active) return false;
    m_stashed[m_active] = m_view.snapshot();
    m_active = index;
    m_session = m_recordings.at(index);
    emit activeChanged(index, false);
    return true;
}

std::vector<std::optional<ViewSnapshot>> Workspace::views() const
{
    std::vector<std::optional<ViewSnapshot>> views = m_stashed;
    views.resize(m_recordings.size());
    if (m_session) views[m_active] = m_view.snapshot();
    return views;
}

void Workspace::foldInactiveGroup(size_t recording, uint16_t buffer, bool collapsed)
{
    if (recording >= m_recordings.size() || recording == m_active) return;
    std::optional<ViewSnapshot>& view = m_stashed[recording];
    if (!view) {
        view = ViewSnapshot();
        view->full = m_recordings.fullRange();
        view->visible = m_view.visibleRange();
    }
    view->collapsedBuffers.removeAll(buffer);
    if (collapsed) view->collapsedBuffers.push_back(buffer);
}

void Workspace::goToEvent(EventRef event, std::optional<std::pair<quint64, quint64>> span)
{
    if (!m_session || event.stream.value >= m_session->store().streamCount() ||
        event.index >= m_session->store().stream(event.stream).columns.size())
        return;
    if (span) {
        const auto [start, end] = *span;
        const uint64_t margin = std::max<uint64_t>((end - start) / 2, 1000);
        m_view.setMarkersKeepingPrevious(start, end);
        m_view.setVisibleRange({start > margin ? start - margin : 0, end + margin});
    }
    m_view.select(event);
}

void Workspace::setStashed(std::vector<std::optional<ViewSnapshot>> views)
{
    views.resize(m_recordings.size());
    m_stashed = std::move(views);
}

} // namespace ringside
