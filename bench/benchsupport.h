// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "jobs/loadjob.h"

#include <QElapsedTimer>
#include <QEventLoop>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <vector>

namespace ringside::bench {

// Loads a recording the way the app does (LoadJob, off the calling thread) and waits for it;
// nullptr after printing the error.
inline std::shared_ptr<TraceSession> loadSession(const char* path, const char* program)
{
    LoadJob job;
    std::shared_ptr<TraceSession> session;
    QEventLoop loop;
    QObject::connect(&job, &LoadJob::finished, [&](std::shared_ptr<TraceSession> s) {
        session = s;
        loop.quit();
    });
    QObject::connect(&job, &LoadJob::failed, [&](const QString&, const QString& message) {
        std::fprintf(stderr, "%s: %s\n", program, qPrintable(message));
        loop.exit(1);
    });
    job.start(QString::fromLocal8Bit(path));
    return loop.exec() == 0 ? session : nullptr;
}

inline double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

} // namespace ringside::bench
