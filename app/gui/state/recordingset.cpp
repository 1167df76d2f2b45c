// SPDX-License-Identifier: GPL-2.0-or-later
#include "state/recordingset.h"

#include <QDir>
#include <QFileInfo>

#include <algorithm>

namespace ringside {

void RecordingSet::clear()
{
    m_sessions.clear();
    m_notes.clear();
    m_guestViews.clear();
}

void RecordingSet::add(std::shared_ptr<TraceSession> session)
{
    m_sessions.push_back(std::move(session));
    pair();
}

QString RecordingSet::name(size_t index) const
{
    QStringList paths;
    for (const auto& session : m_sessions) paths << session->path;
    return displayNames(paths).value(int(index));
}

QStringList RecordingSet::displayNames(const QStringList& paths)
{
    QStringList plain, names;
    for (const QString& path : paths) plain << QFileInfo(path).fileName();
    names = plain;
    for (qsizetype i = 0; i < names.size(); ++i) {
        if (plain.count(plain[i]) < 2) continue;
        // The same name twice: the folder tells them apart.
        const QFileInfo file(paths[i]);
        names[i] = file.dir().dirName() + "/" + file.fileName();
    }
    return names;
}

std::optional<size_t> RecordingSet::indexOf(const QString& path) const
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    for (size_t i = 0; i < m_sessions.size(); ++i)
        if (QFileInfo(m_sessions[i]->path).absoluteFilePath() == absolute) return i;
    return std::nullopt;
}

const RecordingSet::GuestView* RecordingSet::guestView(size_t guest) const
{
    for (const GuestView& view : m_guestViews)
        if (view.guest == guest) return &view;
    return nullptr;
}

timeline::TimeRange RecordingSet::fullRange() const
{
    timeline::TimeRange full;
    bool any = false;
    for (const auto& session : m_sessions) {
        const EventStore& store = session->store();
        if (store.eventCount() == 0) continue;
        const uint64_t first = store.firstTimestamp(), last = store.lastTimestamp() + 1;
        full = any ? timeline::TimeRange{std::min(full.start, first), std::max(full.end, last)}
                   : timeline::TimeRange{first, last};
        any = true;
    }
    return full;
}

void RecordingSet::pair()
{
    m_notes.clear();
    m_guestViews.clear();
    if (m_sessions.size() < 2) return;
    std::vector<const Trace*> traces;
    std::vector<std::string> names;
    for (size_t i = 0; i < m_sessions.size(); ++i) {
        traces.push_back(m_sessions[i]->trace.get());
        names.push_back(name(i).toStdString());
    }
    const RecordingPairing pairing = pairRecordings(traces, names);
    for (const std::string& note : pairing.notes) m_notes << QString::fromStdString(note);
    for (const RecordingPairing::Guest& pair : pairing.guests) {
        const FileInfo& guest = traces[pair.guest]->file().info();
        for (const GuestInfo& info : traces[pair.host]->file().info().guests) {
            if (!guest.traceId || info.traceId != *guest.traceId || info.vcpuPids.empty()) continue;
            GuestView view{pair.host, pair.guest,
                           info.name.empty() ? name(pair.guest) : QString::fromStdString(info.name), info.vcpuPids};
            std::sort(view.vcpuPids.begin(), view.vcpuPids.end());
            m_guestViews.push_back(std::move(view));
        }
    }
}

} // namespace ringside
