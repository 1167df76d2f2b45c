// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "decode/mergedreport.h"
#include "state/tracesession.h"
#include "timeline/timelinemath.h"

#include <QString>
#include <QStringList>

#include <memory>
#include <optional>
#include <vector>

namespace ringside {

// The recordings one window shows on its timeline: the one opened first and those appended
// (File > Append Recording, several files given or dropped), with how their clocks relate
// (pairRecordings: a guest recorded with its host is already on the host's clock). Tasks stay
// apart because each recording keeps its own trace: the same pid in two machines is two tasks.
class RecordingSet {
public:
    // A paired guest whose vCPUs the host names (its GUEST option): the host–guest view puts
    // each guest CPU under the host task that ran that vCPU.
    struct GuestView {
        size_t host = 0, guest = 0;
        QString guestName;                         // as the host recorded it, or the file's name
        std::vector<std::pair<int, int>> vcpuPids; // (vcpu, host pid), by vcpu
    };

    void clear();
    // Appends a recording and pairs the set again.
    void add(std::shared_ptr<TraceSession> session);

    size_t size() const { return m_sessions.size(); }
    bool empty() const { return m_sessions.empty(); }
    const std::shared_ptr<TraceSession>& at(size_t index) const { return m_sessions[index]; }
    // The file's name, as the rows and the recording box show it (with its folder when
    // another recording has the same name).
    QString name(size_t index) const;
    // Those names for `paths`.
    static QStringList displayNames(const QStringList& paths);
    // Where `path` is among the recordings, by its absolute path.
    std::optional<size_t> indexOf(const QString& path) const;

    // What the pairing did and could not do, one sentence each (empty for one recording).
    const QStringList& notes() const { return m_notes; }
    const std::vector<GuestView>& guestViews() const { return m_guestViews; }
    // The host–guest view of `guest`, when it is a paired guest with named vCPUs.
    const GuestView* guestView(size_t guest) const;

    // From the first event of any recording to the last of any.
    timeline::TimeRange fullRange() const;

private:
    void pair();

    std::vector<std::shared_ptr<TraceSession>> m_sessions;
    QStringList m_notes;
    std::vector<GuestView> m_guestViews;
};

} // namespace ringside
