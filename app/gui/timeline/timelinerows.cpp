// SPDX-License-Identifier: GPL-2.0-or-later
#include "timeline/timelinerows.h"

#include <QFileInfo>

#include <algorithm>
#include <optional>
#include <unordered_map>

namespace ringside {

void TimelineRows::setSession(const TraceSession* session)
{
    setRecordings(session ? std::vector<const TraceSession*>{session} : std::vector<const TraceSession*>{}, 0, {});
}

void TimelineRows::setRecordings(std::vector<const TraceSession*> sessions, size_t active,
                                 std::vector<RecordingSet::GuestView> guests)
{
    // Another recording made active, or one appended: the other recordings' groups stay as
    // folded as they were.
    const bool sameRecordings =
        m_sessions.size() <= sessions.size() && std::equal(m_sessions.begin(), m_sessions.end(), sessions.begin());
    if (!sameRecordings) m_collapsed.clear();
    m_sessions = std::move(sessions);
    QStringList paths;
    for (const TraceSession* s : m_sessions) paths << s->path;
    m_names = RecordingSet::displayNames(paths);
    m_active = active < m_sessions.size() ? active : 0;
    m_session = m_sessions.empty() ? nullptr : m_sessions[m_active];
    m_guests = std::move(guests);
    m_tasks.clear();
    m_hiddenStreams.clear();
    m_callPids.clear();
    m_callStreams.clear();
    m_laneCounts.clear();
    rebuild();
}

void TimelineRows::setViewportHeight(int height)
{
    if (height == m_viewportHeight) return;
    m_viewportHeight = height;
    rebuild();
}

void TimelineRows::setHiddenStreams(std::vector<bool> hidden)
{
    m_hiddenStreams = std::move(hidden);
    rebuild();
}

namespace {

// The buffer a guest's vCPUs are CPUs of: its top buffer (the unnamed one).
std::optional<uint16_t> topBuffer(const EventStore& store)
{
    const auto& buffers = store.buffers();
    for (uint16_t b = 0; b < buffers.size(); ++b)
        if (buffers[b].name.empty()) return b;
    return std::nullopt;
}

} // namespace

void TimelineRows::addBufferRows(size_t recording, uint16_t b)
{
    const EventStore& store = m_sessions[recording]->store();
    const BufferSummary& buffer = store.buffers()[b];
    const bool active = recording == m_active;
    Row header;
    header.kind = Kind::BufferHeader;
    header.recording = uint8_t(recording);
    header.buffer = b;
    const QString name = QString::fromStdString(buffer.name);
    if (m_sessions.size() > 1)
        header.label = m_names.value(int(recording)) + (name.isEmpty() ? QString() : QStringLiteral(" · ") + name);
    else
        header.label = name.isEmpty() ? QStringLiteral("CPUs") : name;
    header.height = kHeaderHeight;
    m_rows.push_back(header);
    if (isCollapsed(recording, b)) return;
    for (StreamId s : buffer.streams) {
        if (active && s.value < m_hiddenStreams.size() && m_hiddenStreams[s.value]) continue;
        Row row;
        row.kind = Kind::Cpu;
        row.recording = uint8_t(recording);
        row.buffer = b;
        row.stream = s;
        row.label = QStringLiteral("CPU %1").arg(store.stream(s).cpu);
        row.height = kCpuHeight;
        row.indent = 18;
        m_rows.push_back(row);
        if (active && m_callStreams.contains(s.value))
            m_rows.push_back(callsRow(s, -1, QStringLiteral("  calls on CPU %1").arg(store.stream(s).cpu)));
        addCounterRows(*m_sessions[recording], row, 30);
    }
}

int TimelineRows::addCounterRows(const TraceSession& session, const Row& owner, int indent)
{
    const RowOwner kind = owner.kind == Kind::Cpu    ? RowOwner::Cpu
                          : owner.kind == Kind::Task ? RowOwner::Task
                                                     : RowOwner::Recording;
    const uint32_t id = kind == RowOwner::Cpu ? owner.stream.value : kind == RowOwner::Task ? owner.task.value : 0;
    if (kind == RowOwner::Task && !owner.task.valid()) return 0;
    const std::vector<CounterGroup> groups =
        counterGroups(session, kind, id, m_countersShareRows, kind != RowOwner::Recording);
    for (size_t g = 0; g < groups.size(); ++g) {
        Row row = owner;
        row.kind = Kind::Counters;
        row.counterOwner = kind;
        row.counterGroup = int(g);
        row.label = groups[g].label();
        row.height = kCounterHeight;
        row.indent = indent;
        m_rows.push_back(row);
    }
    if (kind == RowOwner::Recording) return int(groups.size());
    const std::vector<const SliceTable*> slices = ownRowSliceTables(session, kind, id);
    for (size_t t = 0; t < slices.size(); ++t) {
        Row row = owner;
        row.kind = Kind::SliceTrack;
        row.counterOwner = kind;
        row.sliceTable = int(t);
        row.label = QString::fromStdString(slices[t]->spec().title);
        row.height = kSliceTrackHeight;
        row.indent = indent;
        m_rows.push_back(row);
    }
    return int(groups.size() + slices.size());
}

const SliceTable* TimelineRows::sliceTableOf(const Row& row) const
{
    const TraceSession* s = session(row);
    if (!s || row.kind != Kind::SliceTrack) return nullptr;
    const std::vector<const SliceTable*> tables =
        ownRowSliceTables(*s, row.counterOwner, row.counterOwner == RowOwner::Cpu ? row.stream.value : row.task.value);
    return row.sliceTable < int(tables.size()) ? tables[size_t(row.sliceTable)] : nullptr;
}

size_t TimelineRows::countCounterGroups() const
{
    size_t n = 0;
    for (size_t i = 0; i < m_sessions.size(); ++i)
        n += counterGroups(*m_sessions[i], RowOwner::Recording, 0, m_countersShareRows, false).size();
    for (const Row& r : m_rows) {
        const TraceSession* s = session(r);
        if (!s || (r.kind != Kind::Cpu && r.kind != Kind::Task)) continue;
        if (r.kind == Kind::Cpu)
            n += counterGroups(*s, RowOwner::Cpu, r.stream.value, m_countersShareRows).size() +
                 ownRowSliceTables(*s, RowOwner::Cpu, r.stream.value).size();
        else if (r.task.valid())
            n += counterGroups(*s, RowOwner::Task, r.task.value, m_countersShareRows).size() +
                 ownRowSliceTables(*s, RowOwner::Task, r.task.value).size();
    }
    return n;
}

void TimelineRows::setCountersShareRows(bool share)
{
    if (share == m_countersShareRows) return;
    m_countersShareRows = share;
    rebuild();
}

std::vector<CounterGroup> TimelineRows::counterGroupsOf(const Row& row) const
{
    const TraceSession* s = session(row);
    if (!s || row.kind != Kind::Counters) return {};
    const uint32_t owner = row.counterOwner == RowOwner::Cpu    ? row.stream.value
                           : row.counterOwner == RowOwner::Task ? row.task.value
                                                                : 0;
    return counterGroups(*s, row.counterOwner, owner, m_countersShareRows, row.counterOwner != RowOwner::Recording);
}

void TimelineRows::setQueryTracks(QStringList names)
{
    m_queryTracks = std::move(names);
    rebuild();
}

const TrackTable* TimelineRows::queryTableOf(const Row& row) const
{
    const TraceSession* s = session(row);
    return s && row.kind == Kind::QueryTrack ? queryTrackTable(*s, row.sliceTable) : nullptr;
}

void TimelineRows::addQueryTrackRows()
{
    if (m_queryTracks.isEmpty()) return;
    Row header;
    header.kind = Kind::ProcessHeader;
    header.recording = uint8_t(m_active);
    header.label = QStringLiteral("query tracks");
    header.height = kHeaderHeight;
    m_rows.push_back(header);
    for (int i = 0; i < m_queryTracks.size(); ++i) {
        Row row = header;
        row.kind = Kind::QueryTrack;
        row.sliceTable = i;
        row.label = m_queryTracks[i];
        row.indent = 18;
        row.counterOwner = RowOwner::Recording;
        const TrackTable* table = queryTableOf(row);
        row.height = table && table->kind() == TrackTable::Kind::Slices ? kQuerySlicesHeight
                     : table && table->owner() == RowOwner::Recording   ? kCounterHeight
                                                                        : kSliceTrackHeight;
        m_rows.push_back(row);
    }
}

void TimelineRows::tablesGrew()
{
    if (countCounterGroups() != m_counterGroups) rebuild();
}

void TimelineRows::addGuestRows(const RecordingSet::GuestView& guest)
{
    const TraceSession& host = *m_sessions[guest.host];
    const EventStore& guestStore = m_sessions[guest.guest]->store();
    const std::optional<uint16_t> top = topBuffer(guestStore);
    if (!top) return;
    Row header;
    header.kind = Kind::BufferHeader;
    header.recording = uint8_t(guest.guest);
    header.buffer = *top;
    const QString file = m_names.value(int(guest.guest));
    const QString name = guest.guestName == file ? file : QStringLiteral("%1 (%2)").arg(guest.guestName, file);
    header.label = QStringLiteral("guest %1 · its vCPUs under %2's threads").arg(name, m_names.value(int(guest.host)));
    header.height = kHeaderHeight;
    m_rows.push_back(header);
    if (isCollapsed(guest.guest, *top)) return;
    const bool guestActive = guest.guest == m_active;
    for (const auto& [vcpu, pid] : guest.vcpuPids) {
        Row thread;
        thread.kind = Kind::GuestTask;
        thread.recording = uint8_t(guest.host);
        thread.pid = pid;
        thread.task = host.trace->taskIndex().busiestTaskOf(pid);
        thread.label =
            QStringLiteral("vCPU %1 · %2-%3").arg(vcpu).arg(QString::fromStdString(host.taskName(pid))).arg(pid);
        thread.height = kTaskHeight;
        thread.indent = 18;
        m_rows.push_back(thread);
        for (StreamId s : guestStore.buffers()[*top].streams) {
            if (guestStore.stream(s).cpu != vcpu) continue;
            if (guestActive && s.value < m_hiddenStreams.size() && m_hiddenStreams[s.value]) continue;
            Row row;
            row.kind = Kind::Cpu;
            row.recording = uint8_t(guest.guest);
            row.buffer = *top;
            row.stream = s;
            row.label = QStringLiteral("guest CPU %1").arg(vcpu);
            row.height = kCpuHeight;
            row.indent = 30;
            m_rows.push_back(row);
        }
    }
}

void TimelineRows::rebuild()
{
    m_rows.clear();
    ++m_version;
    if (!m_session) return;
    for (size_t r = 0; r < m_sessions.size(); ++r) {
        // The recording's own counters (a value of no CPU or task) first, under a header.
        if (r == m_active) addQueryTrackRows();
        if (!counterGroups(*m_sessions[r], RowOwner::Recording, 0, m_countersShareRows, false).empty()) {
            Row header;
            header.kind = Kind::ProcessHeader;
            header.recording = uint8_t(r);
            header.label = m_sessions.size() > 1 ? QStringLiteral("counters of %1").arg(m_names.value(int(r)))
                                                 : QStringLiteral("counters of the recording");
            header.height = kHeaderHeight;
            m_rows.push_back(header);
            addCounterRows(*m_sessions[r], header, 18);
        }
        const EventStore& store = m_sessions[r]->store();
        const bool shownUnderHost = std::any_of(m_guests.begin(), m_guests.end(),
                                                [r](const RecordingSet::GuestView& g) { return g.guest == r; });
        const std::optional<uint16_t> top = topBuffer(store);
        for (uint16_t b = 0; b < store.buffers().size(); ++b) {
            if (store.buffers()[b].streams.empty() || (shownUnderHost && top == b)) continue;
            addBufferRows(r, b);
        }
        for (const RecordingSet::GuestView& guest : m_guests)
            if (guest.host == r) addGuestRows(guest);
    }
    // Share the spare height between the CPU rows.
    int fixed = int(m_tasks.size()) * kTaskHeight, cpuRows = 0;
    for (const TaskData& t : m_tasks) {
        if (m_callPids.contains(t.pid)) fixed += callsRow({}, t.pid, {}).height;
        if (t.task.valid())
            fixed += int(counterGroups(*m_session, RowOwner::Task, t.task.value, m_countersShareRows).size()) *
                         kCounterHeight +
                     int(ownRowSliceTables(*m_session, RowOwner::Task, t.task.value).size()) * kSliceTrackHeight;
    }
    for (const Row& r : m_rows) {
        if (r.kind == Kind::Cpu)
            ++cpuRows;
        else
            fixed += r.height;
    }
    int cpuHeight = kCpuHeight;
    if (cpuRows > 0 && m_viewportHeight > fixed) {
        cpuHeight = std::clamp((m_viewportHeight - fixed) / cpuRows, int(kCpuHeight), int(kCpuMaxHeight));
        for (Row& r : m_rows)
            if (r.kind == Kind::Cpu) r.height = cpuHeight;
    }
    // What the CPU rows leave, the task rows share: their states and system calls readable,
    // not a strip above empty space.
    int taskHeight = kTaskHeight;
    if (!m_tasks.empty()) {
        const int spare = m_viewportHeight - fixed - cpuRows * cpuHeight;
        if (spare > 0)
            taskHeight = std::clamp(kTaskHeight + spare / int(m_tasks.size()), int(kTaskHeight), int(kTaskMaxHeight));
    }
    // Task rows of one process stay together, under a header when there are several.
    const ProcessGroups& processes = m_session->trace->processes();
    std::unordered_map<int32_t, size_t> groupSize;
    for (const TaskData& t : m_tasks) ++groupSize[processes.leader(t.pid)];
    std::stable_sort(m_tasks.begin(), m_tasks.end(), [&](const TaskData& a, const TaskData& b) {
        const int32_t la = processes.leader(a.pid), lb = processes.leader(b.pid);
        return la != lb ? la < lb : a.pid < b.pid;
    });
    if (m_sessions.size() > 1 && !m_tasks.empty()) {
        // With several recordings, whose tasks these are.
        Row header;
        header.kind = Kind::ProcessHeader;
        header.recording = uint8_t(m_active);
        header.label = QStringLiteral("task rows of %1").arg(m_names.value(int(m_active)));
        header.height = kHeaderHeight;
        m_rows.push_back(header);
    }
    int32_t lastLeader = -1;
    for (const TaskData& t : m_tasks) {
        const int32_t leader = processes.leader(t.pid);
        const size_t inGroup = groupSize[leader];
        if (inGroup > 1 && leader != lastLeader) {
            Row header;
            header.kind = Kind::ProcessHeader;
            header.recording = uint8_t(m_active);
            header.pid = leader;
            header.label = QStringLiteral("process %1-%2 · %3 tasks")
                               .arg(QString::fromStdString(m_session->taskName(leader)))
                               .arg(leader)
                               .arg(inGroup);
            header.height = kHeaderHeight;
            m_rows.push_back(header);
        }
        lastLeader = leader;
        Row row;
        row.kind = Kind::Task;
        row.recording = uint8_t(m_active);
        row.pid = t.pid;
        row.label = QStringLiteral("%1%2-%3")
                        .arg(inGroup > 1 ? QStringLiteral("  ") : QString())
                        .arg(QString::fromStdString(m_session->taskName(t.pid)))
                        .arg(t.pid);
        row.height = taskHeight;
        row.task = t.task;
        m_rows.push_back(row);
        if (m_callPids.contains(t.pid))
            m_rows.push_back(
                callsRow({}, t.pid, QStringLiteral("%1  calls").arg(inGroup > 1 ? QStringLiteral("  ") : QString())));
        addCounterRows(*m_session, row, inGroup > 1 ? 24 : 16);
    }
    m_counterGroups = countCounterGroups();
}

TimelineRows::Row TimelineRows::callsRow(StreamId stream, int32_t pid, const QString& label) const
{
    Row row;
    row.kind = Kind::Calls;
    row.recording = uint8_t(m_active);
    row.stream = stream;
    row.pid = pid;
    row.label = label;
    row.lanes = m_laneCounts.value(laneKey(row), 0);
    row.height = kCallsPadding + std::max(1, row.lanes) * kLaneHeight;
    return row;
}

void TimelineRows::setCallRows(QVector<int32_t> pids, QVector<uint16_t> streams)
{
    if (pids == m_callPids && streams == m_callStreams) return;
    m_callPids = std::move(pids);
    m_callStreams = std::move(streams);
    rebuild();
}

void TimelineRows::setLaneCount(const Row& callsRow, int lanes)
{
    const int64_t key = laneKey(callsRow);
    if (m_laneCounts.value(key, -1) == lanes) return;
    m_laneCounts[key] = lanes;
    rebuild();
}

int TimelineRows::totalHeight() const
{
    int h = 0;
    for (const Row& r : m_rows) h += r.height;
    return h;
}

int TimelineRows::rowAt(int y) const
{
    if (y < 0) return -1;
    for (int i = 0, top = 0; i < m_rows.size(); ++i) {
        if (y < top + m_rows[i].height) return i;
        top += m_rows[i].height;
    }
    return -1;
}

int TimelineRows::rowTop(int index) const
{
    int top = 0;
    for (int i = 0; i < index && i < m_rows.size(); ++i) top += m_rows[i].height;
    return top;
}

void TimelineRows::toggleBuffer(size_t recording, uint16_t buffer)
{
    const uint32_t key = collapseKey(recording, buffer);
    if (m_collapsed.contains(key))
        m_collapsed.remove(key);
    else
        m_collapsed.insert(key);
    rebuild();
}

bool TimelineRows::hasTask(int32_t pid) const
{
    return task(pid) != nullptr;
}

const TimelineRows::TaskData* TimelineRows::task(int32_t pid) const
{
    for (const TaskData& t : m_tasks)
        if (t.pid == pid) return &t;
    return nullptr;
}

QVector<int32_t> TimelineRows::taskPids() const
{
    QVector<int32_t> pids;
    for (const TaskData& t : m_tasks) pids.push_back(t.pid);
    return pids;
}

void TimelineRows::addTask(int32_t pid)
{
    if (!m_session || hasTask(pid)) return;
    // A reused pid is several tasks: the row shows the life with the most events.
    // (invalid for a task without events, whose row stays empty)
    m_tasks.push_back({pid, m_session->trace->taskIndex().busiestTaskOf(pid)});
    rebuild();
}

void TimelineRows::addProcess(int32_t pid)
{
    if (!m_session) return;
    const TaskIndex& index = m_session->trace->taskIndex();
    for (int32_t member : m_session->trace->processes().members(pid))
        if (!hasTask(member)) m_tasks.push_back({member, index.busiestTaskOf(member)});
    rebuild();
}

void TimelineRows::removeTask(int32_t pid)
{
    m_tasks.erase(std::remove_if(m_tasks.begin(), m_tasks.end(), [pid](const TaskData& t) { return t.pid == pid; }),
                  m_tasks.end());
    rebuild();
}

} // namespace ringside
