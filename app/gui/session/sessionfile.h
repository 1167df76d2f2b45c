// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "state/tracesession.h"
#include "state/viewstate.h"
#include "util/result.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

namespace ringside {

// A recording as a session names it: where it was (absolute, and relative to the session
// file, so a folder moved with its session is found again) and what it held (size and a
// content fingerprint: a re-recorded file under the same name is told apart, whatever its
// modification time).
struct SessionRecording {
    QString path;
    QString relative;
    qint64 size = 0;
    QString fingerprint;
};

// Where a named recording is now, and whether it is the one the session saw.
struct LocatedRecording {
    enum class Status { Same, Moved, Changed, Missing };
    Status status = Status::Missing;
    QString path;
    QString note; // for the user, when not Same
};

// A session file: readable JSON holding the recordings, the view in names (buffers, CPUs and
// events by name, times as the table shows them, tasks by pid), the plugins switched on and
// off, and the window's layout. Names rather than ids, so that what a later version of the
// recording (or of Ringside) cannot place is reported one by one and the rest restored.
//
// Several recordings: `view` is the first one's, `recordingViews[i]` recording i's (empty for
// one the user never looked at), and `active` the one the panes showed.
struct SessionDocument {
    static constexpr int kVersion = 1;
    QList<SessionRecording> recordings;
    QJsonObject view;
    QList<QJsonObject> recordingViews; // parallel to recordings; [0] is `view`
    int active = 0;
    QStringList enabledPlugins, disabledPlugins;
    QJsonObject layout;

    QJsonObject toJson() const;
    // Errors name the file and the problem.
    static Result<SessionDocument> read(const QString& path);
    bool write(const QString& path, QString* error) const;
};

// SHA-256 over the size, the first and last MiB and 16 blocks between: reads at most a few
// MiB whatever the recording's size. Empty with `error` set when the file cannot be read.
QString recordingFingerprint(const QString& path, QString* error = nullptr);
SessionRecording describeRecording(const QString& recordingPath, const QString& sessionPath);
// Looks where it was, then relative to the session file, then beside the session file.
LocatedRecording locateRecording(const SessionRecording& recording, const QString& sessionPath);

// The view in names, and back. Restoring says in `problems` what it could not place (a CPU,
// an event or an expression the recording does not have, a selection that is not there) and
// restores the rest; `sameRecording` allows what only the same file can mean (a selected call
// by its number).
QJsonObject viewToJson(const ViewSnapshot& view, const TraceSession& session);
ViewSnapshot viewFromJson(const QJsonObject& json, const TraceSession& session, bool sameRecording,
                          QStringList* problems);

} // namespace ringside
