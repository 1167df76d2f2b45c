// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "jobs/loadjob.h"
#include "state/recordingset.h"
#include "state/viewstate.h"

#include <QObject>
#include <QStringList>

#include <memory>
#include <optional>
#include <vector>

namespace ringside {

// What the window shows, with one owner: the recordings open, the active one (whose view the
// table, details, filters and task rows show: view()), the view each other one was left in,
// the loads (one at a time, the files to append after it queued) and each recording's
// analyses. Panes and controllers observe its signals, as they observe ViewState; the window
// asks it to open, append and switch, and is its first observer, so that its panes point at
// the active recording before anyone else hears of it.
class Workspace : public QObject {
    Q_OBJECT
public:
    explicit Workspace(QObject* parent = nullptr);

    const RecordingSet& recordings() const { return m_recordings; }
    size_t active() const { return m_active; }
    // The active recording; null while none is open.
    const std::shared_ptr<TraceSession>& session() const { return m_session; }
    ViewState& view() { return m_view; }
    const ViewState& view() const { return m_view; }
    LoadJob& load() { return m_load; }

    // `session` replaces every recording open and is active, its view fresh.
    void replace(std::shared_ptr<TraceSession> session);
    // `session` joins those open, its view not made yet.
    void append(std::shared_ptr<TraceSession> session);
    // Makes recording `index` active; the view of the one left is kept. False if it was.
    bool setActive(size_t index);

    // Each recording's view: the active one's as shown, the others' as last left (none for
    // one never shown).
    std::vector<std::optional<ViewSnapshot>> views() const;
    // The view recording `index` was left in (none for the active one: view() is its view).
    std::optional<ViewSnapshot>& stashed(size_t index) { return m_stashed[index]; }
    // Views put back (a session file's), one per recording; the active one's is not used.
    void setStashed(std::vector<std::optional<ViewSnapshot>> views);
    // A group of rows (a buffer's) of a recording not active folded or unfolded: its view keeps
    // it so (a view is made for one never shown).
    void foldInactiveGroup(size_t recording, uint16_t buffer, bool collapsed);
    // Selects `event` of the active recording; with `span`, marks it and shows it (in the
    // middle half of the view).
    void goToEvent(EventRef event, std::optional<std::pair<quint64, quint64>> span);

    // ---- Loads and analyses
    // Loads `path` to replace every recording open; the appends queued are dropped.
    void open(const QString& path, bool isSample = false);
    // The first of `paths` replaces what is open, the others are appended after it in turn.
    void openAll(const QStringList& paths);
    // Loads `path` to join those open (opens it when none is); one open already is made
    // active instead (alreadyOpen).
    void appendPath(const QString& path);
    // Every recording open loaded again (with the plugins now chosen), the first alone.
    void reloadAll();
    // Appended, in turn, once the loads before them are done.
    void queueAppends(const QStringList& paths);
    // A live capture, shown as a recording opened alone; its analyses follow it (captureGrew,
    // captureEnded), at idle priority when asked.
    void showCapture(std::shared_ptr<TraceSession> session, bool idleAnalyses);
    // The capture's analyses take what arrived, whichever recording is active; true when the
    // tasks seen got their names.
    bool captureGrew(TraceSession& capture);
    void captureEnded(TraceSession& capture);

signals:
    // Before recordings go (replace): views drawing them let go now.
    void recordingsAboutToGo();
    // Recording `index` is active: a new one (`opened`) or another one of those open.
    void activeChanged(size_t index, bool opened);
    // One was appended.
    void recordingsChanged();
    // A load began (its progress is load().progress), and ended in any way: before its
    // recording shows, or why not (loadFailed). An open shows its recording as its pages are
    // read (activeChanged at once, TraceSession::loading): it ends once the store is complete.
    void loadStarted(const QString& path);
    void loadEnded();
    // A recording shown while it loaded has every event it will have (all of them; those read
    // before it was stopped or failed): views take in its last rows and its diagnostics.
    void storeComplete(const ringside::TraceSession* session);
    // A load ended without a recording: why, for those who asked for one.
    void loadFailed(const QString& message);
    // A recording was loaded from `path` (the recent files).
    void loaded(const QString& path);
    // An append of a recording open already (it is made active), or one refused (why).
    void alreadyOpen(size_t index);
    void appendRefused(const QString& message);
    // Nothing left to load.
    void loadsDone();
    // A recording's analyses: tables grew; how far they are; its tasks are named; the
    // plugins' statistics are made; every table is complete.
    void analysesUpdated(const ringside::TraceSession* session);
    void analysesProgress();
    void tasksKnown(const ringside::TraceSession* session);
    void statisticsUpdated(const ringside::TraceSession* session);
    void tablesFinished(const ringside::TraceSession* session);

private:
    void startLoad(const QString& path, bool isSample, bool appending);
    void continueLoading();
    // The shown load ended (finished or failed): the store is complete; false when it no
    // longer shows (replaced meanwhile) or an open waits.
    bool endShownLoad(const std::shared_ptr<TraceSession>& session);
    // Runs a recording's analyses (a capture's as it grows); their signals become the
    // workspace's.
    void startAnalyses(TraceSession& session, bool idlePriority);

    ViewState m_view;
    LoadJob m_load;
    RecordingSet m_recordings;
    size_t m_active = 0;
    std::shared_ptr<TraceSession> m_session;
    std::vector<std::optional<ViewSnapshot>> m_stashed;
    QStringList m_pendingAppends;
    bool m_appending = false; // the load running is an append
    std::shared_ptr<TraceSession> m_shownLoad; // the recording shown while it loads
    // An open asked for while a shown load ran: it loads once that one has stopped.
    std::optional<std::pair<QString, bool>> m_queuedOpen;
};

} // namespace ringside
