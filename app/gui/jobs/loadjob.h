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

    // `show`: the recording is handed over (opened()) once its metadata is read, and its store
    // published as its pages are parsed (LoadOptions::growing); finished() says it is complete.
    void start(const QString& path, bool isSample = false, bool show = false);
    // Drops the load: nothing it would still deliver arrives.
    void cancel();
    // Ends a shown load where it is: what it read is kept and finished() follows. A load not
    // shown yet is cancelled.
    void stop();
    bool running() const { return m_jobs.isRunning(); }
    // The load running was handed over (opened()).
    bool shown() const { return m_jobs.isRunning() && m_shown; }

signals:
    void cancelled();
    // A shown load's recording, its store still empty; finished() follows with the same one.
    void opened(std::shared_ptr<ringside::TraceSession> session);
    // Permille of the pages parsed. What it is doing, for the label.
    void progress(int permille, qulonglong events, const QString& doing);
    void finished(std::shared_ptr<ringside::TraceSession> session);
    void failed(const QString& path, const QString& message);

private:
    std::shared_ptr<std::atomic<bool>> m_stop; // the running load's
    bool m_shown = false;
    JobTracker m_jobs; // last: its destructor waits for the running load
};

} // namespace ringside
