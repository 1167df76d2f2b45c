// SPDX-License-Identifier: GPL-2.0-or-later
#include "analysis/processgroups.h"

#include "util/bytereader.h"

#include <traceevent/event-parse.h>

#include <algorithm>

namespace ringside {

namespace {
constexpr uint64_t kCloneThread = 0x00010000;
}

std::optional<RecordTap> ProcessGroups::tap(tep_handle* tep)
{
    tep_event* event = tep_find_event_by_name(tep, "task", "task_newtask");
    if (!event) return std::nullopt;
    tep_format_field* pid = tep_find_field(event, "pid");
    tep_format_field* flags = tep_find_field(event, "clone_flags");
    if (!pid || !flags || pid->size > 8 || flags->size > 8) return std::nullopt;
    RecordTap tap;
    tap.eventType = static_cast<uint16_t>(event->id);
    tap.fields = {{pid->offset, pid->size}, {flags->offset, flags->size}};
    return tap;
}

ProcessGroups ProcessGroups::fromTap(const EventStore& store, const RecordTap& tap, const std::vector<TapColumn>& columns)
{
    ProcessGroups out;
    // Every file carries the format; only a recording that enabled the event can say.
    out.m_available = store.eventTypeCounts().size() > tap.eventType && store.eventTypeCounts()[tap.eventType] > 0;
    const bool bigEndian = store.layout().bigEndian;
    const size_t stride = tap.bytesPerHit();
    const int pidSize = tap.fields[0].second, flagsSize = tap.fields[1].second;
    // Creations in time order, so that a thread's creator is placed before the thread.
    struct Creation {
        uint64_t ts;
        int32_t creator, task;
        bool thread;
    };
    std::vector<Creation> creations;
    for (size_t s = 0; s < columns.size() && s < store.streamCount(); ++s) {
        const CpuColumns& c = store.stream(StreamId(static_cast<uint16_t>(s))).columns;
        for (size_t hit = 0; hit < columns[s].events.size(); ++hit) {
            const uint8_t* bytes = columns[s].bytes.data() + hit * stride;
            const uint32_t index = columns[s].events[hit];
            creations.push_back({c.timestamp[index], c.pid[index],
                                 static_cast<int32_t>(ByteReader::decode(bytes, pidSize, bigEndian)),
                                 (ByteReader::decode(bytes + pidSize, flagsSize, bigEndian) & kCloneThread) != 0});
        }
    }
    std::sort(creations.begin(), creations.end(), [](const Creation& a, const Creation& b) { return a.ts < b.ts; });
    for (const Creation& c : creations)
        if (c.thread && c.task != c.creator) out.m_parent[c.task] = c.creator;
    for (const auto& [thread, creator] : out.m_parent) {
        (void)creator;
        out.m_members[out.leader(thread)].push_back(thread);
    }
    for (auto& [leader, members] : out.m_members) {
        members.push_back(leader);
        std::sort(members.begin(), members.end());
        members.erase(std::unique(members.begin(), members.end()), members.end());
    }
    return out;
}

int32_t ProcessGroups::leader(int32_t pid) const
{
    // Follow creators up; a cycle (pid reuse) stops at the first repeat.
    int32_t current = pid;
    for (size_t steps = 0; steps <= m_parent.size(); ++steps) {
        auto it = m_parent.find(current);
        if (it == m_parent.end()) return current;
        current = it->second;
    }
    return current;
}

std::vector<int32_t> ProcessGroups::members(int32_t pid) const
{
    auto it = m_members.find(leader(pid));
    return it == m_members.end() ? std::vector<int32_t>{pid} : it->second;
}

} // namespace ringside
