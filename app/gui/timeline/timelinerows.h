// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "state/recordingset.h"
#include "state/tracesession.h"
#include "store/ids.h"
#include "timeline/countergroups.h"

#include <QMap>
#include <QSet>
#include <QString>
#include <QStringList>
#include <QVector>

#include <vector>

namespace ringside {

// The rows of the timeline: per buffer a collapsible header and one row per CPU, then the
// task rows the user added, grouped by process. A task row names its task in the trace's
// TaskIndex, so adding one costs no scan of the events. A task or CPU row may show its calls
// in a row below it, a lane per call depth; a CPU or task row with counters (a frequency, a
// field plotted) has a row per counter group under it (countergroups.h). Pure layout and data;
// no painting.
//
// With several recordings (setRecordings), each recording's buffers form their own groups,
// headed by the file's name; a paired guest's CPUs sit under the host's rows of the threads
// that ran its vCPUs (the host–guest view). Task rows, calls rows and hidden CPUs belong to
// the active recording, the one the panes show; every row says whose it is.
class TimelineRows {
public:
    // GuestTask: a host thread that ran a guest's vCPU, in the host–guest view.
    // Counters: the counter group `counterGroup` of the CPU (stream) or task (pid, task) above,
    // or of the recording (counterOwner Recording: at the top, under a header of their own).
    // SliceTrack: the own-row slice table `sliceTable` (ownRowSliceTables) of the CPU or task
    // above (idle states under a CPU).
    // QueryTrack: the view's query track `sliceTable` (queryTrackTable), under the "query tracks"
    // header at the top: its slices, of every task and CPU, in lanes by depth; its counter when
    // the recording's own; else it says on which rows it is drawn.
    enum class Kind { BufferHeader, Cpu, ProcessHeader, Task, Calls, GuestTask, Counters, SliceTrack, QueryTrack };
    struct Row {
        Kind kind = Kind::Cpu;
        uint8_t recording = 0; // in the order setRecordings got them
        uint16_t buffer = 0;
        StreamId stream;
        int32_t pid = -1; // a Calls row of a CPU has none
        QString label;
        int height = 0;
        int lanes = 0;  // of a Calls row, once its calls are laid out
        int indent = 8; // of the label
        TaskId task;    // of a GuestTask row: the host thread's busiest life; of a task's Counters row
        int counterGroup = 0;
        RowOwner counterOwner = RowOwner::Cpu; // of a Counters or SliceTrack row
        int sliceTable = 0;
    };
    // A task row: the task (one life of its pid, see TaskIndex), whose events and running
    // intervals the trace's task index holds; nothing is copied per row.
    struct TaskData {
        int32_t pid = 0;
        TaskId task;
    };

    // Keys a Calls row's lanes: its task's pid, or its CPU's stream.
    static int64_t laneKey(const Row& callsRow)
    {
        return callsRow.pid >= 0 ? int64_t(callsRow.pid) : -1 - int64_t(callsRow.stream.value);
    }

    static constexpr int kHeaderHeight = 20;
    static constexpr int kCpuHeight = 26;
    // A few rows grow into the timeline's free height (two CPUs left 60% of it blank at 72),
    // up to where a bar stops reading better for its height.
    static constexpr int kCpuMaxHeight = 160;
    static constexpr int kTaskHeight = 22;
    static constexpr int kTaskMaxHeight = 60;
    static constexpr int kLaneHeight = 15;
    static constexpr int kCallsPadding = 4;
    static constexpr int kCounterHeight = 36;
    static constexpr int kSliceTrackHeight = 22;
    static constexpr int kQuerySlicesHeight = 44;

    void setSession(const TraceSession* session);
    // Several recordings on one timeline; `active` is the one whose task rows, calls rows and
    // hidden CPUs are shown; `guests` are the pairs shown host–guest (RecordingSet).
    void setRecordings(std::vector<const TraceSession*> sessions, size_t active,
                       std::vector<RecordingSet::GuestView> guests);
    size_t activeRecording() const { return m_active; }
    size_t recordingCount() const { return m_sessions.size(); }
    const TraceSession* session(const Row& row) const
    {
        return row.recording < m_sessions.size() ? m_sessions[row.recording] : nullptr;
    }
    // CPU rows grow to share the height they are shown in (up to kCpuMaxHeight), task rows
    // what they leave (up to kTaskMaxHeight).
    void setViewportHeight(int height);
    // The active recording.
    const TraceSession* session() const { return m_session; }

    const QVector<Row>& rows() const { return m_rows; }
    int totalHeight() const;
    // Index of the row at content y (0 at the top of the first row), or -1.
    int rowAt(int y) const;
    int rowTop(int index) const;

    // CPU rows of hidden streams are left out (filters).
    void setHiddenStreams(std::vector<bool> hidden);

    // Of the active recording, or of any.
    void toggleBuffer(uint16_t buffer) { toggleBuffer(m_active, buffer); }
    bool isCollapsed(uint16_t buffer) const { return isCollapsed(m_active, buffer); }
    void toggleBuffer(size_t recording, uint16_t buffer);
    void setCollapsed(size_t recording, uint16_t buffer, bool collapsed)
    {
        if (isCollapsed(recording, buffer) != collapsed) toggleBuffer(recording, buffer);
    }
    bool isCollapsed(size_t recording, uint16_t buffer) const
    {
        return m_collapsed.contains(collapseKey(recording, buffer));
    }

    bool hasTask(int32_t pid) const;
    void addTask(int32_t pid);
    // Adds a row for every task of `pid`'s process (see ProcessGroups); they are shown together
    // under a process header.
    void addProcess(int32_t pid);
    void removeTask(int32_t pid);
    const TaskData* task(int32_t pid) const;
    QVector<int32_t> taskPids() const;

    // The task rows (by pid) and CPU rows (by stream) that show their calls.
    void setCallRows(QVector<int32_t> pids, QVector<uint16_t> streams);
    // How many lanes a Calls row needs (0 until its calls are laid out); the row's height.
    void setLaneCount(const Row& callsRow, int lanes);

    // Bumped whenever the rows change, for caches keyed on the layout.
    int version() const { return m_version; }
    // The analyses' tables grew: the rows are made again when an owner shown gained or lost a
    // counter group (a capture's first frequency sample).
    void tablesGrew();
    // Counters of one unit share a row (the default), or each has its own.
    void setCountersShareRows(bool share);
    bool countersShareRows() const { return m_countersShareRows; }
    // The counter group a Counters row shows.
    std::vector<CounterGroup> counterGroupsOf(const Row& row) const;
    // The table a SliceTrack row shows, or null.
    const SliceTable* sliceTableOf(const Row& row) const;
    // The names of the view's query tracks, in its order: a row each, from the moment one is
    // added (its table comes when its query has run). Their tables came or went: call again.
    void setQueryTracks(QStringList names);
    // The table a QueryTrack row shows, or null while it is made (or when its query failed).
    const TrackTable* queryTableOf(const Row& row) const;

private:
    void rebuild();
    void addBufferRows(size_t recording, uint16_t buffer);
    void addGuestRows(const RecordingSet::GuestView& guest);
    void addQueryTrackRows();
    Row callsRow(StreamId stream, int32_t pid, const QString& label) const;
    // The Counters and SliceTrack rows of a CPU's stream, a task or the recording, appended; how many.
    int addCounterRows(const TraceSession& session, const Row& owner, int indent);
    // How many counter groups the owners of the rows have now (tablesGrew compares).
    size_t countCounterGroups() const;
    static uint32_t collapseKey(size_t recording, uint16_t buffer) { return uint32_t(recording) << 16 | buffer; }

    const TraceSession* m_session = nullptr; // the active one
    std::vector<const TraceSession*> m_sessions;
    QStringList m_names; // RecordingSet::displayNames
    size_t m_active = 0;
    std::vector<RecordingSet::GuestView> m_guests;
    QVector<Row> m_rows;
    QSet<uint32_t> m_collapsed; // collapseKey
    std::vector<bool> m_hiddenStreams;
    std::vector<TaskData> m_tasks;
    QVector<int32_t> m_callPids;
    QVector<uint16_t> m_callStreams;
    QStringList m_queryTracks;
    QMap<int64_t, int> m_laneCounts; // by laneKey
    int m_version = 0;
    int m_viewportHeight = 0;
    size_t m_counterGroups = 0; // when the rows were made
    bool m_countersShareRows = true;
};

} // namespace ringside
