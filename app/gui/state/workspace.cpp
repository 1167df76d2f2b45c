// SPDX-License-Identifier: GPL-2.0-or-later
#include "state/workspace.h"

#include <utility>

namespace ringside {

Workspace::Workspace(QObject* parent) : QObject(parent) {}

void Workspace::replace(std::shared_ptr<TraceSession> session)
{
    emit recordingsAboutToGo();
    // The active one lives until its observers have let go of it (activeChanged).
    const std::shared_ptr<TraceSession> leaving = std::exchange(m_session, nullptr);
    m_recordings.clear();
    m_recordings.add(session);
    m_stashed.assign(1, std::nullopt);
    m_active = 0;
    m_session = std::move(session);
    emit activeChanged(0, true);
}

void Workspace::append(std::shared_ptr<TraceSession> session)
{
    m_recordings.add(std::move(session));
    m_stashed.push_back(std::nullopt);
    emit recordingsChanged();
}

bool Workspace::setActive(size_t index)
{
    if (index >= m_recordings.size() || index == m_active) return false;
    m_stashed[m_active] = m_view.snapshot();
    m_active = index;
    m_session = m_recordings.at(index);
    emit activeChanged(index, false);
    return true;
}

std::vector<std::optional<ViewSnapshot>> Workspace::views() const
{
    std::vector<std::optional<ViewSnapshot>> views = m_stashed;
    views.resize(m_recordings.size());
    if (m_session) views[m_active] = m_view.snapshot();
    return views;
}

void Workspace::setStashed(std::vector<std::optional<ViewSnapshot>> views)
{
    views.resize(m_recordings.size());
    m_stashed = std::move(views);
}

} // namespace ringside
