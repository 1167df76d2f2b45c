// SPDX-License-Identifier: GPL-2.0-or-later
// The window's side of a live capture: showing it as it grows, its end, its analyses.
#include "mainwindow.h"

#include "calltree/calltreepane.h"
#include "capture/capturecontroller.h"
#include "capture/livecapture.h"
#include "details/healthpane.h"
#include "filters/filterpanel.h"
#include "plugins/pluginstatspane.h"
#include "table/eventtablemodel.h"
#include "timeline/timelinewidget.h"

#include <QDockWidget>
#include <QLabel>
#include <QStatusBar>

namespace ringside {

void MainWindow::createCaptures(QMenu* captureMenu, QMenu* fileMenu)
{
    m_captures = new CaptureController(this, recordings(), captureMenu, fileMenu);
    connect(&m_workspace, &Workspace::activeChanged, m_captures, &CaptureController::recordingsChanged);
    connect(m_captures, &CaptureController::captureStarted, this, [this](std::shared_ptr<TraceSession> session, bool withCalls) {
        showCapture(std::move(session));
        if (withCalls) showCallTreeDock();
    });
    connect(m_captures, &CaptureController::captureGrew, this, &MainWindow::captureGrew);
    connect(m_captures, &CaptureController::captureEnded, this, &MainWindow::captureEnded);
    connect(m_captures, &CaptureController::captureSaved, this, &MainWindow::updateRecordingBox);
    connect(m_captures, &CaptureController::captureStatusChanged, this, &MainWindow::setCaptureStatus);
    connect(m_captures, &CaptureController::statusMessage, this, &MainWindow::say);
}

void MainWindow::showCapture(std::shared_ptr<TraceSession> session)
{
    m_pendingAppends.clear();
    setSession(std::move(session));
}

void MainWindow::captureGrew()
{
    // The capture's analyses follow it, whichever recording is shown (one appended meanwhile);
    // the views, when it is the one shown.
    const std::shared_ptr<TraceSession> capture = m_captures->liveSession();
    if (!capture) return;
    if (capture->analyses) capture->analyses->storeGrew();
    bool named = false;
    if (capture->live) named = capture->live->applySeenTaskNames();
    if (capture != activeSession()) return;
    m_model->storeGrew();
    if (named) m_model->taskNamesChanged(); // rows shown before their task had its name
    const auto old = m_view.fullRange(), visible = m_view.visibleRange();
    const auto full = recordings().fullRange();
    const bool whole = visible == old, following = visible.end >= old.end;
    m_view.setFullRange(full);
    // Following the newest events, at the same zoom, unless the user looks elsewhere.
    if (following && !whole && full.end > visible.span())
        m_view.setVisibleRange({full.end - visible.span(), full.end}, false);
    m_timeline->update();
    updateStatus();
    if (!m_lastFilterCounts.isValid() || m_lastFilterCounts.elapsed() > 1000) {
        m_lastFilterCounts.start();
        m_filters->refreshCounts();
    }
    // A filter shows what had arrived when it ran: it runs again, at most once a second.
    if (!m_view.filter().empty() && !m_filterJob.running() &&
        (!m_lastLiveFilter.isValid() || m_lastLiveFilter.elapsed() > 1000)) {
        m_lastLiveFilter.start();
        applyFilters();
    }
}

void MainWindow::captureEnded()
{
    const std::shared_ptr<TraceSession> capture = m_captures->liveSession();
    if (!capture) return;
    captureGrew();
    if (capture->analyses) capture->analyses->captureEnded();
    if (capture != activeSession()) return; // shown as a whole when it is chosen
    const FilterSpec spec = m_view.filter();
    m_filters->setSession(activeSession().get());
    m_filters->setSpec(spec);
    m_health->setSession(activeSession().get());
    showLoadWarnings(activeSession()->store().diagnostics());
    if (!spec.empty()) applyFilters();
}

void MainWindow::showCallTreeDock()
{
    m_callDock->show();
    m_callDock->raise();
}

void MainWindow::setCaptureStatus(const QString& text)
{
    m_captureLabel->setText(text);
    m_captureLabel->setVisible(!text.isEmpty());
}

} // namespace ringside
