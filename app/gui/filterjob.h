// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "query/eventfilter.h"
#include "tracesession.h"
#include "workerthreads.h"

#include <QList>
#include <QObject>
#include <QPointer>
#include <QThread>

#include <atomic>
#include <memory>

namespace ringside {

// Evaluates a filter over the whole trace on a worker thread; only the result of the latest
// request is delivered (older generations are dropped), on the GUI thread.
class FilterJob : public QObject {
    Q_OBJECT
public:
    explicit FilterJob(QObject* parent = nullptr) : QObject(parent) {}
    ~FilterJob() override;

    void start(std::shared_ptr<TraceSession> session, FilterSpec spec, std::shared_ptr<FilterExpression> expression);
    void cancel();

signals:
    void progress(int percent);
    void finished(std::shared_ptr<ringside::FilterResult> result);

private:
    int m_generation = 0;
    std::shared_ptr<std::atomic<bool>> m_cancel;
    WorkerThreads m_workers; // last: waits for running jobs after cancel()
};

} // namespace ringside
