// SPDX-License-Identifier: GPL-2.0-or-later
// The window's side of opening recordings (the workspace loads them): open or append, several
// at once (dropped, given on the command line), the load's progress and its errors; an open
// shown as its pages are read.
#include "mainwindow.h"

#include "capture/capturecontroller.h"
#include "exports/windowscreenshot.h"
#include "status/loadstatus.h"
#include "status/milestones.h"
#include "status/windowstatus.h"
#include "table/eventspane.h"

#include <QDragEnterEvent>
#include <QMessageBox>
#include <QMimeData>
#include <QStatusBar>

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
    statusBar()->addPermanentWidget(new LoadStatus(m_workspace, statusBar()));
    // A recording read while shown: its rows come in a few times a second.
    m_loadGrowth = new QTimer(this);
    m_loadGrowth->setInterval(250);
    connect(m_loadGrowth, &QTimer::timeout, this, [this] {
        if (activeSession() && activeSession()->loading) showStoreGrowth();
    });
    connect(&m_workspace, &Workspace::activeChanged, this, [this] {
        if (activeSession() && activeSession()->loading)
            m_loadGrowth->start();
        else
            m_loadGrowth->stop();
    });
    connect(&m_workspace, &Workspace::storeComplete, this, &MainWindow::loadComplete);
    connect(&m_workspace, &Workspace::alreadyOpen, this, [this](size_t index) {
        m_status->say(tr("%1 is open already").arg(recordings().name(index)), 15000);
        setActiveRecording(index);
    });
    connect(&m_workspace, &Workspace::appendRefused, this, [this](const QString& message) {
        QMessageBox::warning(this, tr("Cannot append recording"), message);
    });
    connect(&m_workspace, &Workspace::loadFailed, this, [this](const QString& message) {
        if (m_screenshot) return; // said in the log
        // Not a nested event loop: the workspace goes on with the other files given.
        auto* box = new QMessageBox(QMessageBox::Critical, tr("Cannot open recording"), message, QMessageBox::Ok, this);
        box->setObjectName("loadFailedMessage");
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    });
}

void MainWindow::loadComplete(const TraceSession* session)
{
    if (session != activeSession().get()) return; // shown whole when it is chosen
    m_loadGrowth->stop();
    showStoreGrowth();
    m_events->fitColumns();
    showStoreEnded();
    milestones::reached("store-complete");
    for (const Diagnostic& d : activeSession()->store().diagnostics().items())
        if (d.code == "load-stopped")
            m_status->say(tr("Stopped reading %1: %2")
                              .arg(recordings().name(activeRecording()), QString::fromStdString(d.message)),
                          30000);
}

void MainWindow::screenshotWhenLoaded(const QString& path)
{
    m_screenshot = new WindowScreenshot(
        m_workspace, m_sessions, [this](const QString& file) { return saveWindowImage(file); }, path, this);
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
