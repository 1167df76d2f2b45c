// SPDX-License-Identifier: GPL-2.0-or-later
#include "jobs/loadjob.h"

#include "plugins/pluginsettings.h"

#include <QLocale>

namespace ringside {

void LoadJob::cancel()
{
    const bool wasRunning = m_jobs.isRunning();
    if (m_stop) *m_stop = true; // its thread ends soon, though nothing it delivers arrives
    m_jobs.cancel();
    if (wasRunning) emit cancelled();
}

void LoadJob::stop()
{
    if (!shown()) return cancel();
    *m_stop = true;
}

void LoadJob::start(const QString& path, bool isSample, bool show)
{
    if (m_stop) *m_stop = true; // the load before, superseded
    auto stop = m_stop = std::make_shared<std::atomic<bool>>(false);
    m_shown = false;
    // The events parsed so far: the loader's thread writes it, a progress report reads it on
    // the GUI thread (the tracker's progress carries one number, the permille).
    auto events = std::make_shared<std::atomic<qulonglong>>(0);
    // What the permille is of, for the label: a LoadProgress::Stage.
    auto stage = std::make_shared<std::atomic<int>>(0);
    struct Outcome {
        std::shared_ptr<TraceSession> session;
        QString error;
    };
    // The plugins switched on, made here (the settings live on the GUI thread) and handed to the
    // load; the job is copied around, so they travel in a shared holder.
    auto plugins = std::make_shared<std::vector<std::unique_ptr<Plugin>>>(PluginSettings::instantiateEnabled());
    m_jobs.start(
        [this, path, isSample, show, stop, events, stage, plugins](JobTracker::Context& context) {
            Outcome outcome;
            auto trace = Trace::unloaded(path.toStdString(), {}, std::move(*plugins));
            if (!trace) {
                outcome.error = QString::fromStdString(trace.error().message);
                return outcome;
            }
            auto session = std::make_shared<TraceSession>();
            session->path = path;
            session->isSample = isSample;
            session->trace = std::move(trace.value());
            session->formatter = std::make_unique<EventFormatter>(*session->trace);
            session->loading = show;
            if (show)
                context.post([this, session] {
                    m_shown = true;
                    emit opened(session);
                });
            LoadOptions options;
            // The store only: the window shows it and runs the analyses after (AnalysisJob).
            options.analyse = false;
            options.growing = show;
            options.cancel = stop.get();
            options.progress = [&context, events, stage](const LoadProgress& p) {
                events->store(p.events);
                stage->store(int(p.stage));
                switch (p.stage) {
                case LoadProgress::Stage::Pages:
                    context.reportProgress(p.bytesTotal ? int(p.bytesDone * 1000 / p.bytesTotal) : 0);
                    break;
                default: context.reportProgress(1000); break;
                }
            };
            auto loaded = session->trace->load(options);
            if (!loaded) outcome.error = QString::fromStdString(loaded.error().message);
            outcome.session = std::move(session);
            return outcome;
        },
        [this, path](Outcome outcome) {
            m_shown = false;
            if (outcome.error.isEmpty())
                emit finished(std::move(outcome.session));
            else
                emit failed(path, outcome.error);
        },
        [this, path](const QString& message) {
            m_shown = false;
            emit failed(path, tr("Loading failed: %1").arg(message));
        },
        [this, events, stage](int permille) {
            const QString count = QLocale().toString(events->load());
            switch (LoadProgress::Stage(stage->load())) {
            case LoadProgress::Stage::Pages:
                emit progress(permille, events->load(), tr("Loading %1 events…").arg(count));
                break;
            case LoadProgress::Stage::Consumers:
                emit progress(permille, events->load(), tr("Running the plugins on %1 events…").arg(count));
                break;
            case LoadProgress::Stage::Tasks:
                emit progress(permille, events->load(), tr("Indexing the tasks of %1 events…").arg(count));
                break;
            }
        });
}

} // namespace ringside
