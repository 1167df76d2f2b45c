// SPDX-License-Identifier: GPL-2.0-or-later
// The window's side of opening recordings: open or append, several at once (dropped, given on
// the command line), the load job behind a progress dialog, and the recent files.
#include "mainwindow.h"

#include "capture/capturecontroller.h"

#include <QApplication>
#include <QDragEnterEvent>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressDialog>
#include <QSettings>
#include <QStatusBar>
#include <QTimer>

namespace ringside {

void MainWindow::openFile(const QString& path, bool isSample)
{
    if (m_captures && !m_captures->confirmDiscard([this, path, isSample] { openFile(path, isSample); })) return;
    m_pendingAppends.clear();
    m_appending = false;
    startLoad(path, isSample);
}

void MainWindow::appendFile(const QString& path)
{
    if (!activeSession()) return openFile(path);
    if (auto open = recordings().indexOf(path)) {
        say(tr("%1 is open already").arg(QFileInfo(path).fileName()), 15000);
        setActiveRecording(*open);
        return continueLoading();
    }
    if (recordings().size() >= 255) {
        QMessageBox::warning(this, tr("Cannot append recording"),
                             tr("%1: a window shows at most 255 recordings").arg(path));
        return;
    }
    m_appending = true;
    startLoad(path, false);
}

void MainWindow::openFiles(const QStringList& paths)
{
    if (paths.isEmpty()) return;
    openFile(paths.first());
    m_pendingAppends = paths.mid(1);
}

void MainWindow::startLoad(const QString& path, bool isSample)
{
    closeProgress();
    m_progress = new QProgressDialog(this);
    m_progress->setObjectName("loadProgress");
    m_progress->setWindowTitle(tr("Ringside"));
    m_progress->setRange(0, 1000);
    m_progress->setMinimumDuration(300);
    m_progress->setAutoReset(false);
    m_progress->setAutoClose(false);
    m_progress->setWindowModality(Qt::WindowModal);
    connect(m_progress, &QProgressDialog::canceled, &m_load, &LoadJob::cancel);
    m_progress->setLabelText(tr("Opening %1…").arg(QFileInfo(path).fileName()));
    m_progress->setValue(0);
    m_load.start(path, isSample);
}

void MainWindow::continueLoading()
{
    if (!m_pendingAppends.isEmpty()) return appendFile(m_pendingAppends.takeFirst());
    if (!m_screenshotPath.isEmpty() && activeSession()) {
        // Once every recording's analyses are done: the picture shows their tables.
        for (size_t i = 0; i < recordings().size(); ++i)
            if (recordings().at(i)->analyses && !recordings().at(i)->analyses->isFinished()) {
                QTimer::singleShot(100, this, &MainWindow::continueLoading);
                return;
            }
        QTimer::singleShot(300, this, [this] {
            const bool saved = saveWindowImage(m_screenshotPath);
            if (!saved) qCritical("ringside: cannot write %s", qPrintable(m_screenshotPath));
            QApplication::exit(saved ? 0 : 1);
        });
    }
}

void MainWindow::addRecent(const QString& path)
{
    QSettings settings;
    QStringList recent = settings.value("files/recent").toStringList();
    const QString absolute = QFileInfo(path).absoluteFilePath();
    recent.removeAll(absolute);
    recent.prepend(absolute);
    while (recent.size() > 10) recent.removeLast();
    settings.setValue("files/recent", recent);
    updateRecentMenu();
}

void MainWindow::updateRecentMenu()
{
    m_recentMenu->clear();
    const QStringList recent = QSettings().value("files/recent").toStringList();
    for (const QString& path : recent) m_recentMenu->addAction(path, this, [this, path] { openFile(path); });
    m_recentMenu->setEnabled(!recent.isEmpty());
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e)
{
    if (e->mimeData()->hasUrls()) e->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* e)
{
    QStringList paths;
    for (const QUrl& url : e->mimeData()->urls())
        if (url.isLocalFile()) paths << url.toLocalFile();
    openFiles(paths);
}

} // namespace ringside
