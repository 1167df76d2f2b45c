// SPDX-License-Identifier: GPL-2.0-or-later
// The window's menus and the events table's context actions: what each entry does, and the
// Plugins dialog they open.
#include "mainwindow.h"

#include "capture/capturecontroller.h"
#include "exports/exportcontroller.h"
#include "help/helpmenu.h"
#include "plugins/pluginsdialog.h"
#include "session/sessioncontroller.h"
#include "status/windowstatus.h"
#include "table/eventtablemodel.h"
#include "table/eventtableview.h"
#include "timeline/timelinewidget.h"

#include <QAction>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QMenuBar>
#include <QMessageBox>
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
    append->setEnabled(false);
    connect(&m_workspace, &Workspace::activeChanged, append,
            [this, append] { append->setEnabled(activeSession() != nullptr); });
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    m_recentMenu->setObjectName("recentMenu");
    file->addSeparator();
    m_sessions = new SessionController(m_workspace, this, m_table->header());
    connect(m_sessions, &SessionController::openRequested, this, &MainWindow::openFiles);
    connect(
        m_sessions, &SessionController::viewsRestoreRequested, this,
        [this](const std::vector<std::optional<ViewSnapshot>>& views, size_t active) { restoreViews(views, active); });
    file->addAction(tr("Open &Session…"), m_sessions, &SessionController::openWithDialog)
        ->setObjectName("openSessionAction");
    QAction* saveSession = file->addAction(tr("Sa&ve Session…"), QKeySequence(tr("Ctrl+Shift+S")), m_sessions,
                                           &SessionController::saveWithDialog);
    saveSession->setObjectName("saveSessionAction");
    saveSession->setEnabled(false);
    connect(&m_workspace, &Workspace::activeChanged, saveSession,
            [this, saveSession] { saveSession->setEnabled(activeSession() != nullptr); });
    connect(m_sessions, &SessionController::restored, this, [this](const QString& path, const QStringList& problems) {
        m_status->say(tr("Session %1 restored").arg(QFileInfo(path).fileName()), 15000);
        if (problems.isEmpty()) return;
        if (!m_screenshotPath.isEmpty()) {
            for (const QString& p : problems) qWarning("ringside: %s: %s", qPrintable(path), qPrintable(p));
            return;
        }
        auto* box = new QMessageBox(QMessageBox::Information, tr("Session restored"),
                                    tr("%1 is restored, with these notes:").arg(path), QMessageBox::Ok, this);
        box->setInformativeText("• " + problems.join("\n• "));
        box->setObjectName("sessionProblemsMessage");
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    });
    connect(m_sessions, &SessionController::failed, this, [this](const QString& message) {
        if (!m_screenshotPath.isEmpty()) {
            qCritical("ringside: %s", qPrintable(message));
            QApplication::exit(1);
            return;
        }
        auto* box = new QMessageBox(QMessageBox::Warning, tr("Session"), message, QMessageBox::Ok, this);
        box->setObjectName("sessionFailedMessage");
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    });
    file->addSeparator();
    m_exports = new ExportController(this, [this] {
        ExportSource source;
        source.session = activeSession();
        source.filter = m_model->sharedFilter();
        if (activeSession())
            for (int row : m_table->selectedRows())
                source.selectedRows.push_back(activeSession()->store().rowOf(m_model->eventAt(row)));
        return source;
    });
    connect(m_exports, &ExportController::message, this, [this](const QString& text) { m_status->say(text, 15000); });
    QAction* exportEvents =
        file->addAction(tr("&Export Events…"), QKeySequence(tr("Ctrl+E")), m_exports, &ExportController::showDialog);
    exportEvents->setObjectName("exportAction");
    connect(&m_workspace, &Workspace::activeChanged, exportEvents,
            [this, exportEvents] { exportEvents->setEnabled(activeSession() != nullptr); });
    exportEvents->setEnabled(false);
    QAction* exportImage = file->addAction(tr("Export Timeline &Image…"), this, &MainWindow::exportTimelineImage);
    exportImage->setObjectName("exportImageAction");
    connect(&m_workspace, &Workspace::activeChanged, exportImage,
            [this, exportImage] { exportImage->setEnabled(activeSession() != nullptr); });
    exportImage->setEnabled(false);
    file->addSeparator();
    QMenu* capture = menuBar()->addMenu(tr("&Capture"));
    capture->setObjectName("captureMenu");
    createCaptures(capture, file);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close)->setObjectName("quitAction");

    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->setObjectName("viewMenu");
    m_viewMenu = view;
    view->addAction(tr("Zoom &In"), QKeySequence(tr("Ctrl+=")), this,
                    [this] {
                        m_view.setVisibleRange(timeline::zoomAround(
                            m_view.visibleRange(), m_view.visibleRange().start + m_view.visibleRange().span() / 2, 0.5,
                            m_view.fullRange()));
                    })
        ->setObjectName("zoomInAction");
    view->addAction(tr("Zoom &Out"), QKeySequence(tr("Ctrl+-")), this,
                    [this] {
                        m_view.setVisibleRange(timeline::zoomAround(
                            m_view.visibleRange(), m_view.visibleRange().start + m_view.visibleRange().span() / 2, 2.0,
                            m_view.fullRange()));
                    })
        ->setObjectName("zoomOutAction");
    view->addAction(tr("Zoom to &Fit"), QKeySequence(tr("Ctrl+0")), &m_view, &ViewState::zoomToFit)
        ->setObjectName("zoomFitAction");
    view->addAction(tr("Zoom &Back"), QKeySequence(tr("Alt+Left")), &m_view, &ViewState::zoomBack)
        ->setObjectName("zoomBackAction");
    view->addAction(tr("Zoom &Forward"), QKeySequence(tr("Alt+Right")), &m_view, &ViewState::zoomForward)
        ->setObjectName("zoomForwardAction");
    view->addAction(tr("Zoom to Markers A–B"), QKeySequence(tr("Ctrl+M")), &m_view, &ViewState::zoomToMarkers)
        ->setObjectName("zoomMarkersAction");
    view->addAction(tr("Clear Markers"), &m_view, &ViewState::clearMarkers)->setObjectName("clearMarkersAction");
    view->addSeparator();
    QAction* wheel = view->addAction(tr("Mouse Wheel Zooms (Ctrl+Wheel Scrolls)"));
    wheel->setObjectName("wheelZoomsAction");
    wheel->setCheckable(true);
    wheel->setChecked(QSettings().value("preferences/wheelZooms", false).toBool());
    m_timeline->setWheelZooms(wheel->isChecked());
    connect(wheel, &QAction::toggled, this, [this](bool on) {
        m_timeline->setWheelZooms(on);
        QSettings().setValue("preferences/wheelZooms", on);
    });
    view->addSeparator();

    QMenu* go = menuBar()->addMenu(tr("&Go"));
    go->setObjectName("goMenu");
    go->addAction(tr("Previous Selection"), QKeySequence(tr("Ctrl+[")), &m_view, &ViewState::selectBack)
        ->setObjectName("selectBackAction");
    go->addAction(tr("Next Selection"), QKeySequence(tr("Ctrl+]")), &m_view, &ViewState::selectForward)
        ->setObjectName("selectForwardAction");
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->setObjectName("helpMenu");
    addHelpActions(help, this);
}

void MainWindow::showPluginsDialog()
{
    PluginsDialog dialog(activeSession().get(), this);
    if (dialog.exec() == QDialog::Accepted && dialog.apply() && activeSession()) {
        // Every recording is loaded again with the plugins now chosen.
        if (recordings().size() == 1) return openFile(activeSession()->path, activeSession()->isSample);
        QStringList paths;
        for (size_t i = 0; i < recordings().size(); ++i) paths << recordings().at(i)->path;
        openFiles(paths);
    }
}

} // namespace ringside
