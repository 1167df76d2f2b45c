// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "file/datwriter.h"
#include "jobs/jobtracker.h"

#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QProgressDialog>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>


class QAction;
class QMenu;
class QProcess;
class QTimer;
class QWidget;

namespace ringside {

class LiveCapture;
class RecordingSet;
struct TraceSession;
struct TraceSession;

// Capture > New Capture / Stop Capture and File > Save Capture As: starts ringside-capture
// with what the CaptureDialog chose, shows the capture in the window as it grows (the table
// gains rows, the timeline follows the newest events unless the user looks elsewhere, the
// status bar counts events and lost events), stops it (or the command it ran ends), and saves
// it as a .dat. Closing or opening another recording with an unsaved capture asks first.
// It knows the window only as the parent of its dialogs: what the window shows follows its
// signals.
class CaptureController : public QObject {
    Q_OBJECT
public:
    // `dialogParent` owns the controller; `recordings` is where the capture shown is looked for.
    CaptureController(QWidget* dialogParent, const RecordingSet& recordings, QMenu* captureMenu, QMenu* fileMenu);
    ~CaptureController() override;

    void startWithDialog();
    // Starts a capture with ringside-capture's arguments (and a command to run); false with
    // the reason said (a message box, or `error`).
    bool start(const std::vector<std::string>& helperArguments, const QString& command, QString* error = nullptr);
    void stop();
    // Writes the ended capture to `path` on a worker, version 7 (zstd) unless asked otherwise
    // (v6 for older tools), with a progress dialog and Cancel; the window goes on meanwhile.
    // `then` and saveFinished() say how it ended.
    void saveAs(const QString& path, DatFormat format = DatFormat(), std::function<void(bool saved)> then = {});
    // Asks where (and in which format), then saveAs(); a failure is said in a message box.
    void saveWithDialog(std::function<void(bool saved)> then = {});
    bool saving() const;
    bool running() const;
    // Whether a capture's analyses yield the CPU to everything else (the default: the capture
    // comes first); tests that wait for them on a loaded machine turn it off.
    void setAnalysisAtIdlePriority(bool idle) { m_analysisIdle = idle; }
    bool analysisAtIdlePriority() const { return m_analysisIdle; }
    // Whether what would close the capture (another recording, the window's end) may go on
    // now: true when it is saved or the user discards it; false when the user cancelled, or
    // chose to save it first: then `proceed` runs once it is saved. False while it is being
    // saved.
    bool confirmDiscard(std::function<void()> proceed = {});
    // The recordings shown changed: Stop and Save follow the capture among them.
    void recordingsChanged();
    // The capture among the recordings (running or ended), shown or not; null when none.
    std::shared_ptr<TraceSession> liveSession() const;

signals:
    void stateChanged();
    // A capture began: show it (and the call trees, for a function tracer's calls).
    void captureStarted(std::shared_ptr<TraceSession> session, bool withCalls);
    // The capture has more rows; it ended (its analyses take the last batch). Whichever
    // recording is shown: another may be, appended during the capture.
    void captureGrew();
    void captureEnded();
    // The capture shown was saved: it is named by its file now (the title, the recordings).
    void captureSaved();
    // A save ended: written, or why not (cancelled, or the write failed).
    void saveFinished(bool saved, const QString& message);
    // The capture's line in the status bar (counts, losses, where it was saved); a passing
    // message.
    void captureStatusChanged(const QString& text);
    void statusMessage(const QString& text, int milliseconds);

private:
    void onGrew();
    void onTick();

    QWidget* m_window;
    const RecordingSet& m_recordings;
    QAction* m_new = nullptr;
    QAction* m_stop = nullptr;
    QAction* m_save = nullptr;
    QTimer* m_timer = nullptr;
    QProcess* m_command = nullptr;
    std::shared_ptr<std::atomic<bool>> m_growPending;
    bool m_ended = true;
    uint64_t m_lastEvents = 0;
    QString m_endSummary;         // the ended capture: its events and losses
    bool m_analysisIdle = true;
    bool m_saveCancelled = false; // the last save ended by the user
    QString m_lastSaveError;      // why the last save did not write, if it did not
    QPointer<QProgressDialog> m_saveProgress; // while a save runs
    JobTracker m_saving;          // Save Capture As; last: its destructor waits for the write
};

} // namespace ringside
