// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

// The interface a Ringside plugin implements: a record consumer (see recordconsumer.h) that
// also says what it is for, whether the recording gave it anything to show, and the typed
// tables it made (plugintables.h). A plugin is a shared module with two C entry points,
// defined by RINGSIDE_PLUGIN(ClassName); the app checks the module's interface fingerprint
// (plugininterface.h, a hash of every header a plugin sees) before it creates anything.
// Plugins see no widgets and never change the core's rows.

#include "consume/recordconsumer.h"
#include "plugin/plugininterface.h"
#include "plugin/plugintables.h"
#include "util/flatindex.h"

#include <functional>
#include <string>
#include <vector>

namespace ringside {

// What a plugin may ask of the recording it is fed, besides its records. Any thread may ask.
struct RecordingInfo {
    std::string machine;    // from the file's uname: x86_64, aarch64, armv7l, i686 ...
    int kernelLongSize = 8; // bytes
    // Event names of the recording, for requests by prefix (see EventRequest::prefix).
    std::function<std::string(uint16_t type)> eventName;
    // The kernel function at an address, from the recording's kallsyms; empty if unknown. Its
    // symbols are registered while the pages load: ask in flush(), join() or statistics(),
    // not in consume().
    std::function<std::string(uint64_t address)> functionName;
    // The task `pid` was at `time` (a TaskId's value), for records fed in pieces, whose task
    // is known only once their batch is: ask in join(). A pid has a task when it has events
    // of its own or a request's `tasks` field named it (EventRequest::tasks); else UINT32_MAX.
    std::function<uint32_t(int32_t pid, uint64_t time)> taskAt;
    // Until when taskAt(pid, t) answers as for `time`, from `time` on: the pid's next task, or
    // the end of what the batches so far tell (`time` itself: ask each time). TaskLives keeps
    // the answers.
    std::function<uint64_t(int32_t pid, uint64_t time)> taskEnds;
    // The first and last event's times of the recording so far.
    std::function<std::pair<uint64_t, uint64_t>()> timeRange;
};

// The task of a pid at a time, asking RecordingInfo::taskAt once per task while its answer
// holds (taskEnds): each question takes the core's lock, and a plugin asking for every switch,
// wakeup or failure asked hundreds of thousands of times for a few thousand tasks. Answers in
// time order are kept; one thread at a time.
class TaskLives {
public:
    explicit TaskLives(const RecordingInfo& info) : m_info(&info) {}
    uint32_t at(int32_t pid, uint64_t time)
    {
        if (!m_info->taskAt) return uint32_t(pid);
        bool added = false;
        const uint32_t at = m_ofPid.findOrAdd(uint32_t(pid), uint32_t(m_lives.size()), &added);
        if (added) m_lives.emplace_back();
        Life& life = m_lives[at];
        if (time < life.from || time >= life.until) {
            life.task = m_info->taskAt(pid, time);
            life.from = time;
            life.until = m_info->taskEnds ? m_info->taskEnds(pid, time) : time;
        }
        return life.task;
    }
    void clear()
    {
        m_ofPid.clear();
        std::vector<Life>().swap(m_lives);
    }

private:
    struct Life {
        uint32_t task = 0;
        uint64_t from = 1, until = 0; // [from, until): none yet
    };
    const RecordingInfo* m_info;
    FlatMap<uint32_t> m_ofPid; // pid -> position in m_lives
    std::vector<Life> m_lives;
};

// Tasks in statistics are TaskIds (StatsTable::Kind::Task): the app and the CLI name them, one
// way, so a plugin never names a task.
class Plugin : public RecordConsumer {
public:
    // One line for the Plugins dialog and `--help`.
    virtual std::string description() const = 0;
    // Before setTables() and bind(): the recording the records come from.
    virtual void setRecording(const RecordingInfo& info) { (void)info; }
    // Why there is nothing to show ("no sched_switch events"), or empty.
    virtual std::string nothingToShow() const = 0;
    // Statistics of the records so far, asked between batches (a capture's shown as it goes).
    virtual std::vector<StatsTable> statistics() const { return {}; }
    // The statistics once more after finish(), the last time they are asked for: a plugin that
    // keeps sums only to remake its tables may make them from what it frees as it goes, and
    // need not answer statistics() after (the core keeps these).
    virtual std::vector<StatsTable> finalStatistics() { return statistics(); }
    // The version of the statistics' shape (their tables' keys and columns), which scripts
    // read from `ringside-cli stats --json` ("plugin_schema"): bump it with any such change.
    virtual int statisticsVersion() const { return 1; }
};

} // namespace ringside

// The entry points of a plugin module: the fingerprint of the headers it was built against,
// and its factory.
extern "C" {
using RingsidePluginInterfaceFn = const char* (*)();
using RingsidePluginCreateFn = ringside::Plugin* (*)();
}

#define RINGSIDE_PLUGIN(Class)                                                                                         \
    extern "C" __attribute__((visibility("default"))) const char* ringside_plugin_interface()                          \
    {                                                                                                                  \
        return RINGSIDE_PLUGIN_INTERFACE;                                                                              \
    }                                                                                                                  \
    extern "C" __attribute__((visibility("default"))) ringside::Plugin* ringside_plugin_create()                       \
    {                                                                                                                  \
        return new Class();                                                                                            \
    }
