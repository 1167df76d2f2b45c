// SPDX-License-Identifier: GPL-2.0-or-later
// The window's status bar: the range shown and the markers, the capture's and the analyses'
// progress, what the analyses found ("Failed system calls: N — show"), load warnings, and the
// messages said there, each made to read whole.
#include "mainwindow.h"

#include "details/healthpane.h"
#include "jobs/analysisjob.h"
#include "plugins/failurelabel.h"
#include "plugins/pluginstatspane.h"
#include "timeline/timelinewidget.h"
#include "widgets/elidedlabel.h"

#include <QDockWidget>
#include <QLabel>
#include <QLocale>
#include <QStatusBar>
#include <QStyle>
#include <QToolButton>

#include <algorithm>
#include <utility>

namespace ringside {

void MainWindow::createStatusBar(QDockWidget* healthDock)
{
    m_rangeLabel = new ElidedLabel(this, Qt::ElideRight); // the status bar never widens the window
    m_markerLabel = new QLabel(this);
    // A partial or damaged load says so where the eye is, not only in the health pane.
    m_warningsButton = new QToolButton(this);
    m_warningsButton->setObjectName("loadWarningsButton");
    m_warningsButton->setAutoRaise(true);
    m_warningsButton->setIcon(style()->standardIcon(QStyle::SP_MessageBoxWarning));
    m_warningsButton->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_warningsButton->hide();
    connect(m_warningsButton, &QToolButton::clicked, healthDock, [healthDock] {
        healthDock->show();
        healthDock->raise();
    });
    statusBar()->addWidget(m_rangeLabel, 1);
    m_captureLabel = new QLabel(this);
    m_captureLabel->setObjectName("captureStatus");
    m_captureLabel->hide();
    statusBar()->addPermanentWidget(m_captureLabel);
    // The analyses say quietly how far they are, and what they found that asks for a look.
    m_analysisLabel = new QLabel(this);
    m_analysisLabel->setObjectName("analysisStatus");
    m_analysisLabel->hide();
    statusBar()->addPermanentWidget(m_analysisLabel);
    m_headlineLabel = new QLabel(this);
    m_headlineLabel->setObjectName("headlineStatus");
    m_headlineLabel->setTextFormat(Qt::RichText);
    m_headlineLabel->hide();
    connect(m_headlineLabel, &QLabel::linkActivated, this, [this] {
        m_pluginDock->show();
        m_pluginDock->raise();
        m_pluginStats->showHeadline();
    });
    statusBar()->addPermanentWidget(m_headlineLabel);
    // An analysis that failed says so, and where the details are; the rest goes on.
    m_failureLabel = new FailureLabel(this);
    connect(m_failureLabel, &FailureLabel::detailsRequested, this, [this] {
        m_pluginDock->show();
        m_pluginDock->raise();
    });
    statusBar()->addPermanentWidget(m_failureLabel);
    statusBar()->addPermanentWidget(m_warningsButton);
    statusBar()->addPermanentWidget(m_markerLabel);
    // A message takes the range's place, left of the labels above: the mouse hint, then the
    // headline, make way while it shows, so that it reads whole.
    connect(statusBar(), &QStatusBar::messageChanged, this, &MainWindow::arrangeStatusBar);
}

void MainWindow::updateAnalysisStatus()
{
    int running = 0, permille = 0, statistics = 0;
    for (size_t i = 0; i < recordings().size(); ++i)
        if (const AnalysisJob* job = recordings().at(i)->analyses.get(); job && !job->isFinished()) {
            ++running, permille = std::max(permille, job->permille());
            statistics += recordings().at(i)->trace->analysesFinished(); // the tables are done
        }
    const bool live = activeSession() && activeSession()->live && !activeSession()->live->progress().ended;
    m_analysisLabel->setVisible(running > 0 && !live);
    m_analysisLabel->setText(statistics == running ? tr("Analysing: statistics")
                                                   : tr("Analysing: %1%").arg(permille / 10));
    m_analysisLabel->setToolTip(tr("The plugins and the task index read the recording; their tables and tracks "
                                   "fill in as they are done"));
    // What the analyses found that asks for a look, said where the eye is: not a pane that opens.
    const auto headline = activeSession() ? m_pluginStats->headline() : std::nullopt;
    m_headlineWanted = headline && !m_pluginDock->isVisible();
    if (headline)
        m_headlineLabel->setText(tr("<a href=\"show\">%1: %2 — show</a>")
                                     .arg(headline->title, QLocale().toString(qulonglong(headline->rows))));
    const TraceSession* session = activeSession().get();
    m_failureLabel->setFailures(session ? session->trace->failures() : std::vector<Trace::Failure>(),
                                session && session->analyses ? session->analyses->failure() : QString());
    arrangeStatusBar();
}

void MainWindow::showLoadWarnings(const Diagnostics& diagnostics)
{
    int warnings = 0;
    QStringList lines;
    for (const Diagnostic& d : diagnostics.items()) {
        if (d.severity == Diagnostic::Severity::Info) continue;
        ++warnings;
        if (lines.size() < 10) lines << QString::fromStdString(d.message);
    }
    m_warningsButton->setVisible(warnings > 0);
    m_warningsButton->setText(warnings == 1 ? tr("1 load warning") : tr("%1 load warnings").arg(warnings));
    m_warningsButton->setToolTip(lines.join('\n') + tr("\n\nClick for the trace health pane (Ctrl+H)."));
}

void MainWindow::dropNotice()
{
    if (std::exchange(m_noticeShown, false)) statusBar()->clearMessage();
}

void MainWindow::updateStatus()
{
    if (!activeSession()) {
        m_rangeLabel->setFullText(tr("No recording open"));
        m_markerLabel->clear();
        m_markersSet = false;
        arrangeStatusBar();
        return;
    }
    const auto range = m_view.visibleRange();
    const EventStore& store = activeSession()->store();
    const timeline::ClockUnit unit = clockUnit();
    const bool ticks = unit == timeline::ClockUnit::Ticks;
    auto at = [&](uint64_t t, uint64_t step) {
        return ticks ? tr("tick %1").arg(timeline::formatTimestamp(t, step, unit))
                     : tr("%1 s").arg(timeline::formatTimestamp(t, step));
    };
    // With several recordings, the counts are the active one's: the box left of it names it.
    m_rangeLabel->setFullText(tr("%1 events, %2 · showing %3 from %4%5")
                                  .arg(QLocale().toString(qulonglong(store.eventCount())))
                                  .arg(store.streamCount() == 1 ? tr("1 CPU") : tr("%1 CPUs").arg(store.streamCount()))
                                  .arg(timeline::formatDuration(int64_t(range.span()), unit))
                                  .arg(at(range.start, 1000))
                                  .arg(ticks ? tr(" (counter clock without a conversion to time)") : QString()));
    QStringList markers;
    if (auto a = m_view.markerA()) markers << tr("A %1").arg(at(*a, 1));
    if (auto b = m_view.markerB()) markers << tr("B %1").arg(at(*b, 1));
    if (auto d = m_view.markerDelta()) markers << tr("B−A = %1").arg(timeline::formatDuration(*d, unit));
    m_markerLabel->setText(markers.isEmpty() ? tr("Shift+click: marker A, Ctrl+click: marker B") : markers.join("   "));
    m_markersSet = !markers.isEmpty();
    arrangeStatusBar();
}

void MainWindow::arrangeStatusBar()
{
    // A message takes the range's place; beside it what reads whole goes on showing: the
    // markers first, then the headline. The mouse hint makes way for any message.
    const QString message = statusBar()->currentMessage();
    const int room = statusBar()->width() - messageRoomTaken();
    const int needed = message.isEmpty() ? 0 : statusBar()->fontMetrics().horizontalAdvance(message) + 24;
    const int markers = m_markersSet ? m_markerLabel->sizeHint().width() + 12 : 0;
    const bool markersShown = m_markersSet ? message.isEmpty() || needed + markers <= room : message.isEmpty();
    m_markerLabel->setVisible(markersShown);
    const int headline = m_headlineLabel->sizeHint().width() + 12;
    m_headlineLabel->setVisible(m_headlineWanted &&
                                (message.isEmpty() || needed + (markersShown ? markers : 0) + headline <= room));
    statusBar()->setToolTip(message.isEmpty() || needed <= room ? QString() : message);
}

int MainWindow::messageRoomTaken() const
{
    // The capture's and the analyses' progress stay whatever the message.
    int taken = 0;
    for (QWidget* label : {static_cast<QWidget*>(m_captureLabel), static_cast<QWidget*>(m_analysisLabel),
                           static_cast<QWidget*>(m_failureLabel), static_cast<QWidget*>(m_warningsButton)})
        if (label->isVisible()) taken += label->sizeHint().width() + 12;
    return taken;
}

void MainWindow::say(const QString& text, int milliseconds)
{
    // Longer than the bar: its middle goes (a path's ends say most), whole in the tooltip.
    const int room = statusBar()->width() - messageRoomTaken() - 24;
    const QString shown = statusBar()->fontMetrics().elidedText(text, Qt::ElideMiddle, std::max(room, 100));
    m_noticeShown = false;
    statusBar()->showMessage(shown, milliseconds);
    if (shown != text) statusBar()->setToolTip(text);
}

} // namespace ringside
