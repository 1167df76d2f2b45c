// SPDX-License-Identifier: GPL-2.0-or-later
#include "state/workspace.h"

#include "capture/livecapture.h"
#include "jobs/analysisjob.h"

#include <QFileInfo>

#include <utility>

namespace ringside {

namespace {
// The recording box and the timeline's recording ids hold one byte.
constexpr size_t kMostRecordings = 255;
} // namespace

Workspace::Workspace(QObject* parent) : QObject(parent)
{
    connect(&m_load, &LoadJob::finished, this, [this](std::shared_ptr<TraceSession> session) {
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
        emit loadEnded();
    });
    connect(&m_load, &LoadJob::failed, this, [this](const QString&, const QString& message) {
        m_appending = false;
        emit loadEnded();
        emit loadFailed(message);
        continueLoading(); // the other files given still open
    });
}

void Workspace::open(const QString& path, bool isSample)
{
    m_pendingAppends.clear();
    startLoad(path, isSample, false);
}

void Workspace::openAll(const QStringList& paths)
{
    if (paths.isEmpty()) return;
    open(paths.first());
    m_pendingAppends = paths.mid(1);
}

void Workspace::appendPath(const QString& path)
{
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
    m_load.start(path, isSample);
}

void Workspace::continueLoading()
{
    if (!m_pendingAppends.isEmpty()) return appendPath(m_pendingAppends.takeFirst());
    emit loadsDone();
}

void Workspace::showCapture(std::shared_ptr<TraceSession> session, bool idleAnalyses)
{
    m_pendingAppends.clear();
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

void Workspace::setStashed(std::vector<std::optional<ViewSnapshot>> views)
{
    views.resize(m_recordings.size());
    m_stashed = std::move(views);
}

} // namespace ringside
