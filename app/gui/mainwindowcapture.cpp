// SPDX-License-Identifier: GPL-2.0-or-later
// The window's side of a live capture: showing it as it grows, its end.
#include "mainwindow.h"

#include "capture/capturecontroller.h"
#include "capture/livecapture.h"
#include "details/healthpane.h"
#include "filters/filtercontroller.h"
#include "filters/filterpanel.h"
#include "status/milestones.h"
#include "status/windowstatus.h"
#include "table/eventspane.h"
#include "table/eventtablemodel.h"
#include "timeline/timelinewidget.h"

#include <QDockWidget>

namespace ringside {

void MainWindow::createCaptures(QMenu* captureMenu, QMenu* fileMenu)
{
    m_captures = new CaptureController(this, recordings(), captureMenu, fileMenu);
    connect(&m_workspace, &Workspace::activeChanged, m_captures, &CaptureController::recordingsChanged);
    connect(m_captures, &CaptureController::captureStarted, this, [this](std::shared_ptr<TraceSession> session, bool withCalls) {
        m_workspace.showCapture(std::move(session), m_captures->analysisAtIdlePriority());
        if (withCalls) {
            m_callDock->show();
            m_callDock->raise();
        }
    });
    connect(m_captures, &CaptureController::captureGrew, this, &MainWindow::captureGrew);
    connect(m_captures, &CaptureController::captureEnded, this, &MainWindow::captureEnded);
    connect(m_captures, &CaptureController::captureSaved, this, &MainWindow::updateRecordingBox);
    connect(m_captures, &CaptureController::captureStatusChanged, m_status, &WindowStatus::setCaptureStatus);
    connect(m_captures, &CaptureController::statusMessage, m_status, &WindowStatus::say);
}

void MainWindow::captureGrew()
{
    // The capture's analyses follow it, whichever recording is shown (one appended meanwhile);
    // the views, when it is the one shown.
    const std::shared_ptr<TraceSession> capture = m_captures->liveSession();
    if (!capture) return;
    const bool named = m_workspace.captureGrew(*capture);
    if (capture != activeSession()) return;
    showStoreGrowth();
    if (named) m_events->model()->taskNamesChanged(); // rows shown before their task had its name
}

void MainWindow::showStoreGrowth()
{
    m_events->model()->storeGrew();
    const auto old = m_view.fullRange(), visible = m_view.visibleRange();
    const auto full = recordings().fullRange();
    const bool whole = visible == old, following = visible.end >= old.end;
    m_view.setFullRange(full);
    // Following the newest events, at the same zoom, unless the user looks elsewhere.
    if (following && !whole && full.end > visible.span())
        m_view.setVisibleRange({full.end - visible.span(), full.end}, false);
    m_timeline->update();
    if (activeSession() && activeSession()->store().eventCount() > 0) milestones::reached("first-rows");
    m_status->updateRange();
    m_filtering->refreshCounts();
    m_filtering->captureGrew();
}

void MainWindow::captureEnded()
{
    const std::shared_ptr<TraceSession> capture = m_captures->liveSession();
    if (!capture) return;
    captureGrew();
    m_workspace.captureEnded(*capture);
    if (capture != activeSession()) return; // shown as a whole when it is chosen
    showStoreEnded();
}

void MainWindow::showStoreEnded()
{
    const FilterSpec spec = m_view.filter();
    m_filters->setSession(activeSession().get());
    m_filters->setSpec(spec);
    m_health->setSession(activeSession().get());
    m_status->showLoadWarnings(&activeSession()->store().diagnostics());
    if (!spec.empty()) m_filtering->apply();
}

} // namespace ringside
