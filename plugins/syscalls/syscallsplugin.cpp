// SPDX-License-Identifier: GPL-2.0-or-later
#include "syscallsplugin.h"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

namespace ringside::syscalls {

namespace {

// The requests, in this order.
enum Request : size_t { kRawEnter, kRawExit, kEnter, kExit, kEnterOld, kExitOld, kSwitch, kRequests };

constexpr const char* kEnterPrefix = "sys_enter_";
constexpr const char* kExitPrefix = "sys_exit_";
constexpr uint32_t kNoTask = UINT32_MAX;

} // namespace

// ---- Sums

void SyscallsPlugin::Sums::add(const Sums& o)
{
    // Added up without wrapping (see Sums).
    calls = uint32_t(std::min<uint64_t>(UINT32_MAX, uint64_t(calls) + o.calls));
    timed = uint32_t(std::min<uint64_t>(UINT32_MAX, uint64_t(timed) + o.timed));
    total += o.total, max = std::max(max, o.max);
}

void SyscallsPlugin::Tally::noteFirst(int32_t pid, uint64_t time)
{
    auto [place, added] = m_firstOf.try_emplace(pid, uint32_t(firsts.size()));
    if (added)
        firsts.emplace_back(pid, time);
    else
        firsts[place->second].second = std::min(firsts[place->second].second, time);
}

SyscallsPlugin::Sums& SyscallsPlugin::Tally::of(uint64_t key)
{
    if (key == m_lastKey) return sums[m_last];
    bool added = false;
    m_last = m_index.findOrAdd(key, uint32_t(keys.size()), &added);
    m_lastKey = key;
    if (added) keys.push_back(key), sums.emplace_back();
    return sums[m_last];
}

void SyscallsPlugin::Tally::add(const Call& c, EventRef exitEvent, SumsCache* cache)
{
    if (cache) {
        auto& places = cache->places;
        size_t i = 0;
        while (i < places.size() && places[i].first != c.name) ++i;
        if (i == places.size()) {
            // New in this tally: the cache holds every key of its pid here (see SumsCache).
            places.emplace_back(c.name, uint32_t(keys.size()));
            keys.push_back(uint64_t(uint32_t(c.pid)) << 32 | c.name);
            sums.emplace_back();
        } else if (i > 0) {
            std::swap(places[i], places[i - 1]);
            --i;
        }
        sums[places[i].second].add(c);
        if (cache->first == UINT32_MAX) {
            cache->first = uint32_t(firsts.size());
            firsts.emplace_back(c.pid, c.enter);
        } else {
            uint64_t& first = firsts[cache->first].second;
            first = std::min(first, c.enter);
        }
    } else {
        of(uint64_t(uint32_t(c.pid)) << 32 | c.name).add(c);
        noteFirst(c.pid, c.enter);
    }
    if (c.failed())
        failures.push_back({c.exit, c.enterSeen ? int64_t(c.exit - c.enter) : StatsTable::kUnknown, exitEvent, c.pid,
                            uint16_t(c.name), int16_t(c.ret)});
}

void SyscallsPlugin::Tally::add(Tally&& o)
{
    for (size_t i = 0; i < o.keys.size(); ++i) of(o.keys[i]).add(o.sums[i]);
    for (const auto& [pid, time] : o.firsts) noteFirst(pid, time);
    for (const Failure& f : o.failures) failures.push_back(f);
    o = Tally();
}

// ---- The plugin

std::string SyscallsPlugin::description() const
{
    return "System calls as slices on the task rows, failures by errno name, statistics per system call and task";
}

std::vector<EventRequest> SyscallsPlugin::requests() const
{
    // A system call's number is an int kept in a long: 4 bytes of it are the number.
    return {
        {"raw_syscalls", "sys_enter", {"id"}, false, {4}},
        {"raw_syscalls", "sys_exit", {"id", "ret"}, false, {4}},
        {"syscalls", kEnterPrefix, {"__syscall_nr"}, true, {4}},
        {"syscalls", kExitPrefix, {"__syscall_nr", "ret"}, true, {4}},
        // Kernels before 5.x name the number field "nr".
        {"syscalls", kEnterPrefix, {"nr"}, true, {4}},
        {"syscalls", kExitPrefix, {"nr", "ret"}, true, {4}},
        // When a task leaves its CPU inside a call, its return may come on another one.
        {"sched", "sched_switch", {"prev_pid"}},
    };
}

void SyscallsPlugin::setRecording(const RecordingInfo& info)
{
    m_info = info;
    m_arch = architectureOf(info.machine);
}

void SyscallsPlugin::setTables(TableSink& tables)
{
    // Both kinds of exit events name the return value `ret`: read from the event when shown.
    m_slices = &tables.slices({"syscalls", "System calls", RowOwner::Task, "", "ret", 0x555566, true});
}

void SyscallsPlugin::bind(const std::vector<bool>& bound)
{
    m_bound = bound;
    auto any = [&](std::initializer_list<size_t> requests) {
        for (size_t r : requests)
            if (r < bound.size() && bound[r]) return true;
        return false;
    };
    m_bothKinds = any({kRawEnter, kRawExit}) && any({kEnter, kExit, kEnterOld, kExitOld});
}

SyscallsPlugin::SyscallsPlugin() = default;
SyscallsPlugin::~SyscallsPlugin() = default;

uint16_t SyscallsPlugin::nameId(const std::string& name)
{
    constexpr size_t kMostNames = 0xffff;
    const std::lock_guard lock(m_namesLock);
    auto found = m_nameIds.find(name);
    if (found != m_nameIds.end()) return found->second;
    const std::string& kept = m_names.size() + 1 >= kMostNames ? std::string("(other system calls)") : name;
    found = m_nameIds.find(kept);
    if (found != m_nameIds.end()) return found->second;
    m_names.push_back(kept);
    // The table's labels are added in the same order: a name's id is its label's.
    if (m_slices) m_slices->label(kept);
    return m_nameIds.emplace(kept, uint16_t(m_names.size() - 1)).first->second;
}

int SyscallsPlugin::cpuOf(StreamId stream) const
{
    return stream.valid() && stream.value < m_streams.size() ? m_streams[stream.value].cpu : -1;
}

void SyscallsPlugin::addToTable(const PendingCall& p, Tally& tally, uint32_t owner, SumsCache* cache,
                                AnchoredSliceRows* anchored)
{
    Call c;
    c.enter = p.enter;
    c.exit = p.exitSeen ? p.exit : p.enter;
    c.ret = p.ret;
    c.pid = p.pid;
    c.name = p.name;
    c.stream = p.exitSeen ? p.exitEvent.stream : p.enterEvent.stream;
    c.enterSeen = p.enterSeen;
    c.exitSeen = p.exitSeen;
    // Anchored at its events, straight into its stretch's rows (11M calls on 23M events): what
    // SliceSink::add keeps of such a slice.
    const bool direct =
        anchored && p.exitSeen && (!p.enterSeen || p.enterEvent.index <= p.exitEvent.index) &&
        anchored->add(p.exitEvent.index, p.enterSeen ? p.exitEvent.index - p.enterEvent.index : 0, c.name,
                      uint8_t((c.failed() ? Slice::kError : 0) | (p.enterSeen ? 0 : Slice::kNoStart)));
    if (m_slices && !direct) {
        Slice s;
        s.start = c.enterSeen ? c.enter : c.exit;
        s.end = c.exit;
        s.owner = owner;
        s.label = c.name;
        s.value = c.ret;
        s.flags = uint8_t((c.failed() ? Slice::kError : 0) | (c.exitSeen ? 0 : Slice::kOpen) |
                          (c.enterSeen ? 0 : Slice::kNoStart));
        if (c.enterSeen) s.startEvent = p.enterEvent;
        if (c.exitSeen) s.endEvent = p.exitEvent;
        m_slices->add(s);
    }
    tally.add(c, p.exitSeen ? p.exitEvent : EventRef(), cache);
    if (m_observer) m_observer(c);
}

// ---- A piece: one stretch's records, paired as they come

class SyscallsPlugin::Piece : public StreamPiece {
public:
    // The piece fed in merged order keeps this stream key.
    static constexpr uint32_t kEveryStream = UINT32_MAX;

    Piece(SyscallsPlugin& plugin, uint32_t streamKey) : m_plugin(plugin), m_streamKey(streamKey) {}
    void consume(const ConsumedRecord& record) override;
    void end() override
    {
        finish();
        m_ended = true; // the stretch's rows are placed after this
        m_anchored = nullptr;
        // Held until the statistics, without the room they grew into (a third of them): a piece
        // at a time on the parser's threads, not all at once at the join.
        m_tally.keys.shrink_to_fit(), m_tally.sums.shrink_to_fit(), m_tally.firsts.shrink_to_fit();
        // So are the calls that wait for the join (a blocking call is two of them, its orphan
        // and its unreturned entry: half a million on 23M events); nothing adds to the tally
        // any more.
        m_calls.shrink_to_fit(), m_orphans.shrink_to_fit(), m_unreturned.shrink_to_fit();
        std::vector<uint32_t>().swap(m_free);
        for (auto& [pid, task] : m_tasks) std::vector<std::pair<uint32_t, uint32_t>>().swap(task.sums.places);
    }

    size_t size() const { return m_calls.size(); }
    PendingCall& at(size_t i) { return m_calls[i]; }
    const PendingCall& at(size_t i) const { return m_calls[i]; }

private:
    friend class SyscallsPlugin;
    struct TaskState {
        int64_t open = -1;       // the call entered and not yet returned
        int64_t lastExited = -1; // the call that returned last, while no other was entered
        bool lastClean = false;  // ... entered and returned here without the task leaving the CPU
        int64_t openNumber = 0, lastExitedNumber = 0;
        uint8_t openKinds = 0, exitKinds = 0; // the kinds of events seen of them (Kind)
        uint64_t lastEnter = 0;
        int64_t firstEnter = -1; // the call the task's first record entered, if it was an entry
        uint64_t firstEnterTime = 0; // ... and when: once in the table its place holds another call
        int64_t firstNumber = 0;
        uint8_t firstKind = 0;
        bool seen = false;
        bool left = false;          // it left the CPU after its last entry here
        size_t deferred = SIZE_MAX; // its call whose return was left to join(), in m_unreturned
        SumsCache sums;             // in m_tally
    };
    // Which kind of event a record is: both kinds may record one call.
    enum Kind : uint8_t { kRaw = 1, kEvent = 2 };

    void enter(const ConsumedRecord& record, int64_t number, int64_t nameFromEvent, Kind kind);
    void exit(const ConsumedRecord& record, int64_t number, int64_t ret, int64_t nameFromEvent, Kind kind);
    size_t addCall(const ConsumedRecord& record, uint16_t name, bool entered, int64_t number);
    // The task's last call returned here cleanly and can change no more: into the table, and
    // its slot free. A task's first call waits for join() (its other event may end the
    // stretch before).
    void settle(TaskState& task);
    TaskState& taskOf(const ConsumedRecord& record);
    uint16_t numberName(int64_t number);
    uint16_t nameOf(int64_t number, int64_t nameFromEvent)
    {
        return nameFromEvent >= 0 ? uint16_t(nameFromEvent) : numberName(number);
    }
    int64_t nameOfEvent(uint16_t type, const char* prefix);
    size_t unreturned(const TaskState& task, uint64_t until = UINT64_MAX);
    // The end of the stretch: calls still open become unreturned.
    void finish();
    // Its events' indexes, counted from the stretch's start, placed in the stream.
    void place(uint32_t firstIndex);
    // After a join: only the calls a later join may still meet keep their place (most are in
    // the table by then; a kept piece held them all until the load's end, 16 MB on 23M events).
    void compact(std::initializer_list<std::vector<Unreturned>*> open);

    SyscallsPlugin& m_plugin;
    uint32_t m_streamKey;
    std::vector<PendingCall> m_calls; // not yet in the table
    std::vector<uint32_t> m_free;     // slots of calls put in the table
    std::unordered_map<int32_t, TaskState> m_tasks;
    std::vector<std::pair<int32_t, TaskState*>> m_lastTask; // per stream: the last task seen
    std::vector<int32_t> m_numberNames;                     // name id by number, -1 until first seen
    std::unordered_map<uint16_t, int64_t> m_eventNames;     // by event type
    std::vector<Unreturned> m_unreturned;
    std::vector<Orphan> m_orphans;
    Tally m_tally;
    size_t m_added = 0;
    AnchoredSliceRows* m_anchored = nullptr; // the stretch's rows of the table, while fed
    bool m_ended = false;
    bool m_sawCall = false;
    bool m_finished = false;
    bool m_placed = false;
};

uint16_t SyscallsPlugin::Piece::numberName(int64_t number)
{
    if (number < 0 || number >= 4096) return m_plugin.nameId(syscallName(m_plugin.m_arch, number));
    if (m_numberNames.empty()) m_numberNames.assign(4096, -1);
    int32_t& id = m_numberNames[size_t(number)];
    if (id < 0) id = m_plugin.nameId(syscallName(m_plugin.m_arch, number));
    return uint16_t(id);
}

int64_t SyscallsPlugin::Piece::nameOfEvent(uint16_t type, const char* prefix)
{
    auto [it, added] = m_eventNames.try_emplace(type, -1);
    if (added && m_plugin.m_info.eventName) {
        const std::string event = m_plugin.m_info.eventName(type);
        const std::string p = prefix;
        if (event.size() > p.size() && event.compare(0, p.size(), p) == 0)
            it->second = m_plugin.nameId(event.substr(p.size()));
    }
    return it->second;
}

SyscallsPlugin::Piece::TaskState& SyscallsPlugin::Piece::taskOf(const ConsumedRecord& record)
{
    // Records of one CPU mostly come from the task running there: one lookup per switch.
    if (record.stream.value >= m_lastTask.size()) m_lastTask.resize(record.stream.value + 1u, {-1, nullptr});
    auto& [pid, state] = m_lastTask[record.stream.value];
    if (pid != record.pid || !state) {
        if (state) state->left = true; // another task ran on this CPU since
        pid = record.pid;
        state = &m_tasks[record.pid]; // nodes of an unordered_map never move
    }
    return *state;
}

// Everything it calls inlined into it (11M calls: the calls between its steps cost 2% of the load's CPU).
__attribute__((flatten)) void SyscallsPlugin::Piece::consume(const ConsumedRecord& record)
{
    // Written once per piece: a store per record would bounce the flag's cache line between the
    // parser's threads.
    if (record.request != kSwitch && !m_sawCall) m_sawCall = true, m_plugin.m_any.store(true, std::memory_order_relaxed);
    switch (record.request) {
    case kRawEnter: enter(record, record.field(0).asSigned(), -1, kRaw); break;
    case kRawExit: exit(record, record.field(0).asSigned(), record.field(1).asSigned(), -1, kRaw); break;
    case kEnter:
    case kEnterOld: enter(record, record.field(0).asSigned(), nameOfEvent(record.type, kEnterPrefix), kEvent); break;
    case kExit:
    case kExitOld:
        exit(record, record.field(0).asSigned(), record.field(1).asSigned(), nameOfEvent(record.type, kExitPrefix),
             kEvent);
        break;
    case kSwitch: {
        auto task = m_tasks.find(int32_t(record.field(0).asSigned()));
        if (task != m_tasks.end()) task->second.left = true;
        break;
    }
    default: break;
    }
}

size_t SyscallsPlugin::Piece::addCall(const ConsumedRecord& record, uint16_t name, bool entered, int64_t number)
{
    size_t slot = m_calls.size();
    if (!m_free.empty()) {
        slot = m_free.back();
        m_free.pop_back();
    } else {
        m_calls.emplace_back();
    }
    // Written field by field in place: a call built aside and copied in, even a default one
    // (narrow stores read back as wide loads), stalled on every call.
    PendingCall& call = m_calls[slot];
    call.enter = record.timestamp;
    call.exit = 0;
    call.ret = 0;
    call.enterEvent = entered ? EventRef{record.stream, record.index} : EventRef{};
    call.exitEvent = EventRef{};
    call.pid = record.pid;
    call.number = int32_t(number);
    call.name = name;
    call.enterSeen = entered;
    call.exitSeen = false;
    call.joined = false;
    return slot;
}

void SyscallsPlugin::Piece::settle(TaskState& task)
{
    // A task's first call may have its other kind of entry event at the end of the stretch
    // before (when both kinds are recorded): join() decides.
    if (task.lastExited < 0 || !task.lastClean || (task.lastExited == task.firstEnter && m_plugin.m_bothKinds))
        return;
    const PendingCall& call = m_calls[size_t(task.lastExited)];
    const auto& taskAt = m_plugin.m_info.taskAt;
    const uint32_t owner = m_streamKey != kEveryStream ? kNoTask
                           : taskAt                    ? taskAt(call.pid, call.enter)
                                                       : uint32_t(call.pid);
    // A stream's piece is fed inside its stretch: its rows go there.
    if (m_streamKey != kEveryStream && !m_anchored && m_plugin.m_slices && !m_ended)
        m_anchored = m_plugin.m_slices->anchoredRows();
    m_plugin.addToTable(call, m_tally, owner, &task.sums, m_anchored); // null once ended
    ++m_added;
    m_calls[size_t(task.lastExited)].joined = true; // in the table: no join emits it again
    m_free.push_back(uint32_t(task.lastExited));
    task.lastExited = -1;
    task.lastClean = false;
}

void SyscallsPlugin::Piece::enter(const ConsumedRecord& record, int64_t number, int64_t nameFromEvent, Kind kind)
{
    TaskState& task = taskOf(record);
    const bool first = !task.seen;
    task.seen = true;
    if (task.open >= 0 && task.openNumber == number && !(task.openKinds & kind)) {
        // The same entry seen through the other kind of event (raw_syscalls and syscalls).
        if (nameFromEvent >= 0) at(size_t(task.open)).name = uint16_t(nameFromEvent);
        task.openKinds |= kind;
        return;
    }
    settle(task); // the call before can no longer take another event
    // A call that never returned (exit_group, or its exit was lost) stays open.
    if (task.open >= 0) unreturned(task, record.timestamp);
    if (task.deferred != SIZE_MAX) m_unreturned[task.deferred].until = record.timestamp, task.deferred = SIZE_MAX;
    const size_t index = addCall(record, nameOf(number, nameFromEvent), true, number);
    task.left = false;
    task.open = int64_t(index);
    task.openNumber = number;
    task.openKinds = kind;
    task.lastExited = -1;
    task.lastClean = false;
    task.lastEnter = record.timestamp;
    if (first)
        task.firstEnter = int64_t(index), task.firstEnterTime = record.timestamp, task.firstKind = kind,
        task.firstNumber = number;
}

void SyscallsPlugin::Piece::exit(const ConsumedRecord& record, int64_t number, int64_t ret, int64_t nameFromEvent,
                                 Kind kind)
{
    TaskState& task = taskOf(record);
    const bool first = !task.seen;
    task.seen = true;
    if (task.open < 0 && task.lastExited >= 0 && task.lastExitedNumber == number && !(task.exitKinds & kind)) {
        // The same return seen through the other kind of event.
        if (nameFromEvent >= 0) at(size_t(task.lastExited)).name = uint16_t(nameFromEvent);
        task.exitKinds |= kind;
        return;
    }
    settle(task);
    // rt_sigreturn (and a call whose number a tracer changed) returns as NR -1: it ends the
    // call that was entered.
    const bool matches = task.open >= 0 && (task.openNumber == number || number < 0);
    bool clean = matches && !task.left;
    if (!clean) {
        uint64_t lastEnter = task.lastEnter;
        if (task.open >= 0 && matches) {
            // The task left this CPU inside the call: this may be the return of a call it
            // entered elsewhere meanwhile, and the call entered here may have returned there.
            // join() decides, by time.
            task.deferred = unreturned(task);
            lastEnter = at(size_t(task.open)).enter - 1; // the entry here may still be the one
        } else if (task.open >= 0) {
            unreturned(task, record.timestamp);
        }
        // Entered before the stretch began (before the recording, or in another piece), or
        // deferred as above.
        task.open = int64_t(addCall(record, nameOf(number, nameFromEvent), false, number));
        task.openNumber = number;
        m_orphans.push_back({lastEnter, uint32_t(task.open), kind, first});
    }
    PendingCall& call = at(size_t(task.open));
    call.exitSeen = true;
    call.exit = std::max(record.timestamp, call.enter);
    call.exitEvent = {record.stream, record.index};
    call.ret = ret;
    if (nameFromEvent >= 0) call.name = uint16_t(nameFromEvent);
    task.lastExited = task.open;
    task.lastClean = clean;
    task.lastExitedNumber = task.openNumber;
    task.exitKinds = kind;
    task.open = -1;
}

size_t SyscallsPlugin::Piece::unreturned(const TaskState& task, uint64_t until)
{
    const size_t call = size_t(task.open);
    m_unreturned.push_back({{this, uint32_t(call)}, until});
    return m_unreturned.size() - 1;
}

void SyscallsPlugin::Piece::finish()
{
    if (m_finished) return;
    m_finished = true;
    for (auto& [pid, task] : m_tasks) {
        if (task.open >= 0) unreturned(task);
        // Its last call can meet no other kind of its exit event at the next stretch's start
        // when only one kind is recorded: into the table now.
        if (!m_plugin.m_bothKinds && task.open < 0) settle(task);
    }
}

void SyscallsPlugin::Piece::place(uint32_t firstIndex)
{
    if (m_placed) return;
    m_placed = true;
    if (m_streamKey == kEveryStream || firstIndex == 0) return;
    auto shift = [&](EventRef& e) {
        if (e.valid()) e.index += firstIndex;
    };
    for (PendingCall& c : m_calls) shift(c.enterEvent), shift(c.exitEvent);
    for (Failure& f : m_tally.failures) shift(f.exitEvent);
}

void SyscallsPlugin::Piece::compact(std::initializer_list<std::vector<Unreturned>*> open)
{
    std::vector<bool> keep(m_calls.size());
    for (size_t i = 0; i < m_calls.size(); ++i) keep[i] = !m_calls[i].joined;
    // A call in the table a task still names stays too: the other kind of its exit event at
    // the next stretch's start is recognised by it.
    auto named = [&](int64_t call) {
        if (call >= 0) keep[size_t(call)] = true;
    };
    for (const auto& [pid, task] : m_tasks) named(task.open), named(task.lastExited), named(task.firstEnter);
    for (const std::vector<Unreturned>* list : open)
        for (const Unreturned& u : *list)
            if (u.call.piece == this) keep[u.call.index] = true;
    std::vector<uint32_t> to(m_calls.size()); // a kept call's new place
    std::vector<PendingCall> kept;
    kept.reserve(size_t(std::count(keep.begin(), keep.end(), true)));
    for (size_t i = 0; i < m_calls.size(); ++i)
        if (keep[i]) to[i] = uint32_t(kept.size()), kept.push_back(m_calls[i]);
    m_calls = std::move(kept);
    auto moved = [&](int64_t& call) {
        if (call >= 0) call = to[size_t(call)];
    };
    for (auto& [pid, task] : m_tasks) moved(task.open), moved(task.lastExited), moved(task.firstEnter);
    for (std::vector<Unreturned>* list : open)
        for (Unreturned& u : *list)
            if (u.call.piece == this) u.call.index = to[u.call.index];
    // Joined: the rest of its pairing state goes (end() let go of its free slots and caches).
    std::vector<Unreturned>().swap(m_unreturned);
    std::vector<Orphan>().swap(m_orphans);
}

// ---- Joining pieces

const SyscallsPlugin::PendingCall& SyscallsPlugin::Unreturned::pending() const
{
    return call.piece->at(call.index);
}

std::unique_ptr<StreamPiece> SyscallsPlugin::newPiece(StreamId stream)
{
    return std::make_unique<Piece>(*this, stream.value);
}

void SyscallsPlugin::consume(const ConsumedRecord& record)
{
    if (!m_merged) m_merged = std::make_unique<Piece>(*this, Piece::kEveryStream);
    m_merged->consume(record);
}

void SyscallsPlugin::flush()
{
    if (!m_merged) return;
    m_merged->end(); // as the registry ends a stream's pieces before their join
    std::vector<FedPiece> pieces;
    pieces.push_back({StreamId(), 0, std::move(m_merged)});
    join(std::move(pieces));
}

SyscallsPlugin::Piece* SyscallsPlugin::pieceOf(StreamPiece* piece) const
{
    auto* own = dynamic_cast<Piece*>(piece);
    if (!own || &own->m_plugin != this)
        throw std::invalid_argument("syscalls: join() was given another plugin's piece");
    return own;
}

void SyscallsPlugin::merge(CallRef into, CallRef from, bool nameFromEvent)
{
    PendingCall& target = into.piece->at(into.index);
    PendingCall& source = from.piece->at(from.index);
    if (nameFromEvent) target.name = source.name;
    if (source.exitSeen && !target.exitSeen) {
        target.exitSeen = true;
        target.exit = std::max(source.exit, target.enter);
        target.exitEvent = source.exitEvent;
        target.ret = source.ret;
    }
    source.joined = true;
}

void SyscallsPlugin::joinStretches(Piece& earlier, Piece& later, std::vector<Unreturned>& open,
                                   std::pair<size_t, size_t> ofEarlier)
{
    // A task's first record a return: the other event of a return the earlier stretch ended
    // with? (Else pairAcrossPieces() pairs it with an entry.)
    for (const Orphan& orphan : later.m_orphans) {
        if (!orphan.first) continue;
        const PendingCall& returned = later.at(orphan.call);
        auto found = earlier.m_tasks.find(returned.pid);
        if (found == earlier.m_tasks.end()) continue;
        const Piece::TaskState& before = found->second;
        if (before.open < 0 && before.lastExited >= 0 && before.lastExitedNumber == returned.number &&
            !(before.exitKinds & orphan.kind))
            merge({&earlier, uint32_t(before.lastExited)}, {&later, orphan.call}, orphan.kind == Piece::kEvent);
    }
    // A task's first record an entry: the other event of the entry the earlier stretch ended
    // with, or the end of that call's chances to return later.
    std::unordered_map<int32_t, size_t> openAtEnd;
    for (size_t u = ofEarlier.first; u < ofEarlier.second; ++u)
        if (open[u].call.piece == &earlier && open[u].until == UINT64_MAX) openAtEnd[open[u].pending().pid] = u;
    for (auto& [pid, task] : later.m_tasks) {
        auto found = earlier.m_tasks.find(pid);
        auto atEnd = openAtEnd.find(pid);
        if (task.firstEnter < 0 || found == earlier.m_tasks.end() || atEnd == openAtEnd.end()) continue;
        Unreturned& entry = open[atEnd->second];
        const CallRef entered{&later, uint32_t(task.firstEnter)};
        if (entry.pending().number == task.firstNumber && !(found->second.openKinds & task.firstKind)) {
            // The entry's other event, split from it by the stretch's start: one call.
            merge(entry.call, entered, task.firstKind == Piece::kEvent);
            for (Unreturned& u : open)
                if (u.call == entered) u.call = entry.call;
            if (entry.call.piece->at(entry.call.index).exitSeen) entry.until = 0;
        } else {
            entry.until = task.firstEnterTime; // it entered another call first
        }
    }
}

void SyscallsPlugin::pairAcrossPieces(std::vector<Piece*>& pieces, std::vector<Unreturned>& open)
{
    // The unreturned entries by task and time; each return without an entry takes the latest
    // one of its task before it, if that one was not followed by another entry first.
    struct Key {
        int32_t pid;
        uint64_t enter;
        size_t entry; // in open
        bool operator<(const Key& o) const { return pid != o.pid ? pid < o.pid : enter < o.enter; }
    };
    std::vector<Key> keys;
    keys.reserve(open.size());
    for (size_t u = 0; u < open.size(); ++u) keys.push_back({open[u].pending().pid, open[u].pending().enter, u});
    std::sort(keys.begin(), keys.end());
    for (Piece* piece : pieces) {
        for (const Orphan& orphan : piece->m_orphans) {
            const PendingCall& returned = piece->at(orphan.call);
            if (returned.joined) continue;
            auto after = std::lower_bound(keys.begin(), keys.end(), Key{returned.pid, returned.exit, 0});
            if (after == keys.begin() || (after - 1)->pid != returned.pid) continue;
            Unreturned& entry = open[(after - 1)->entry];
            const PendingCall& entered = entry.pending();
            if (entered.exitSeen || entered.joined || returned.exit >= entry.until ||
                entered.enter <= orphan.lastEnter || (entered.number != returned.number && returned.number >= 0))
                continue;
            merge(entry.call, {piece, orphan.call}, orphan.kind == Piece::kEvent);
            entry.until = 0;
        }
    }
}

void SyscallsPlugin::decided(PendingCall& call)
{
    addToTable(call, m_tally, m_decidedLives.at(call.pid, call.enterSeen ? call.enter : call.exit));
    ++m_callCount;
    call.joined = true; // in the table
}

void SyscallsPlugin::join(std::vector<FedPiece> fed)
{
    std::vector<Piece*> pieces;
    for (FedPiece& f : fed) {
        Piece* piece = pieceOf(f.piece.get());
        f.piece.release();
        m_pieces.emplace_back(piece);
        piece->finish();
        piece->place(f.firstIndex);
        m_callCount += piece->m_added;
        Tally& sums = piece->m_tally;
        keepFailures(sums.failures);
        if (!sums.keys.empty()) m_pieceTallies.push_back(std::move(sums));
        sums.clear();
        pieces.push_back(piece);
    }
    // What may still return: the last join's unreturned entries, then the new pieces'.
    std::vector<Unreturned> open = std::move(m_open);
    std::unordered_map<const Piece*, std::pair<size_t, size_t>> ranges; // each new piece's entries in open
    std::vector<Piece*> earlierPieces;
    for (Piece* piece : pieces) {
        Piece*& earlier = m_lastOfStream[piece->m_streamKey];
        ranges[piece] = {open.size(), open.size() + piece->m_unreturned.size()};
        open.insert(open.end(), piece->m_unreturned.begin(), piece->m_unreturned.end());
        piece->m_unreturned.clear();
        if (earlier) {
            // An earlier piece of a previous join has its entries anywhere in what it left.
            auto range = ranges.find(earlier);
            joinStretches(*earlier, *piece, open,
                          range != ranges.end() ? range->second : std::pair<size_t, size_t>(0, open.size()));
            earlierPieces.push_back(earlier);
        }
        earlier = piece;
    }
    pairAcrossPieces(pieces, open);
    for (Piece* piece : pieces) piece->m_orphans.clear();
    // Entries still open may return in a later batch.
    std::vector<Unreturned> stillOpen;
    for (const Unreturned& u : open) {
        const PendingCall& c = u.call.piece->at(u.call.index);
        if (u.until == UINT64_MAX && !c.exitSeen && !c.joined) stillOpen.push_back(u);
    }
    // What is decided goes into the table: every pending call of these pieces that is neither
    // joined into another nor still open, and the calls of earlier pieces that this join
    // closed (the last one each task returned in a stretch, a call that returned here).
    auto settleAll = [&](Piece* piece, bool keepTasksLast) {
        std::vector<bool> waiting(piece->size(), false);
        for (const Unreturned& u : stillOpen)
            if (u.call.piece == piece) waiting[u.call.index] = true;
        // The last call each task returned in the latest stretch of its stream may still meet
        // the other kind of its exit event at the next stretch's start.
        if (keepTasksLast)
            for (const auto& [pid, task] : piece->m_tasks)
                if (task.open < 0 && task.lastExited >= 0) waiting[size_t(task.lastExited)] = true;
        for (size_t i = 0; i < piece->size(); ++i) {
            PendingCall& c = piece->at(i);
            if (!c.joined && !waiting[i] && (c.enterSeen || c.exitSeen)) decided(c);
        }
    };
    // Each piece gives up its decided calls as soon as they are in the table: the table's new
    // rows and the calls they came from were held at once, the load's peak on 23M events.
    for (Piece* piece : earlierPieces) {
        // Its stretch's state was needed by the next one only.
        settleAll(piece, false);
        piece->m_tasks.clear();
        piece->m_lastTask.clear();
        piece->compact({&open, &stillOpen});
    }
    for (Piece* piece : pieces) {
        settleAll(piece, m_lastOfStream[piece->m_streamKey] == piece);
        piece->compact({&open, &stillOpen});
    }
    // Entries of pieces older still that this join decided: a return found for them here, or
    // their task entered another call first.
    for (const Unreturned& u : open) {
        PendingCall& c = u.call.piece->at(u.call.index);
        if (!c.joined && (u.until != UINT64_MAX || c.exitSeen)) decided(c);
    }
    m_open = std::move(stillOpen);
    // Pieces with nothing left to pair go.
    std::vector<std::unique_ptr<Piece>> kept;
    for (auto& piece : m_pieces) {
        bool needed = false;
        for (const auto& [key, last] : m_lastOfStream) needed = needed || last == piece.get();
        for (const Unreturned& u : m_open) needed = needed || u.call.piece == piece.get();
        if (needed) kept.push_back(std::move(piece));
    }
    m_pieces = std::move(kept);
    for (auto& piece : m_pieces) piece->compact({&m_open});
    // A capture joins a batch at a time: its many small tallies repeat keys, so they are added
    // up now and then.
    constexpr size_t kMostTallies = 64;
    if (m_pieceTallies.size() > kMostTallies) {
        for (Tally& t : m_pieceTallies) m_tally.add(std::move(t));
        std::vector<Tally>().swap(m_pieceTallies);
    }
    keepFailures(m_tally.failures);
}

void SyscallsPlugin::keepFailures(ChunkedList<Failure>& list)
{
    if (list.empty()) return;
    // In place: a stable sort's buffer of hundreds of thousands of failures came at the load's peak.
    std::sort(list.begin(), list.end(), Failure::before);
    m_failures.push_back(std::move(list));
    list.clear();
    // A capture joins batch after batch: its short lists become one now and then.
    constexpr size_t kMostLists = 64;
    if (m_failures.size() > kMostLists) {
        ChunkedList<Failure> one;
        for (auto& l : m_failures) {
            for (const Failure& f : l) one.push_back(f);
            l.clear();
        }
        std::sort(one.begin(), one.end(), Failure::before);
        m_failures.clear();
        m_failures.push_back(std::move(one));
    }
}

void SyscallsPlugin::finish()
{
    // Entered and never returned (exit_group, or the recording ended inside them), and the
    // last calls kept for a next stretch that will not come.
    for (const auto& piece : m_pieces)
        for (size_t i = 0; i < piece->size(); ++i) {
            PendingCall& c = piece->at(i);
            if (!c.joined && (c.enterSeen || c.exitSeen)) decided(c);
        }
    keepFailures(m_tally.failures);
    m_pieces.clear();
    m_open.clear();
    m_lastOfStream.clear();
    m_decidedLives.clear();
}

std::string SyscallsPlugin::nothingToShow() const
{
    if (m_any) return {};
    const bool anyBound = std::find(m_bound.begin(), m_bound.begin() + std::min<long>(kSwitch, long(m_bound.size())),
                                    true) != m_bound.begin() + std::min<long>(kSwitch, long(m_bound.size()));
    return anyBound ? "the recording's raw_syscalls and syscalls events have no records"
                    : "the recording has no raw_syscalls or syscalls events";
}

} // namespace ringside::syscalls
