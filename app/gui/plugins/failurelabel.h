// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "trace.h"

#include <QLabel>

#include <vector>

namespace ringside {

// What failed in a recording's analyses, said where the eye is: "syscalls stopped: … —
// details" in red, every failure in the tooltip; hidden when nothing failed. A click on the
// link asks for the details (the Plugin statistics pane lists them).
class FailureLabel : public QLabel {
    Q_OBJECT
public:
    explicit FailureLabel(QWidget* parent = nullptr);
    // `job`: an error of the analysis job itself (AnalysisJob::failure), or empty.
    void setFailures(const std::vector<Trace::Failure>& failures, const QString& job = QString());
    // Each failure in a line: "plugin syscalls stopped: it threw …".
    static QStringList lines(const std::vector<Trace::Failure>& failures, const QString& job = QString());

signals:
    void detailsRequested();
};

} // namespace ringside
