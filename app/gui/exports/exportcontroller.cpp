// SPDX-License-Identifier: GPL-2.0-or-later
#include "exports/exportcontroller.h"

#include "timeline/timelinewidget.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLocale>
#include <QMessageBox>
#include <QProgressDialog>
#include <QSettings>

namespace ringside {

ExportController::ExportController(QWidget* window, std::function<ExportSource()> source)
    : QObject(window), m_window(window), m_source(std::move(source))
{
    connect(&m_job, &ExportJob::progress, this, [this](int percent) {
        if (!m_progress) return;
        if (m_progress->maximum() == 0) m_progress->setRange(0, 100); // the events began
        m_progress->setValue(percent);
    });
    connect(&m_job, &ExportJob::finished, this, [this](const QString& path, qulonglong rows, double seconds) {
        closeProgress();
        emit message(tr("Exported %1 events to %2 in %3 s")
                         .arg(QLocale().toString(rows), path, QString::number(seconds, 'f', 1)));
    });
    connect(&m_job, &ExportJob::failed, this, [this](const QString& text) {
        closeProgress();
        auto* box = new QMessageBox(QMessageBox::Warning, tr("Export failed"), text, QMessageBox::Ok, m_window);
        box->setObjectName("exportFailedMessage");
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    });
}

void ExportController::showDialog()
{
    const ExportSource source = m_source();
    if (!source.session || m_job.running()) return;
    auto* dialog = new ExportDialog(source.session->path, source.session->store().eventCount(),
                                    source.filter ? source.filter->merged.size() : 0, source.filter != nullptr,
                                    source.selectedRows.size(), m_window);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this,
            [this, dialog] { exportTo(dialog->path(), dialog->format(), dialog->rows()); });
    dialog->open();
}

void ExportController::exportTo(const QString& path, ExportFormat format, ExportDialog::Rows rows)
{
    const ExportSource source = m_source();
    if (!source.session || m_job.running()) return;
    std::shared_ptr<const RowSet> set;
    if (rows == ExportDialog::Rows::Filtered && source.filter) {
        set = std::shared_ptr<const RowSet>(source.filter, &source.filter->merged);
    } else if (rows == ExportDialog::Rows::Selected) {
        auto selected = std::make_shared<RowSet>(source.session->store().eventCount());
        for (size_t row : source.selectedRows) selected->set(row);
        selected->seal();
        set = std::move(selected);
    }
    m_progress = new QProgressDialog(tr("Exporting to %1…").arg(path), tr("Cancel"), 0, 100, m_window);
    m_progress->setObjectName("exportProgress");
    m_progress->setWindowTitle(tr("Export Events"));
    m_progress->setMinimumDuration(300);
    m_progress->setAutoClose(false);
    m_progress->setAutoReset(false);
    // A Perfetto trace's tracks and tables are written first, without a count to show (8 s on
    // 24M events): the bar moves as busy until the events' progress comes.
    if (format == ExportFormat::Perfetto) m_progress->setRange(0, 0);
    m_progress->setValue(0); // counts the minimum duration from now, not from Qt's 4 s default
    connect(m_progress, &QProgressDialog::canceled, this, [this] {
        m_job.cancel();
        closeProgress();
        emit message(tr("Export cancelled"));
    });
    m_job.start(source.session, path, format, set);
}

void ExportController::closeProgress()
{
    if (!m_progress) return;
    // Hidden now, not when the deferred delete runs: a shown dialog would outlive the export.
    m_progress->disconnect(this);
    m_progress->hide();
    m_progress->reset(); // stops its show-delay timer, which would show it again after a quick export
    m_progress->deleteLater();
    m_progress = nullptr;
}

void ExportController::exportTimelineImage(TimelineWidget* timeline)
{
    const ExportSource source = m_source();
    if (!source.session) return;
    QSettings settings;
    const QFileInfo recording(source.session->path);
    const QString dir = settings.value("files/imageDir", recording.absolutePath()).toString();
    const QString path = QFileDialog::getSaveFileName(m_window, tr("Export timeline image"),
                                                      QDir(dir).filePath(recording.completeBaseName() + ".png"),
                                                      tr("PNG image (*.png);;SVG image (*.svg)"));
    if (path.isEmpty()) return;
    settings.setValue("files/imageDir", QFileInfo(path).absolutePath());
    QString error;
    if (timeline->saveImage(path, &error))
        emit message(tr("Timeline saved to %1").arg(path));
    else
        QMessageBox::warning(m_window, tr("Export failed"), error);
}

} // namespace ringside
