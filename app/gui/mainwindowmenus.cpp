// SPDX-License-Identifier: GPL-2.0-or-later
// The window's menus and the events table's context actions: what each entry does, and the
// Plugins dialog they open.
#include "mainwindow.h"

#include "capture/capturecontroller.h"
#include "exports/exportcontroller.h"
#include "help/helpmenu.h"
#include "latency/latencypane.h"
#include "plugins/pluginsdialog.h"
#include "session/recentfiles.h"
#include "session/sessioncontroller.h"
#include "status/windowstatus.h"
#include "table/eventspane.h"
#include "table/eventtablemodel.h"
#include "table/eventtableview.h"
#include "timeline/timelineactions.h"
#include "timeline/timelinewidget.h"

#include <QAction>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QSettings>

namespace ringside {

void MainWindow::buildMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->setObjectName("fileMenu");
    QAction* open = file->addAction(tr("&Open…"), QKeySequence::Open, this, [this] {
        QSettings settings;
        const QString dir = settings.value("files/lastDir").toString();
        const QString path = QFileDialog::getOpenFileName(this, tr("Open recording"), dir,
                                                          tr("trace-cmd recordings (*.dat);;All files (*)"));
        if (path.isEmpty()) return;
        settings.setValue("files/lastDir", QFileInfo(path).absolutePath());
        openFile(path);
    });
    open->setObjectName("openAction");
    QAction* append = file->addAction(tr("&Append Recording…"), this, [this] {
        QSettings settings;
        const QString dir = settings.value("files/lastDir").toString();
        const QStringList paths = QFileDialog::getOpenFileNames(this, tr("Append recordings"), dir,
                                                                tr("trace-cmd recordings (*.dat);;All files (*)"));
        if (paths.isEmpty()) return;
        settings.setValue("files/lastDir", QFileInfo(paths.first()).absolutePath());
        m_workspace.queueAppends(paths.mid(1));
        appendFile(paths.first());
    });
    append->setObjectName("appendAction");
    QMenu* recentMenu = file->addMenu(tr("Open &Recent"));
    recentMenu->setObjectName("recentMenu");
    auto* recent = new RecentFiles(recentMenu);
    connect(recent, &RecentFiles::openRequested, this, [this](const QString& path) { openFile(path); });
    connect(&m_workspace, &Workspace::loaded, recent, &RecentFiles::add);
    file->addSeparator();
    m_sessions = new SessionController(m_workspace, this, m_events->table()->header());
    connect(m_sessions, &SessionController::openRequested, this, &MainWindow::openFiles);
    connect(
        m_sessions, &SessionController::viewsRestoreRequested, this,
        [this](const std::vector<std::optional<ViewSnapshot>>& views, size_t active) { restoreViews(views, active); });
    file->addAction(tr("Open &Session…"), m_sessions, &SessionController::openWithDialog)
        ->setObjectName("openSessionAction");
    QAction* saveSession = file->addAction(tr("Sa&ve Session…"), QKeySequence(tr("Ctrl+Shift+S")), m_sessions,
                                           &SessionController::saveWithDialog);
    saveSession->setObjectName("saveSessionAction");
    connect(m_sessions, &SessionController::restored, this, [this](const QString& path) {
        m_status->say(tr("Session %1 restored").arg(QFileInfo(path).fileName()), 15000);
    });
    file->addSeparator();
    m_exports = new ExportController(this, [this] {
        ExportSource source;
        source.session = activeSession();
        source.filter = m_events->model()->sharedFilter();
        if (activeSession())
            for (int row : m_events->table()->selectedRows())
                source.selectedRows.push_back(activeSession()->store().rowOf(m_events->model()->eventAt(row)));
        return source;
    });
    connect(m_exports, &ExportController::message, this, [this](const QString& text) { m_status->say(text, 15000); });
    QAction* exportEvents =
        file->addAction(tr("&Export Events…"), QKeySequence(tr("Ctrl+E")), m_exports, &ExportController::showDialog);
    exportEvents->setObjectName("exportAction");
    QAction* exportImage = file->addAction(tr("Export Timeline &Image…"), m_exports,
                                          [this] { m_exports->exportTimelineImage(m_timeline); });
    exportImage->setObjectName("exportImageAction");
    // What needs a recording waits for one.
    for (QAction* action : {append, saveSession, exportEvents, exportImage}) {
        action->setEnabled(false);
        connect(&m_workspace, &Workspace::activeChanged, action, [action] { action->setEnabled(true); });
    }
    // The events exported are all of them: not while the recording is still read.
    auto exportWhenWhole = [this, exportEvents] {
        exportEvents->setEnabled(activeSession() && !activeSession()->loading);
        exportEvents->setToolTip(activeSession() && activeSession()->loading ? tr("Once the recording is read")
                                                                             : QString());
    };
    connect(&m_workspace, &Workspace::activeChanged, exportEvents, exportWhenWhole);
    connect(&m_workspace, &Workspace::storeComplete, exportEvents, exportWhenWhole);
    file->addSeparator();
    QMenu* capture = menuBar()->addMenu(tr("&Capture"));
    capture->setObjectName("captureMenu");
    createCaptures(capture, file);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close)->setObjectName("quitAction");

    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->setObjectName("viewMenu");
    m_viewMenu = view;
    QMenu* go = menuBar()->addMenu(tr("&Go"));
    go->setObjectName("goMenu");
    addTimelineActions(view, go, m_view, m_timeline);
    QMenu* analysis = menuBar()->addMenu(tr("&Analysis"));
    analysis->setObjectName("analysisMenu");
    analysis
        ->addAction(tr("&Latency…"), this,
                    [this] {
                        m_latencyDock->show();
                        m_latencyDock->raise();
                        m_latency->setBuilderShown(true);
                        m_latency->presets()->setFocus();
                    })
        ->setObjectName("latencyAction");
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->setObjectName("helpMenu");
    addHelpActions(help, this);
}

void MainWindow::showPluginsDialog()
{
    PluginsDialog dialog(activeSession().get(), this);
    // Every recording is loaded again with the plugins now chosen.
    if (dialog.exec() == QDialog::Accepted && dialog.apply() && activeSession() &&
        m_captures->confirmDiscard([this] { m_workspace.reloadAll(); }))
        m_workspace.reloadAll();
}

} // namespace ringside
