// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "plugin/plugin.h"
#include "store/blocklist.h"
#include "syscalltables.h"
#include "util/flatindex.h"

#include <string>
#include <unordered_map>
#include <vector>

namespace ringside::syscalls {

// System calls as slices on the task rows, from raw_syscalls sys_enter/sys_exit (numbers,
// named by the recording's architecture) and the per-syscall syscalls:sys_enter_*/sys_exit_*
// events (named by the event). A call recorded by both kinds of events is one call. Failures
// (negative errno returns) are named; statistics per system call and per task.
class SyscallsPlugin : public Plugin {
public:
    static constexpr const char* kName = "syscalls";

    // One system call of one task, as the tables and tests read it.
    struct Call {
        uint64_t enter = 0, exit = 0; // exit == enter while no exit was seen
        int64_t ret = 0;
        int32_t pid = 0;
        uint32_t name = 0; // index into names()
        int cpu = -1;      // where it returned (or entered, without an exit)
        bool enterSeen = false, exitSeen = false;
        bool failed() const { return exitSeen && ret < 0 && ret >= -4095; }
        uint64_t duration() const { return enterSeen && exitSeen ? exit - enter : 0; }
    };

    std::string name() const override { return kName; }
    std::string description() const override;
    std::vector<EventRequest> requests() const override;
    void setRecording(const RecordingInfo& info) override;
    void bind(const std::vector<bool>& bound) override;
    void setStreams(const std::vector<StreamInfo>& streams) override { m_streams = streams; }
    void consume(const ConsumedRecord& record) override;
    std::string nothingToShow() const override;
    PluginTables tables(const RecordingInfo& info) const override;

    // In the order they were entered (or, without an entry, returned).
    size_t callCount() const { return m_calls.size(); }
    Call call(size_t i) const;
    const std::vector<std::string>& names() const { return m_names; }
    Architecture architecture() const { return m_arch; }

private:
    // A call as stored: 24 bytes, for there are millions and memory is most of what they cost.
    // Times are 48 bits from the first call's (78 hours), returns 48 bits signed (addresses
    // fit), durations 32 bits (4.3 s); whatever does not fit is kept aside by call.
    struct StoredCall {
        uint32_t enterLow = 0;
        uint16_t enterHigh = 0;
        uint16_t returnHigh = 0;
        uint32_t returnLow = 0;
        uint32_t duration = 0;
        int32_t pid = 0;
        uint16_t name : 14 = 0;
        uint16_t enterSeen : 1 = 0, exitSeen : 1 = 0;
        uint16_t cpuPlusOne = 0; // 0: unknown
    };
    static_assert(sizeof(StoredCall) == 24);
    struct TaskState {
        int64_t open = -1;       // the call entered and not yet exited
        int64_t lastExited = -1; // the call that returned last, while no other was entered
        int64_t openNumber = 0, lastExitedNumber = 0;
    };
    // A call's stored values, and where they go when they are too wide.
    void setEnter(size_t call, uint64_t enter);
    uint64_t enterOf(size_t call) const;
    void setExit(size_t call, uint64_t exit);
    void setReturn(size_t call, int64_t ret);
    int64_t returnOf(size_t call) const;
    void setCpu(StoredCall& call, StreamId stream) const;
    size_t addCall(const ConsumedRecord& record, uint16_t name);
    void enter(const ConsumedRecord& record, int64_t number, int64_t nameFromEvent);
    void exit(const ConsumedRecord& record, int64_t number, int64_t ret, int64_t nameFromEvent);
    // Name ids fit 14 bits: past 16,383 names (numbers no table knows) the rest share one.
    uint16_t nameId(const std::string& name);
    // The name id of a system call number, from the architecture's table (looked up once).
    uint16_t numberName(int64_t number);
    // The name a syscalls:sys_enter_X or sys_exit_X event gives its call (X), as a name id.
    int64_t nameOfEvent(uint16_t type, const char* prefix);
    int cpuOf(StreamId stream) const;
    TaskState& taskOf(const ConsumedRecord& record);

    Architecture m_arch = Architecture::Unknown;
    std::function<std::string(uint16_t)> m_eventName;
    std::vector<bool> m_bound;
    std::vector<StreamInfo> m_streams;
    BlockList<StoredCall> m_calls;                                  // millions of calls
    uint64_t m_firstEnter = 0;                                      // what stored times count from
    FlatMap<uint64_t> m_wideEnters, m_wideDurations, m_wideReturns; // by call
    std::vector<int64_t> m_numberNames; // name id by system call number, -1 until first seen
    std::vector<std::string> m_names;
    std::unordered_map<std::string, uint16_t> m_nameIds;
    std::unordered_map<uint16_t, int64_t> m_eventNames; // by event type
    std::unordered_map<int32_t, TaskState> m_tasks;
    std::vector<std::pair<int32_t, TaskState*>> m_lastTask; // per stream: the last task seen
};

} // namespace ringside::syscalls
