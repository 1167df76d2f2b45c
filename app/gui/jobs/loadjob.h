// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "jobs/jobtracker.h"
#include "state/tracesession.h"

#include <QObject>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>
#include <string>

namespace ringside {

// Loads a recording on a worker thread and hands the finished session to the GUI thread.
// Runs on a JobTracker: a cancelled or superseded load never replaces what the user asked
// for last, and an exception in the loader arrives as failed(), not as a crash.
class LoadJob : public QObject {
    Q_OBJECT
public:
    explicit LoadJob(QObject* parent = nullptr) : QObject(parent) {}

    // `prepare`, when given, runs first on the worker thread: it writes `path` (a live
    // capture's pages so far), or fails with the reason; it stops when `cancel` is set.
    using Prepare = std::function<bool(const std::atomic<bool>* cancel, std::string* error)>;
    void start(const QString& path, bool isSample = false, Prepare prepare = nullptr);
    void cancel();
    bool running() const { return m_jobs.isRunning(); }

signals:
    void cancelled();
    // Permille of the whole load: the pages to 900, feeding the plugins to 980, then indexing
    // the tasks and making the plugins' tables. What it is doing, for the label.
    void progress(int permille, qulonglong events, const QString& doing);
    void finished(std::shared_ptr<ringside::TraceSession> session);
    void failed(const QString& path, const QString& message);

private:
    JobTracker m_jobs; // last: its destructor waits for the running load
};

} // namespace ringside
