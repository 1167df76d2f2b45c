// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <QObject>
#include <QString>

class QDockWidget;
class QLabel;
class QStatusBar;
class QToolButton;

namespace ringside {

class Diagnostics;
class ElidedLabel;
class FailureLabel;
class PluginStatsPane;
class Workspace;

// The window's status bar: the range shown and the markers, the capture's and the analyses'
// progress, what the analyses found ("Failed system calls: N — show"), an analysis that
// failed, load warnings, and the messages said there, each made to read whole. It follows the
// workspace's view itself; the window tells it of loads, captures and analyses.
class WindowStatus : public QObject {
    Q_OBJECT
public:
    // `statsDock` holds `stats` (a headline's "show" opens it), `healthDock` the trace health
    // pane (the load warnings' button opens it).
    WindowStatus(QStatusBar* bar, Workspace& workspace, PluginStatsPane* stats, QDockWidget* statsDock,
                 QDockWidget* healthDock);

    // A message for `milliseconds`, shortened in its middle when longer than the bar (whole in
    // its tooltip).
    void say(const QString& text, int milliseconds);
    // A message that goes when the selection or the task rows change (what a click picked).
    void sayNotice(const QString& text);
    void dropNotice();
    void setCaptureStatus(const QString& text);
    // The analyses' progress and findings, and the failures, of the recordings open.
    void updateAnalyses();
    // The active recording's size and the range shown, the markers.
    void updateRange();
    // The active recording's warnings (Info items apart); none hides the button.
    void showLoadWarnings(const Diagnostics* diagnostics);

private:
    // What the status bar shows beside its message: the markers and the headline while they
    // fit, the mouse hint while there is none.
    void arrange();
    int messageRoomTaken() const;

    QStatusBar* m_bar;
    Workspace& m_workspace;
    PluginStatsPane* m_stats;
    QDockWidget* m_statsDock;
    ElidedLabel* m_rangeLabel = nullptr;
    QLabel* m_markerLabel = nullptr;
    QLabel* m_captureLabel = nullptr;
    QLabel* m_analysisLabel = nullptr; // the analyses running, quietly
    QLabel* m_headlineLabel = nullptr; // "12 failed system calls — show"
    FailureLabel* m_failureLabel = nullptr; // "syscalls stopped — details"
    QToolButton* m_warningsButton = nullptr;
    bool m_headlineWanted = false; // ... when a message leaves room
    bool m_markersSet = false;     // the marker label shows markers, not the mouse hint
    bool m_noticeShown = false;    // the message is a notice
};

} // namespace ringside
