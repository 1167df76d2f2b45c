// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "state/tracesession.h"
#include "store/ids.h"

#include <QMap>
#include <QSet>
#include <QString>
#include <QVector>

#include <vector>

namespace ringside {

// The rows of the timeline: per buffer a collapsible header and one row per CPU, then the
// task rows the user added, grouped by process. A task row names its task in the trace's
// TaskIndex, so adding one costs no scan of the events. A task or CPU row may show its calls
// in a row below it, a lane per call depth. Pure layout and data; no painting.
class TimelineRows {
public:
    enum class Kind { BufferHeader, Cpu, ProcessHeader, Task, Calls };
    struct Row {
        Kind kind = Kind::Cpu;
        uint16_t buffer = 0;
        StreamId stream;
        int32_t pid = -1; // a Calls row of a CPU has none
        QString label;
        int height = 0;
        int lanes = 0; // of a Calls row, once its calls are laid out
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
    static constexpr int kCpuMaxHeight = 56;
    static constexpr int kTaskHeight = 22;
    static constexpr int kLaneHeight = 15;
    static constexpr int kCallsPadding = 4;

    void setSession(const TraceSession* session);
    // CPU rows grow to share the height they are shown in (up to kCpuMaxHeight).
    void setViewportHeight(int height);
    const TraceSession* session() const { return m_session; }

    const QVector<Row>& rows() const { return m_rows; }
    int totalHeight() const;
    // Index of the row at content y (0 at the top of the first row), or -1.
    int rowAt(int y) const;
    int rowTop(int index) const;

    // CPU rows of hidden streams are left out (filters).
    void setHiddenStreams(std::vector<bool> hidden);

    void toggleBuffer(uint16_t buffer);
    bool isCollapsed(uint16_t buffer) const { return m_collapsed.contains(buffer); }

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

private:
    void rebuild();
    Row callsRow(StreamId stream, int32_t pid, const QString& label) const;

    const TraceSession* m_session = nullptr;
    QVector<Row> m_rows;
    QSet<uint16_t> m_collapsed;
    std::vector<bool> m_hiddenStreams;
    std::vector<TaskData> m_tasks;
    QVector<int32_t> m_callPids;
    QVector<uint16_t> m_callStreams;
    QMap<int64_t, int> m_laneCounts; // by laneKey
    int m_version = 0;
    int m_viewportHeight = 0;
};

} // namespace ringside
