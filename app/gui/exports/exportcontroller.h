// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "exports/exportdialog.h"
#include "exports/exportjob.h"
#include "query/eventfilter.h"

#include <QObject>
#include <QPointer>
#include <QProgressDialog>

#include <functional>
#include <memory>

class QWidget;

namespace ringside {

class TimelineWidget;

// What an export can draw from when the user asks: the open recording, the applied filter and
// the selected rows (merged order).
struct ExportSource {
    std::shared_ptr<TraceSession> session;
    std::shared_ptr<const FilterResult> filter;
    std::vector<size_t> selectedRows;
};

// File > Export Events: asks what and where (ExportDialog), runs the ExportJob behind a
// progress dialog with Cancel, and says how it ended (the status bar, or a message naming the
// file and the problem). One export at a time.
class ExportController : public QObject {
    Q_OBJECT
public:
    ExportController(QWidget* window, std::function<ExportSource()> source);

    // The dialog, not blocking: the export starts when it is accepted.
    void showDialog();
    // File > Export Timeline Image: the timeline as shown, to a PNG or SVG the user names.
    void exportTimelineImage(TimelineWidget* timeline);
    // Starts an export without asking; for the dialog and for scripts and tests.
    void exportTo(const QString& path, ExportFormat format, ExportDialog::Rows rows);
    bool running() const { return m_job.running(); }
    ExportJob& job() { return m_job; }
    QProgressDialog* progress() const { return m_progress; }

signals:
    // Shown in the status bar.
    void message(const QString& text);

private:
    void closeProgress();

    QWidget* m_window;
    std::function<ExportSource()> m_source;
    ExportJob m_job;
    QPointer<QProgressDialog> m_progress;
};

} // namespace ringside
