// SPDX-License-Identifier: GPL-2.0-or-later
#include "filterjob.h"

#include <QMetaObject>

namespace ringside {

FilterJob::~FilterJob()
{
    cancel();
}

void FilterJob::cancel()
{
    if (m_cancel) m_cancel->store(true);
    ++m_generation;
}

void FilterJob::start(std::shared_ptr<TraceSession> session, FilterSpec spec, std::shared_ptr<FilterExpression> expression)
{
    cancel();
    const int generation = m_generation;
    auto cancelFlag = std::make_shared<std::atomic<bool>>(false);
    m_cancel = cancelFlag;
    QPointer<FilterJob> self(this);
    m_workers.start([self, session, spec = std::move(spec), expression, generation, cancelFlag] {
        auto report = [self, generation](double fraction) {
            const int percent = int(fraction * 100);
            QMetaObject::invokeMethod(self, [self, generation, percent] {
                if (self && self->m_generation == generation) emit self->progress(percent);
            }, Qt::QueuedConnection);
        };
        auto result = applyFilter(session->store(), spec, expression.get(), cancelFlag.get(), report, &session->tepLock);
        if (!result) return; // cancelled
        std::shared_ptr<FilterResult> value = result.value();
        QMetaObject::invokeMethod(self, [self, generation, value] {
            if (self && self->m_generation == generation) emit self->finished(value);
        }, Qt::QueuedConnection);
    });
}

} // namespace ringside
