// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "session/sessionfile.h"
#include "state/viewstate.h"

#include <QObject>

#include <functional>
#include <optional>
#include <vector>

class QHeaderView;
class QMainWindow;

namespace ringside {

class Workspace;

// File > Save Session / Open Session (and `ringside --session FILE`): saves the open
// recordings with each one's view, the plugins and the layout (SessionDocument), and puts them
// back: the plugins before the recordings load, the views and layout once all have. What could not be restored is
// listed in restored(); a session that cannot be used at all (unreadable, its recording
// nowhere) fails() with the file and the reason, and the recording open stays. It reads the
// recordings and their views from the Workspace and asks for what it needs done by signals
// (openRequested, viewsRestoreRequested); the window's layout it saves and restores itself.
class SessionController : public QObject {
    Q_OBJECT
public:
    // `window` and `tableHeader`: whose layout a session keeps (and the dialogs' parent).
    SessionController(Workspace& workspace, QMainWindow* window, QHeaderView* tableHeader);

    bool save(const QString& path, QString* error);
    void open(const QString& path);
    void saveWithDialog();
    void openWithDialog();
    // Says what could not be restored and why a session failed in the log, not in message
    // boxes (a window that takes a screenshot and quits).
    void setHeadless(bool headless) { m_headless = headless; }

    // A query a session runs again when it opens (a timeline track made from its SQL).
    struct SessionQuery {
        QString name, sql;
    };
    // Asked before a session's queries run, with them all: true runs them, false opens the
    // session without (their SQL kept in the Query pane's history). By default a box lists
    // them; a headless window runs them and logs each.
    using QueryConfirmation = std::function<bool(const std::vector<SessionQuery>& queries)>;
    void setQueryConfirmation(QueryConfirmation confirm) { m_confirmQueries = std::move(confirm); }

signals:
    // The view is back; `problems` says what of it could not be.
    void restored(const QString& path, const QStringList& problems);
    void failed(const QString& message);
    // The session's recordings to open, the first alone and the others appended.
    void openRequested(const QStringList& paths);
    // Once they are open: each one's view back (SessionController reads them from the
    // document), recording `active` shown.
    void viewsRestoreRequested(const std::vector<std::optional<ringside::ViewSnapshot>>& views, size_t active);

private:
    void apply();
    // The notes of a restore, a failure: in a box over the window, or the log.
    void showRestored(const QString& path, const QStringList& problems);
    void showFailure(const QString& message);
    QJsonObject layout() const;
    void restoreLayout(const QJsonObject& layout, QStringList* problems);

    struct Pending {
        QString path;
        SessionDocument document;
        QList<LocatedRecording> recordings; // those found, in the window's order
        QList<int> documentIndex;           // of each in the document's recordings
        QStringList problems;
    };
    bool allLoaded() const;
    Workspace& m_workspace;
    QMainWindow* m_window;
    QHeaderView* m_tableHeader;
    std::optional<Pending> m_pending;
    bool m_headless = false;
    QueryConfirmation m_confirmQueries;
    bool confirmQueries(const std::vector<SessionQuery>& queries) const;
};

} // namespace ringside
