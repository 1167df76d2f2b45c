// SPDX-License-Identifier: GPL-2.0-or-later
#include "loadjob.h"

#include <QMetaObject>
#include <QPointer>
#include <QThread>

namespace ringside {

LoadJob::LoadJob(QObject* parent) : QObject(parent) {}

LoadJob::~LoadJob()
{
    cancel();
}

void LoadJob::cancel()
{
    if (m_cancel) m_cancel->store(true);
    ++m_generation; // whatever the old load still delivers is dropped
    if (m_running) {
        m_running = false;
        emit cancelled();
    }
}

void LoadJob::start(const QString& path, bool isSample)
{
    if (m_cancel) m_cancel->store(true);
    const int generation = ++m_generation;
    auto cancelFlag = std::make_shared<std::atomic<bool>>(false);
    m_cancel = cancelFlag;
    m_running = true;
    QPointer<LoadJob> self(this);
    m_workers.start([self, path, isSample, generation, cancelFlag] {
        LoadOptions options;
        options.cancel = cancelFlag.get();
        options.progress = [self, generation](const LoadProgress& p) {
            const int permille = p.bytesTotal ? int(p.bytesDone * 1000 / p.bytesTotal) : 0;
            const qulonglong events = p.events;
            QMetaObject::invokeMethod(self, [self, generation, permille, events] {
                if (self && self->m_generation == generation) emit self->progress(permille, events);
            }, Qt::QueuedConnection);
        };
        auto trace = Trace::open(path.toStdString(), options);
        std::shared_ptr<TraceSession> session;
        QString error;
        if (trace) {
            session = std::make_shared<TraceSession>();
            session->path = path;
            session->isSample = isSample;
            session->trace = std::move(trace.value());
            session->formatter = std::make_unique<EventFormatter>(*session->trace);
            session->formatter->setTepLock(&session->tepLock);
        } else {
            error = QString::fromStdString(trace.error().message);
        }
        QMetaObject::invokeMethod(self, [self, generation, session, error, path] {
            if (!self || self->m_generation != generation) return; // superseded or cancelled
            self->m_running = false;
            if (session) emit self->finished(session);
            else emit self->failed(path, error);
        }, Qt::QueuedConnection);
    });
}

} // namespace ringside
