// SPDX-License-Identifier: GPL-2.0-or-later
#include "status/windowstatus.h"

#include "jobs/analysisjob.h"
#include "plugins/failurelabel.h"
#include "plugins/pluginstatspane.h"
#include "state/workspace.h"
#include "timeline/timelinemath.h"
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

WindowStatus::WindowStatus(QStatusBar* bar, Workspace& workspace, PluginStatsPane* stats, QDockWidget* statsDock,
                           QDockWidget* healthDock)
    : QObject(bar), m_bar(bar), m_workspace(workspace), m_stats(stats), m_statsDock(statsDock)
{
    m_rangeLabel = new ElidedLabel(bar, Qt::ElideRight); // the status bar never widens the window
    m_markerLabel = new QLabel(bar);
    // A partial or damaged load says so where the eye is, not only in the health pane.
    m_warningsButton = new QToolButton(bar);
    m_warningsButton->setObjectName("loadWarningsButton");
    m_warningsButton->setAutoRaise(true);
    m_warningsButton->setIcon(bar->style()->standardIcon(QStyle::SP_MessageBoxWarning));
    m_warningsButton->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_warningsButton->hide();
    connect(m_warningsButton, &QToolButton::clicked, healthDock, [healthDock] {
        healthDock->show();
        healthDock->raise();
    });
    bar->addWidget(m_rangeLabel, 1);
    m_captureLabel = new QLabel(bar);
    m_captureLabel->setObjectName("captureStatus");
    m_captureLabel->hide();
    bar->addPermanentWidget(m_captureLabel);
    // The analyses say quietly how far they are, and what they found that asks for a look.
    m_analysisLabel = new QLabel(bar);
    m_analysisLabel->setObjectName("analysisStatus");
    m_analysisLabel->hide();
    bar->addPermanentWidget(m_analysisLabel);
    m_headlineLabel = new QLabel(bar);
    m_headlineLabel->setObjectName("headlineStatus");
    m_headlineLabel->setTextFormat(Qt::RichText);
    m_headlineLabel->hide();
    connect(m_headlineLabel, &QLabel::linkActivated, this, [this] {
        m_statsDock->show();
        m_statsDock->raise();
        m_stats->showHeadline();
    });
    bar->addPermanentWidget(m_headlineLabel);
    // An analysis that failed says so, and where the details are; the rest goes on.
    m_failureLabel = new FailureLabel(bar);
    connect(m_failureLabel, &FailureLabel::detailsRequested, this, [this] {
        m_statsDock->show();
        m_statsDock->raise();
    });
    bar->addPermanentWidget(m_failureLabel);
    bar->addPermanentWidget(m_warningsButton);
    bar->addPermanentWidget(m_markerLabel);
    // A message takes the range's place, left of the labels above: the mouse hint, then the
    // headline, make way while it shows, so that it reads whole.
    connect(bar, &QStatusBar::messageChanged, this, &WindowStatus::arrange);
    connect(statsDock, &QDockWidget::visibilityChanged, this, &WindowStatus::updateAnalyses);
    ViewState* view = &workspace.view();
    connect(view, &ViewState::visibleRangeChanged, this, &WindowStatus::updateRange);
    connect(view, &ViewState::markersChanged, this, &WindowStatus::updateRange);
    connect(view, &ViewState::timeOriginChanged, this, &WindowStatus::updateRange);
    connect(view, &ViewState::taskRowsChanged, this, &WindowStatus::dropNotice);
}

void WindowStatus::updateAnalyses()
{
    int running = 0, permille = 0, statistics = 0;
    for (size_t i = 0; i < m_workspace.recordings().size(); ++i)
        if (const AnalysisJob* job = m_workspace.recordings().at(i)->analyses.get(); job && !job->isFinished()) {
            ++running, permille = std::max(permille, job->permille());
            statistics += m_workspace.recordings().at(i)->trace->analysesFinished(); // the tables are done
        }
    const bool live = m_workspace.session() && m_workspace.session()->growing();
    m_analysisLabel->setVisible(running > 0 && !live);
    m_analysisLabel->setText(statistics == running ? tr("Analysing: statistics")
                                                   : tr("Analysing: %1%").arg(permille / 10));
    m_analysisLabel->setToolTip(tr("The plugins and the task index read the recording; their tables and tracks "
                                   "fill in as they are done"));
    // What the analyses found that asks for a look, said where the eye is: not a pane that opens.
    const auto headline = m_workspace.session() ? m_stats->headline() : std::nullopt;
    m_headlineWanted = headline && !m_statsDock->isVisible();
    if (headline)
        m_headlineLabel->setText(tr("<a href=\"show\">%1: %2 — show</a>")
                                     .arg(headline->title, QLocale().toString(qulonglong(headline->rows))));
    const TraceSession* session = m_workspace.session().get();
    m_failureLabel->setFailures(session ? session->trace->failures() : std::vector<Trace::Failure>(),
                                session && session->analyses ? session->analyses->failure() : QString());
    arrange();
}

void WindowStatus::showLoadWarnings(const Diagnostics* diagnostics)
{
    if (!diagnostics) return m_warningsButton->hide();
    int warnings = 0;
    QStringList lines;
    for (const Diagnostic& d : diagnostics->items()) {
        if (d.severity == Diagnostic::Severity::Info) continue;
        ++warnings;
        if (lines.size() < 10) lines << QString::fromStdString(d.message);
    }
    m_warningsButton->setVisible(warnings > 0);
    m_warningsButton->setText(warnings == 1 ? tr("1 load warning") : tr("%1 load warnings").arg(warnings));
    m_warningsButton->setToolTip(lines.join('\n') + tr("\n\nClick for the trace health pane (Ctrl+H)."));
}

void WindowStatus::dropNotice()
{
    if (std::exchange(m_noticeShown, false)) m_bar->clearMessage();
}

void WindowStatus::sayNotice(const QString& text)
{
    say(text, 15000);
    m_noticeShown = true;
}

void WindowStatus::setCaptureStatus(const QString& text)
{
    m_captureLabel->setText(text);
    m_captureLabel->setVisible(!text.isEmpty());
}

void WindowStatus::updateRange()
{
    if (!m_workspace.session()) {
        m_rangeLabel->setFullText(tr("No recording open"));
        m_markerLabel->clear();
        m_markersSet = false;
        arrange();
        return;
    }
    const auto range = m_workspace.view().visibleRange();
    const EventStore& store = m_workspace.session()->store();
    const timeline::ClockUnit unit = m_workspace.session()->trace->file().info().timesInUsecs
                                         ? timeline::ClockUnit::Nanoseconds
                                         : timeline::ClockUnit::Ticks;
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
    if (auto a = m_workspace.view().markerA()) markers << tr("A %1").arg(at(*a, 1));
    if (auto b = m_workspace.view().markerB()) markers << tr("B %1").arg(at(*b, 1));
    if (auto d = m_workspace.view().markerDelta()) markers << tr("B−A = %1").arg(timeline::formatDuration(*d, unit));
    m_markerLabel->setText(markers.isEmpty() ? tr("Shift+click: marker A, Ctrl+click: marker B") : markers.join("   "));
    m_markersSet = !markers.isEmpty();
    arrange();
}

void WindowStatus::arrange()
{
    // A message takes the range's place; beside it what reads whole goes on showing: the
    // markers first, then the headline. The mouse hint makes way for any message.
    const QString message = m_bar->currentMessage();
    const int room = m_bar->width() - messageRoomTaken();
    const int needed = message.isEmpty() ? 0 : m_bar->fontMetrics().horizontalAdvance(message) + 24;
    const int markers = m_markersSet ? m_markerLabel->sizeHint().width() + 12 : 0;
    const bool markersShown = m_markersSet ? message.isEmpty() || needed + markers <= room : message.isEmpty();
    m_markerLabel->setVisible(markersShown);
    const int headline = m_headlineLabel->sizeHint().width() + 12;
    m_headlineLabel->setVisible(m_headlineWanted &&
                                (message.isEmpty() || needed + (markersShown ? markers : 0) + headline <= room));
    m_bar->setToolTip(message.isEmpty() || needed <= room ? QString() : message);
}

int WindowStatus::messageRoomTaken() const
{
    // The capture's and the analyses' progress stay whatever the message.
    int taken = 0;
    for (QWidget* label : {static_cast<QWidget*>(m_captureLabel), static_cast<QWidget*>(m_analysisLabel),
                           static_cast<QWidget*>(m_failureLabel), static_cast<QWidget*>(m_warningsButton)})
        if (label->isVisible()) taken += label->sizeHint().width() + 12;
    return taken;
}

void WindowStatus::say(const QString& text, int milliseconds)
{
    // Longer than the bar: its middle goes (a path's ends say most), whole in the tooltip.
    const int room = m_bar->width() - messageRoomTaken() - 24;
    const QString shown = m_bar->fontMetrics().elidedText(text, Qt::ElideMiddle, std::max(room, 100));
    m_noticeShown = false;
    m_bar->showMessage(shown, milliseconds);
    if (shown != text) m_bar->setToolTip(text);
}

} // namespace ringside
