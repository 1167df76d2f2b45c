// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "plugin/plugin.h"
#include "store/blocklist.h"
#include "syscalltables.h"
#include "util/flatindex.h"

#include <memory>
#include <mutex>
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

    SyscallsPlugin();
    ~SyscallsPlugin() override;

    std::string name() const override { return kName; }
    std::string description() const override;
    std::vector<EventRequest> requests() const override;
    void setRecording(const RecordingInfo& info) override;
    void bind(const std::vector<bool>& bound) override;
    void setStreams(const std::vector<StreamInfo>& streams) override { m_streams = streams; }
    // In merged order (a test, a caller without pieces): one piece for every stream, joined by
    // flush().
    void consume(const ConsumedRecord& record) override;
    void flush() override;
    // A call enters and returns on its task's CPU unless the task moved while it waited:
    // pieces pair what their stretch holds, join() pairs the rest.
    bool fedInPieces() const override { return true; }
    std::unique_ptr<StreamPiece> newPiece(StreamId stream) override;
    void join(std::vector<FedPiece> pieces) override;
    std::string nothingToShow() const override;
    PluginTables tables(const RecordingInfo& info) const override;

    size_t callCount() const { return m_callCount; }
    // Every call, piece by piece: a piece's in the order entered (or returned, without an entry).
    template <typename Visit>
    void forEachCall(Visit visit) const;
    std::vector<Call> calls() const;
    const std::vector<std::string>& names() const { return m_names; }
    Architecture architecture() const { return m_arch; }

private:
    // A call as stored: 16 bytes, for there are millions. Entries are 32 bits after the piece's
    // epoch (a new one every 4.3 s), durations and returns 32 bits, the task an index into the
    // piece's pids. What does not fit is kept aside: a wait of seconds or an mmap's address in
    // a list the stored value points into (looked up without hashing, for every call writes
    // one), rarer things (an entry out of order, the CPU a call returned on when it is not its
    // piece's) in maps by call.
    struct StoredCall {
        uint32_t enter = 0;
        uint32_t duration = 0;
        int32_t ret = 0;
        uint16_t task = 0;
        uint16_t name : 13 = 0;
        uint16_t enterSeen : 1 = 0, exitSeen : 1 = 0;
        uint16_t joined : 1 = 0; // merged into another call: not a call of its own
    };
    static_assert(sizeof(StoredCall) == 16);
    // Calls of pieces fed one after another on one thread, end to end: a piece's calls are a
    // range of one arena, and memory is not left unused at the end of every piece.
    struct Arena {
        BlockList<StoredCall> calls;
        bool busy = false;
    };
    class Piece;
    // A call in a piece.
    struct CallRef {
        Piece* piece = nullptr;
        uint32_t index = 0;
        bool operator==(const CallRef&) const = default;
    };
    // A call entered and not returned in its piece: the exit may be in another one.
    struct Unreturned {
        CallRef call;
        int32_t pid = 0;
        int64_t number = 0;
        uint64_t enter = 0;
        uint64_t until = UINT64_MAX; // the task entered another call then
    };
    // A call returned without an entry in its piece.
    struct Orphan {
        uint32_t call = 0;
        int32_t pid = 0;
        int64_t number = 0;
        uint64_t exit = 0;
        uint64_t lastEnter = 0; // the task's latest entry before it in the piece, 0 if none
        uint8_t kind = 0;
        bool first = false; // the task's first record in the piece
    };

    Arena& takeArena();
    void giveBack(Arena& arena);
    // Name ids fit 13 bits: past 8,191 names (numbers no table knows) the rest share one.
    // Pieces ask from several threads.
    uint16_t nameId(const std::string& name);
    int cpuOf(uint32_t streamPlusOne) const;
    Piece* pieceOf(StreamPiece* piece) const;
    // Calls and entries split at a stretch's start (both kinds of events of one call, an entry
    // whose return is in the next stretch) are joined with the previous stretch's state.
    // `ofEarlier`: where the earlier piece's entries are in `open`.
    void joinStretches(Piece& earlier, Piece& later, std::vector<Unreturned>& open,
                       std::pair<size_t, size_t> ofEarlier);
    // Returns without an entry are paired with the task's latest unreturned entry before them.
    void pairAcrossPieces(std::vector<Piece*>& pieces, std::vector<Unreturned>& open);
    void merge(CallRef into, CallRef from, bool nameFromEvent);

    Architecture m_arch = Architecture::Unknown;
    std::function<std::string(uint16_t)> m_eventName;
    std::vector<bool> m_bound;
    std::vector<StreamInfo> m_streams;
    std::mutex m_namesLock;
    std::vector<std::string> m_names;
    std::unordered_map<std::string, uint16_t> m_nameIds;
    std::mutex m_arenasLock; // pieces are made and ended on the parser's threads
    std::vector<std::unique_ptr<Arena>> m_arenas;
    std::vector<std::unique_ptr<Piece>> m_pieces;        // joined
    std::unique_ptr<Piece> m_merged;                     // fed by consume(), joined by flush()
    std::vector<Unreturned> m_open;                      // unreturned at the end of the last join
    std::unordered_map<uint32_t, Piece*> m_lastOfStream; // the latest joined piece of a stream
    size_t m_callCount = 0;
};

// One stretch's calls (or, fed in merged order, every stream's), and each task's state.
class SyscallsPlugin::Piece : public StreamPiece {
public:
    // The piece fed in merged order keeps this stream key.
    static constexpr uint32_t kEveryStream = UINT32_MAX;

    Piece(SyscallsPlugin& plugin, uint32_t streamKey);
    ~Piece() override;
    void consume(const ConsumedRecord& record) override;
    void end() override;

    size_t size() const { return (m_ended ? m_end : m_arena->calls.size()) - m_begin; }
    const StoredCall& stored(size_t i) const { return m_arena->calls[m_begin + i]; }
    Call call(size_t i) const;

private:
    friend class SyscallsPlugin;
    struct TaskState {
        int64_t open = -1;       // the call entered and not yet returned
        int64_t lastExited = -1; // the call that returned last, while no other was entered
        int64_t openNumber = 0, lastExitedNumber = 0;
        uint8_t openKinds = 0, exitKinds = 0; // the kinds of events seen of them (Kind)
        uint64_t lastEnter = 0;
        int64_t firstEnter = -1; // the call the task's first record entered, if it was an entry
        int64_t firstNumber = 0;
        uint8_t firstKind = 0;
        bool seen = false;
        bool left = false;          // it left the CPU after its last entry here
        size_t deferred = SIZE_MAX; // its call whose return was left to join(), in m_unreturned
        uint16_t index = 0;         // in m_pids
    };
    // Which kind of event a record is: both kinds may record one call.
    enum Kind : uint8_t { kRaw = 1, kEvent = 2 };

    void enter(const ConsumedRecord& record, int64_t number, int64_t nameFromEvent, Kind kind);
    void exit(const ConsumedRecord& record, int64_t number, int64_t ret, int64_t nameFromEvent, Kind kind);
    size_t addCall(const ConsumedRecord& record, const TaskState& task, uint16_t name, bool entered);
    StoredCall& at(size_t i) { return m_arena->calls[m_begin + i]; }
    const StoredCall& at(size_t i) const { return m_arena->calls[m_begin + i]; }
    int32_t pidOf(size_t call) const;
    uint32_t streamOf(size_t call) const; // plus one; 0: unknown
    void setStream(size_t call, uint32_t streamPlusOne);
    TaskState& taskOf(const ConsumedRecord& record);
    uint16_t numberName(int64_t number);
    // The event's name when it gave one (syscalls:*), else the number's.
    uint16_t nameOf(int64_t number, int64_t nameFromEvent);
    int64_t nameOfEvent(uint16_t type, const char* prefix);
    // A call's stored values, and where they go when they are too wide.
    void setEnter(size_t call, StoredCall& c, uint64_t enter);
    uint64_t enterOf(size_t call, const StoredCall& c) const;
    uint64_t epochOf(size_t call) const; // the time its stored entry counts from
    void setExit(size_t call, StoredCall& c, uint64_t exit);
    uint64_t exitOf(size_t call) const;
    uint64_t durationOf(const StoredCall& c) const;
    void setReturn(StoredCall& c, int64_t ret);
    int64_t returnOf(const StoredCall& c) const;
    // The task's open call becomes unreturned (see Unreturned), until `until`; its place in
    // m_unreturned.
    size_t unreturned(const TaskState& task, int32_t pid, uint64_t until = UINT64_MAX);
    // The end of the stretch: calls still open become unreturned.
    void finish();

    SyscallsPlugin& m_plugin;
    uint32_t m_streamKey;
    Arena* m_arena;
    size_t m_begin = 0, m_end = 0; // the piece's calls in the arena (m_end once ended)
    bool m_ended = false;
    std::vector<std::pair<size_t, uint64_t>> m_epochs;          // (first call, time entries count from)
    std::vector<int32_t> m_pids;                                // by task index
    FlatMap<uint64_t> m_wideEnters, m_widePids, m_otherStreams; // by call
    std::vector<uint64_t> m_wideDurationValues;                 // see kWideDurations
    std::vector<int64_t> m_wideReturnValues;                    // see kWideReturns
    std::unordered_map<int32_t, TaskState> m_tasks;
    std::vector<std::pair<int32_t, TaskState*>> m_lastTask; // per stream: the last task seen
    std::vector<int32_t> m_numberNames;                     // name id by number, -1 until first seen
    std::unordered_map<uint16_t, int64_t> m_eventNames;     // by event type
    std::vector<Unreturned> m_unreturned;
    std::vector<Orphan> m_orphans;
    size_t m_joined = 0; // calls merged into others
    bool m_finished = false;
};

template <typename Visit>
void SyscallsPlugin::forEachCall(Visit visit) const
{
    for (const auto& piece : m_pieces)
        for (size_t i = 0; i < piece->size(); ++i)
            if (!piece->stored(i).joined) visit(piece->call(i));
}

} // namespace ringside::syscalls
