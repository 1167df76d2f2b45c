// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "tracesession.h"
#include "workerthreads.h"

#include <QList>
#include <QObject>
#include <QPointer>
#include <QThread>
#include <QString>

#include <atomic>
#include <memory>

namespace ringside {

// Loads a recording on a worker thread and hands the finished session to the GUI thread.
// Each start() gets a new generation; results of an older generation are dropped, so a
// cancelled or superseded load never replaces what the user asked for last.
class LoadJob : public QObject {
    Q_OBJECT
public:
    explicit LoadJob(QObject* parent = nullptr);
    ~LoadJob() override;

    void start(const QString& path, bool isSample = false);
    void cancel();
    bool running() const { return m_running; }

signals:
    void cancelled();
    // permille of the bytes parsed so far
    void progress(int permille, qulonglong events);
    void finished(std::shared_ptr<ringside::TraceSession> session);
    void failed(const QString& path, const QString& message);

private:
    int m_generation = 0;
    bool m_running = false;
    std::shared_ptr<std::atomic<bool>> m_cancel;
    WorkerThreads m_workers; // last: waits for running jobs after cancel()
};

} // namespace ringside
