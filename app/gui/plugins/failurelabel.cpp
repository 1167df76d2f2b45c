// SPDX-License-Identifier: GPL-2.0-or-later
#include "plugins/failurelabel.h"

namespace ringside {

FailureLabel::FailureLabel(QWidget* parent) : QLabel(parent)
{
    setObjectName("analysisFailures");
    setTextFormat(Qt::RichText);
    hide();
    connect(this, &QLabel::linkActivated, this, [this] { emit detailsRequested(); });
}

QStringList FailureLabel::lines(const std::vector<Trace::Failure>& failures, const QString& job)
{
    QStringList out;
    for (const Trace::Failure& f : failures)
        out << (f.who.empty() ? tr("The analyses stopped: %1").arg(QString::fromStdString(f.what))
                              : tr("%1 stopped: it threw \"%2\"")
                                    .arg(QString::fromStdString(f.who), QString::fromStdString(f.what)));
    if (!job.isEmpty()) out << tr("The analyses stopped: %1").arg(job);
    return out;
}

void FailureLabel::setFailures(const std::vector<Trace::Failure>& failures, const QString& job)
{
    const QStringList all = lines(failures, job);
    setVisible(!all.isEmpty());
    if (all.isEmpty()) return;
    const QString first = failures.empty() || failures.front().who.empty()
                              ? tr("Analyses stopped")
                              : tr("%1 stopped").arg(QString::fromStdString(failures.front().who));
    const QString more = all.size() > 1 ? tr(" (+%1)").arg(all.size() - 1) : QString();
    setText(tr("<span style=\"color:#c01c28\">&#9888; %1%2</span> <a href=\"details\">details</a>")
                .arg(first.toHtmlEscaped(), more));
    setToolTip(all.join('\n') + tr("\n\nThe rest of the recording and its other analyses are shown as usual."));
}

} // namespace ringside
