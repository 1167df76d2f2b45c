// SPDX-License-Identifier: GPL-2.0-or-later
#include "filters/filterjob.h"

#include <stdexcept>

namespace ringside {

void FilterJob::start(std::shared_ptr<TraceSession> session, FilterSpec spec,
                      std::shared_ptr<FilterExpression> expression)
{
    m_jobs.start(
        [session, spec = std::move(spec), expression](JobTracker::Context& context) -> std::shared_ptr<FilterResult> {
            auto result =
                applyFilter(*session->trace, spec, expression.get(), context.cancelFlag(),
                            [&context](double fraction) { context.reportProgress(int(fraction * 100)); });
            if (result) return result.value();
            // A cancelled filter's answer is never delivered (the tracker drops it); any other
            // failure arrives as failed().
            if (!context.isCancelled()) throw std::runtime_error(result.error().message);
            return nullptr;
        },
        [this](std::shared_ptr<FilterResult> result) {
            if (result) emit finished(std::move(result));
        },
        [this](const QString& message) { emit failed(message); }, [this](int percent) { emit progress(percent); });
}

} // namespace ringside
