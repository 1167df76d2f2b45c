// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <QList>
#include <QPointer>
#include <QThread>

#include <functional>

namespace ringside {

// Threads a GUI object starts for its background jobs. Each thread deletes itself when done;
// the owner's destruction waits for those still running, so no job outlives what it reports to.
class WorkerThreads {
public:
    WorkerThreads() = default;
    WorkerThreads(const WorkerThreads&) = delete;
    WorkerThreads& operator=(const WorkerThreads&) = delete;
    ~WorkerThreads()
    {
        for (const auto& thread : m_threads)
            if (thread) thread->wait();
    }

    void start(std::function<void()> work)
    {
        QThread* thread = QThread::create(std::move(work));
        QObject::connect(thread, &QThread::finished, thread, &QObject::deleteLater);
        m_threads.removeAll(nullptr);
        m_threads.append(thread);
        thread->start();
    }

private:
    QList<QPointer<QThread>> m_threads;
};

} // namespace ringside
