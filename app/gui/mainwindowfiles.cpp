// SPDX-License-Identifier: GPL-2.0-or-later
// The window's side of opening recordings (the workspace loads them): open or append, several
// at once (dropped, given on the command line), the load's progress dialog and its errors, the
// recent files, and the screenshot taken once all is loaded.
#include "mainwindow.h"

#include "capture/capturecontroller.h"
#include "jobs/analysisjob.h"
#include "status/windowstatus.h"

#include <QApplication>
#include <QDragEnterEvent>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressDialog>
#include <QSettings>
#include <QTimer>

namespace ringside {

void MainWindow::openFile(const QString& path, bool isSample)
{
    if (m_captures && !m_captures->confirmDiscard([this, path, isSample] { openFile(path, isSample); })) return;
    m_workspace.open(path, isSample);
}

void MainWindow::appendFile(const QString& path)
{
    if (!activeSession()) return openFile(path);
    m_workspace.appendPath(path);
}

void MainWindow::openFiles(const QStringList& paths)
{
    if (paths.isEmpty()) return;
    if (m_captures && !m_captures->confirmDiscard([this, paths] { openFiles(paths); })) return;
    m_workspace.openAll(paths);
}

void MainWindow::connectLoads()
{
    LoadJob& load = m_workspace.load();
    connect(&m_workspace, &Workspace::loadStarted, this, &MainWindow::showLoadProgress);
    connect(&load, &LoadJob::progress, this, [this](int permille, qulonglong, const QString& doing) {
        if (!m_progress) return;
        // A modal dialog's setValue() runs the event loop, which may deliver the load's end and
        // close the dialog: so it is the last call here.
        m_progress->setLabelText(doing);
        m_progress->setValue(permille);
    });
    connect(&m_workspace, &Workspace::loadEnded, this, &MainWindow::closeProgress);
    connect(&m_workspace, &Workspace::loaded, this, &MainWindow::addRecent);
    connect(&m_workspace, &Workspace::alreadyOpen, this, [this](size_t index) {
        m_status->say(tr("%1 is open already").arg(recordings().name(index)), 15000);
        setActiveRecording(index);
    });
    connect(&m_workspace, &Workspace::appendRefused, this, [this](const QString& message) {
        QMessageBox::warning(this, tr("Cannot append recording"), message);
    });
    connect(&m_workspace, &Workspace::loadFailed, this, [this](const QString& message) {
        if (!m_screenshotPath.isEmpty()) {
            qCritical("ringside: %s", qPrintable(message));
            QApplication::exit(1);
            return;
        }
        // Not a nested event loop: the workspace goes on with the other files given.
        auto* box = new QMessageBox(QMessageBox::Critical, tr("Cannot open recording"), message, QMessageBox::Ok, this);
        box->setObjectName("loadFailedMessage");
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    });
    connect(&m_workspace, &Workspace::loadsDone, this, &MainWindow::takeScreenshotWhenAnalysed);
}

void MainWindow::showLoadProgress(const QString& path)
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
    connect(m_progress, &QProgressDialog::canceled, &m_workspace.load(), &LoadJob::cancel);
    m_progress->setLabelText(tr("Opening %1…").arg(QFileInfo(path).fileName()));
    m_progress->setValue(0);
}

void MainWindow::closeProgress()
{
    // A QProgressDialog without autoClose stays up after reset(); hide and drop it instead, so
    // the next load starts with a fresh one (and its own show delay).
    if (!m_progress) return;
    // Hidden first: while the views are built on this thread the last frame stays on screen,
    // and it should not be an emptied bar.
    m_progress->hide();
    m_progress->reset(); // stops its show-delay timer, which would show it again behind an error box
    m_progress->deleteLater();
    m_progress = nullptr;
}

void MainWindow::screenshotWhenLoaded(const QString& path)
{
    m_screenshotPath = path;
}

void MainWindow::takeScreenshotWhenAnalysed()
{
    if (m_screenshotPath.isEmpty() || !activeSession()) return;
    // Once every recording's analyses are done: the picture shows their tables.
    for (size_t i = 0; i < recordings().size(); ++i)
        if (recordings().at(i)->analyses && !recordings().at(i)->analyses->isFinished()) {
            QTimer::singleShot(100, this, &MainWindow::takeScreenshotWhenAnalysed);
            return;
        }
    QTimer::singleShot(300, this, [this] {
        const bool saved = saveWindowImage(m_screenshotPath);
        if (!saved) qCritical("ringside: cannot write %s", qPrintable(m_screenshotPath));
        QApplication::exit(saved ? 0 : 1);
    });
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
