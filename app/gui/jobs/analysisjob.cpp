// SPDX-License-Identifier: GPL-2.0-or-later
#include "jobs/analysisjob.h"

#include "consume/consumerfailure.h"
#include "trace.h"

#include <QMetaObject>

#include <chrono>
#include <sched.h>
#include <unistd.h>

namespace ringside {

AnalysisJob::AnalysisJob(Trace& trace, bool live, std::function<uint64_t()> lostEvents, QObject* parent)
    : QObject(parent), m_trace(trace), m_live(live), m_lostEvents(std::move(lostEvents)), m_ended(!live)
{
    m_thread = std::thread([this] { run(); });
}

AnalysisJob::~AnalysisJob()
{
    m_stop = true;
    {
        const std::lock_guard lock(m_lock);
        m_more = true;
    }
    m_wake.notify_all();
    m_thread.join();
}

void AnalysisJob::storeGrew()
{
    {
        const std::lock_guard lock(m_lock);
        m_more = true;
    }
    m_wake.notify_all();
}

void AnalysisJob::captureEnded()
{
    {
        const std::lock_guard lock(m_lock);
        m_more = m_ended = true;
    }
    m_wake.notify_all();
    // A batch running at idle priority would wait for everything else the machine does.
    sched_param param{};
    if (const pid_t tid = m_tid.load()) ::sched_setscheduler(tid, SCHED_OTHER, &param);
}

void AnalysisJob::run()
{
    // Nothing escapes: an exception here would end the process with the user's work. The
    // trace keeps what failed (Trace::failures), and the window shows it.
    try {
        analyseBatches();
    } catch (...) {
        m_failure = QString::fromStdString(failureOfCurrentException());
        QMetaObject::invokeMethod(
            this,
            [this] {
                m_finished = true;
                emit statisticsUpdated();
                emit finished();
            },
            Qt::QueuedConnection);
    }
}

void AnalysisJob::analyseBatches()
{
    using Clock = std::chrono::steady_clock;
    auto post = [this](auto what) { QMetaObject::invokeMethod(this, what, Qt::QueuedConnection); };
    // A capture's batches every quarter second at most: a batch per publish would spend the
    // analysis on bookkeeping; longer after a batch during which events were lost.
    auto wait = std::chrono::milliseconds(m_live ? 250 : 0);
    Clock::time_point lastUpdate = Clock::now() - std::chrono::seconds(1);
    m_tid = ::gettid();
    struct Forget {
        std::atomic<pid_t>& tid;
        ~Forget() { tid = 0; }
    } forget{m_tid};
    for (;;) {
        bool last = false;
        {
            std::unique_lock lock(m_lock);
            m_wake.wait(lock, [&] { return m_more || m_stop; });
            if (m_stop) return;
            m_more = false;
            last = m_ended;
        }
        if (m_live) {
            // The capture comes first: this thread runs on CPU time nothing else wants.
            sched_param param{};
            ::sched_setscheduler(0, m_idle && !last ? SCHED_IDLE : SCHED_OTHER, &param);
            // Ended meanwhile (captureEnded lifted the priority before this lowered it).
            const std::lock_guard lock(m_lock);
            if (m_ended) ::sched_setscheduler(0, SCHED_OTHER, &param);
        }
        const Clock::time_point started = Clock::now();
        const uint64_t lostBefore = m_lostEvents ? m_lostEvents() : 0;
        const bool analysed = m_trace.analyse(
            [this](uint64_t done, uint64_t total) {
                const int permille = total ? int(done * 1000 / total) : 0;
                if (permille / 10 != m_permille.exchange(permille) / 10)
                    QMetaObject::invokeMethod(this, [this, permille] { emit progress(permille); }, Qt::QueuedConnection);
            },
            &m_stop, UINT64_MAX,
            [this, post] {
                // A capture's batches are told of in updated(), a few times a second.
                if (!m_live) post([this] { emit tasksKnown(); });
            });
        m_permille = 0;
        if (m_stop) return;
        // Not analysed and no failure: cancelled. A failure ends the analyses as a last batch
        // would: the tables published so far are finished, the window told.
        const bool failed = !analysed && !m_trace.analysisFailure().empty();
        if (!analysed && !failed) return;
        if (last || failed) {
            // The window takes the finished tables in while the statistics are made.
            m_trace.finishTables();
            post([this] { emit tablesFinished(); });
            if (m_stop) return;
            m_trace.finishStatistics();
            // Finished once the window is told (on its thread): whoever sees isFinished() has
            // had the last update, and a wait for it needs no more events.
            post([this] {
                m_finished = true;
                emit statisticsUpdated();
                emit finished();
            });
            return;
        }
        bool unseen = true; // a batch the views have not been told of
        if (Clock::now() - lastUpdate >= std::chrono::milliseconds(400) || !m_live) {
            lastUpdate = Clock::now();
            unseen = false;
            post([this] { emit updated(); });
        }
        if (m_live) {
            const bool lost = m_lostEvents && m_lostEvents() > lostBefore;
            wait = lost ? std::min<std::chrono::milliseconds>(wait * 2, std::chrono::seconds(2))
                        : std::max<std::chrono::milliseconds>(std::chrono::milliseconds(250), wait / 2);
            bool paused = false;
            {
                std::unique_lock lock(m_lock);
                m_wake.wait_until(lock, started + wait, [&] { return m_stop.load() || m_ended; });
                if (m_stop) return;
                paused = !m_more;
            }
            // Nothing new arrived: the views show all that was analysed, statistics too.
            if (paused && (m_trace.refreshStatistics() || unseen)) {
                lastUpdate = Clock::now();
                post([this] { emit updated(); });
            }
        }
    }
}

} // namespace ringside
