// SPDX-License-Identifier: GPL-2.0-or-later
#include "jobs/loadjob.h"

#include "plugins/pluginsettings.h"

namespace ringside {

void LoadJob::cancel()
{
    const bool wasRunning = m_jobs.isRunning();
    m_jobs.cancel();
    if (wasRunning) emit cancelled();
}

void LoadJob::start(const QString& path, bool isSample)
{
    // The events parsed so far: the loader's thread writes it, a progress report reads it on
    // the GUI thread (the tracker's progress carries one number, the permille).
    auto events = std::make_shared<std::atomic<qulonglong>>(0);
    struct Outcome {
        std::shared_ptr<TraceSession> session;
        QString error;
    };
    // The plugins switched on, made here (the settings live on the GUI thread) and handed to the
    // load; the job is copied around, so they travel in a shared holder.
    auto plugins = std::make_shared<std::vector<std::unique_ptr<Plugin>>>(PluginSettings::instantiateEnabled());
    m_jobs.start(
        [path, isSample, events, plugins](JobTracker::Context& context) {
            LoadOptions options;
            options.cancel = context.cancelFlag();
            options.progress = [&context, events](const LoadProgress& p) {
                events->store(p.events);
                context.reportProgress(p.bytesTotal ? int(p.bytesDone * 1000 / p.bytesTotal) : 0);
            };
            auto trace = Trace::open(path.toStdString(), options, {}, std::move(*plugins));
            Outcome outcome;
            if (!trace) {
                outcome.error = QString::fromStdString(trace.error().message);
                return outcome;
            }
            outcome.session = std::make_shared<TraceSession>();
            outcome.session->path = path;
            outcome.session->isSample = isSample;
            outcome.session->trace = std::move(trace.value());
            outcome.session->formatter = std::make_unique<EventFormatter>(*outcome.session->trace);
            outcome.session->formatter->setTepLock(&outcome.session->tepLock);
            outcome.session->makePluginTables();
            return outcome;
        },
        [this, path](Outcome outcome) {
            if (outcome.session)
                emit finished(std::move(outcome.session));
            else
                emit failed(path, outcome.error);
        },
        [this, path](const QString& message) { emit failed(path, tr("Loading failed: %1").arg(message)); },
        [this, events](int permille) { emit progress(permille, events->load()); });
}

} // namespace ringside
