// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "jobs/loadjob.h"
#include "state/recordingset.h"
#include "state/viewstate.h"

#include <QObject>

#include <memory>
#include <optional>
#include <vector>

namespace ringside {

// What the window shows, with one owner: the recordings open, the active one (whose view the
// table, details, filters and task rows show: view()), the view each other one was left in,
// and the load under way. Panes and controllers observe its signals, as they observe
// ViewState; the window changes it (opening, appending, switching) and is its first observer,
// so that its panes point at the active recording before anyone else hears of it.
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
    // The load ended without a recording, the window done with it (its progress closed).
    void reportLoadFailure(const QString& message) { emit loadFailed(message); }

signals:
    // Before recordings go (replace): views drawing them let go now.
    void recordingsAboutToGo();
    // Recording `index` is active: a new one (`opened`) or another one of those open.
    void activeChanged(size_t index, bool opened);
    // One was appended.
    void recordingsChanged();
    // A load ended without a recording: why, for those who asked for one.
    void loadFailed(const QString& message);

private:
    ViewState m_view;
    LoadJob m_load;
    RecordingSet m_recordings;
    size_t m_active = 0;
    std::shared_ptr<TraceSession> m_session;
    std::vector<std::optional<ViewSnapshot>> m_stashed;
};

} // namespace ringside
