// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "export/eventexporter.h"
#include "jobs/jobtracker.h"
#include "state/tracesession.h"

#include <QObject>

#include <memory>

namespace ringside {

// Writes an export on a worker thread (a JobTracker), with progress and cancel. The rows go
// to PATH.part first and replace PATH only once complete: a cancelled or failed export leaves
// no half-written file and never spoils what PATH held.
class ExportJob : public QObject {
    Q_OBJECT
public:
    explicit ExportJob(QObject* parent = nullptr) : QObject(parent) {}

    // `rows`: merged-order rows to write, or null for every event.
    void start(std::shared_ptr<TraceSession> session, const QString& path, ExportFormat format,
               std::shared_ptr<const RowSet> rows);
    void cancel() { m_jobs.cancel(); }
    bool running() const { return m_jobs.isRunning(); }
    // Until the job's thread has ended (a cancelled job's too); for tests.
    void waitForThreads() { m_jobs.waitForThreads(); }

signals:
    void progress(int percent);
    void finished(const QString& path, qulonglong rows, double seconds);
    void failed(const QString& message);

private:
    JobTracker m_jobs;
};

} // namespace ringside
