// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "jobs/jobtracker.h"
#include "query/eventfilter.h"
#include "state/tracesession.h"

#include <QObject>

#include <memory>

namespace ringside {

// Evaluates a filter over the whole trace on a worker thread (a JobTracker): only the result
// of the latest request is delivered, on the GUI thread, together with the spec it answers.
class FilterJob : public QObject {
    Q_OBJECT
public:
    explicit FilterJob(QObject* parent = nullptr) : QObject(parent) {}

    void start(std::shared_ptr<TraceSession> session, FilterSpec spec, std::shared_ptr<FilterExpression> expression);
    void cancel() { m_jobs.cancel(); }
    bool running() const { return m_jobs.isRunning(); }

signals:
    void progress(int percent);
    void finished(std::shared_ptr<ringside::FilterResult> result);
    void failed(const QString& message);

private:
    JobTracker m_jobs; // its destructor waits for the running job
};

} // namespace ringside
