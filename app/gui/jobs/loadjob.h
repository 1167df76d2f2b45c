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

// Loads a recording's store on a worker thread and hands the session to the GUI thread, which
// shows it and then runs its analyses (AnalysisJob). Runs on a JobTracker: a cancelled or
// superseded load never replaces what the user asked for last, and an exception in the loader
// arrives as failed(), not as a crash.
class LoadJob : public QObject {
    Q_OBJECT
public:
    explicit LoadJob(QObject* parent = nullptr) : QObject(parent) {}

    void start(const QString& path, bool isSample = false);
    void cancel();
    bool running() const { return m_jobs.isRunning(); }

signals:
    void cancelled();
    // Permille of the pages parsed. What it is doing, for the label.
    void progress(int permille, qulonglong events, const QString& doing);
    void finished(std::shared_ptr<ringside::TraceSession> session);
    void failed(const QString& path, const QString& message);

private:
    JobTracker m_jobs; // last: its destructor waits for the running load
};

} // namespace ringside
