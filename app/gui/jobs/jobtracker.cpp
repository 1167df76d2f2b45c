// SPDX-License-Identifier: GPL-2.0-or-later
#include "jobs/jobtracker.h"

#include <QMetaObject>

#include <algorithm>

namespace ringside {

JobTracker::JobTracker() : m_receiver(std::make_unique<QObject>()) {}

JobTracker::~JobTracker()
{
    cancel();
    waitForThreads();
    m_receiver.reset(); // discards deliveries still queued
}

void JobTracker::waitForThreads()
{
    for (const QPointer<QThread>& thread : m_threads) {
        if (!thread) continue;
        thread->wait();
        delete thread.data(); // its deleteLater may never run if the event loop is gone
    }
    m_threads.clear();
}

void JobTracker::cancel()
{
    if (m_current) m_current->cancel.store(true);
    m_current.reset();
    ++m_generation;
    m_running = false;
}

std::shared_ptr<JobTracker::Context::State> JobTracker::begin(ProgressHandler onProgress)
{
    cancel();
    auto state = std::make_shared<Context::State>();
    m_current = state;
    m_running = true;
    m_onProgress = std::move(onProgress);
    return state;
}

void JobTracker::run(std::shared_ptr<Context::State> state, std::function<void()> body)
{
    QThread* thread = QThread::create([this, state, body = std::move(body)] {
        QString error;
        try {
            body();
            return;
        } catch (const std::exception& e) {
            error = QString::fromLocal8Bit(e.what());
        } catch (...) {
            error = QStringLiteral("unknown error");
        }
        deliver(state, [this, error] {
            const ErrorHandler handler = m_onError; // a copy: the handler may start the next job
            if (handler) handler(error);
        });
    });
    QObject::connect(thread, &QThread::finished, thread, &QObject::deleteLater);
    m_threads.erase(std::remove(m_threads.begin(), m_threads.end(), nullptr), m_threads.end());
    m_threads.emplace_back(thread);
    thread->start();
}

void JobTracker::deliver(const std::shared_ptr<Context::State>& state, std::function<void()> what)
{
    // Runs on the worker thread; m_receiver lives until every worker has been waited for.
    QMetaObject::invokeMethod(
        m_receiver.get(),
        [this, state, what = std::move(what)] {
            if (state != m_current) return; // superseded or cancelled
            m_running = false;
            m_current.reset();
            what();
        },
        Qt::QueuedConnection);
}

void JobTracker::Context::reportProgress(int value)
{
    m_state->progress.store(value);
    if (m_state->progressQueued.exchange(true)) return;
    JobTracker* tracker = m_tracker;
    std::shared_ptr<State> state = m_state;
    QMetaObject::invokeMethod(
        tracker->m_receiver.get(),
        [tracker, state] {
            state->progressQueued.store(false);
            if (state != tracker->m_current) return;
            const ProgressHandler handler = tracker->m_onProgress; // a copy: the handler may start the next job
            if (handler) handler(state->progress.load());
        },
        Qt::QueuedConnection);
}

void JobTracker::Context::post(std::function<void()> what)
{
    JobTracker* tracker = m_tracker;
    std::shared_ptr<State> state = m_state;
    QMetaObject::invokeMethod(
        tracker->m_receiver.get(),
        [tracker, state, what = std::move(what)] {
            if (state == tracker->m_current) what(); // the job goes on: it is still the latest
        },
        Qt::QueuedConnection);
}

} // namespace ringside
