// SPDX-License-Identifier: GPL-2.0-or-later
#include "syscallsplugin.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <unordered_map>

namespace ringside::syscalls {

namespace {

// The requests, in this order.
enum Request : size_t { kRawEnter, kRawExit, kEnter, kExit, kEnterOld, kExitOld, kSwitch, kRequests };

constexpr const char* kEnterPrefix = "sys_enter_";
constexpr const char* kExitPrefix = "sys_exit_";

} // namespace

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
    m_arch = architectureOf(info.machine);
    m_eventName = info.eventName;
}

void SyscallsPlugin::bind(const std::vector<bool>& bound)
{
    m_bound = bound;
}

SyscallsPlugin::SyscallsPlugin() = default;
SyscallsPlugin::~SyscallsPlugin() = default;

uint16_t SyscallsPlugin::nameId(const std::string& name)
{
    constexpr size_t kMostNames = (1 << 13) - 1;
    const std::lock_guard lock(m_namesLock);
    auto found = m_nameIds.find(name);
    if (found != m_nameIds.end()) return found->second;
    const std::string& kept = m_names.size() + 1 >= kMostNames ? std::string("(other system calls)") : name;
    found = m_nameIds.find(kept);
    if (found != m_nameIds.end()) return found->second;
    m_names.push_back(kept);
    return m_nameIds.emplace(kept, uint16_t(m_names.size() - 1)).first->second;
}

int SyscallsPlugin::cpuOf(uint32_t streamPlusOne) const
{
    const size_t stream = size_t(streamPlusOne) - 1;
    return streamPlusOne && stream < m_streams.size() ? m_streams[stream].cpu : -1;
}

namespace {

// Stored values that mean "kept aside".
constexpr uint32_t kWideTime = UINT32_MAX;
// Stored durations and returns past these are indexes into lists of the values that did not
// fit (a wait of seconds, an mmap's address): rare, and a list costs less than a map.
constexpr uint32_t kWideDurations = UINT32_MAX - (uint32_t(1) << 30) + 1; // 3.2 s and more
constexpr int32_t kWideReturns = INT32_MIN / 2;                           // -2^30 and less
constexpr size_t kMostWide = size_t(1) << 30;
constexpr uint16_t kWideTask = UINT16_MAX;

} // namespace

// ---- A piece: one stretch's records, paired as they come

uint16_t SyscallsPlugin::Piece::nameOf(int64_t number, int64_t nameFromEvent)
{
    return nameFromEvent >= 0 ? uint16_t(nameFromEvent) : numberName(number);
}

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
    if (added && m_plugin.m_eventName) {
        const std::string event = m_plugin.m_eventName(type);
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
        auto [it, added] = m_tasks.try_emplace(record.pid);
        state = &it->second; // nodes of an unordered_map never move
        if (added) {
            state->index = m_pids.size() < kWideTask ? uint16_t(m_pids.size()) : kWideTask;
            if (state->index != kWideTask) m_pids.push_back(record.pid);
        }
    }
    return *state;
}

void SyscallsPlugin::Piece::consume(const ConsumedRecord& record)
{
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

SyscallsPlugin::Arena& SyscallsPlugin::takeArena()
{
    const std::lock_guard lock(m_arenasLock);
    for (auto& arena : m_arenas)
        if (!arena->busy) return arena->busy = true, *arena;
    m_arenas.push_back(std::make_unique<Arena>());
    m_arenas.back()->busy = true;
    return *m_arenas.back();
}

void SyscallsPlugin::giveBack(Arena& arena)
{
    const std::lock_guard lock(m_arenasLock);
    arena.busy = false;
}

SyscallsPlugin::Piece::Piece(SyscallsPlugin& plugin, uint32_t streamKey)
    : m_plugin(plugin), m_streamKey(streamKey), m_arena(&plugin.takeArena()), m_begin(m_arena->calls.size())
{}

SyscallsPlugin::Piece::~Piece()
{
    end();
}

void SyscallsPlugin::Piece::end()
{
    if (m_ended) return;
    m_end = m_arena->calls.size();
    m_ended = true;
    m_plugin.giveBack(*m_arena);
}

void SyscallsPlugin::Piece::setEnter(size_t call, StoredCall& c, uint64_t enter)
{
    // Calls are added in time order (a stream's records): a time past the epoch's 4.3 s starts
    // the next epoch at the newest call; one out of order is kept aside.
    if (m_epochs.empty() || (enter >= m_epochs.back().second + kWideTime && call + 1 >= size()))
        m_epochs.emplace_back(call, enter);
    const uint64_t base = m_epochs.back().second;
    if (enter >= base && enter - base < kWideTime) {
        c.enter = uint32_t(enter - base);
        return;
    }
    c.enter = kWideTime;
    m_wideEnters.set(call, enter);
}
uint64_t SyscallsPlugin::Piece::epochOf(size_t call) const
{
    if (call >= m_epochs.back().first) return m_epochs.back().second; // most calls
    auto epoch = std::upper_bound(m_epochs.begin(), m_epochs.end(), call,
                                  [](size_t i, const std::pair<size_t, uint64_t>& e) { return i < e.first; });
    return (epoch - 1)->second;
}

uint64_t SyscallsPlugin::Piece::enterOf(size_t call, const StoredCall& c) const
{
    return c.enter == kWideTime ? *m_wideEnters.find(call) : epochOf(call) + c.enter;
}

void SyscallsPlugin::Piece::setExit(size_t call, StoredCall& c, uint64_t exit)
{
    const uint64_t duration = exit - enterOf(call, c);
    if (duration < kWideDurations) {
        c.duration = uint32_t(duration);
    } else if (c.duration >= kWideDurations) {
        m_wideDurationValues[c.duration - kWideDurations] = duration;
    } else {
        if (m_wideDurationValues.size() == kMostWide) throw std::length_error("syscalls: too many long calls");
        c.duration = kWideDurations + uint32_t(m_wideDurationValues.size());
        m_wideDurationValues.push_back(duration);
    }
}

uint64_t SyscallsPlugin::Piece::durationOf(const StoredCall& c) const
{
    return c.duration >= kWideDurations ? m_wideDurationValues[c.duration - kWideDurations] : c.duration;
}

uint64_t SyscallsPlugin::Piece::exitOf(size_t call) const
{
    const StoredCall& c = at(call);
    return enterOf(call, c) + durationOf(c);
}

void SyscallsPlugin::Piece::setReturn(StoredCall& c, int64_t ret)
{
    if (ret >= kWideReturns && ret <= INT32_MAX) {
        c.ret = int32_t(ret);
    } else if (c.ret < kWideReturns) {
        m_wideReturnValues[size_t(int64_t(c.ret) - INT32_MIN)] = ret;
    } else {
        if (m_wideReturnValues.size() == kMostWide) throw std::length_error("syscalls: too many wide returns");
        c.ret = int32_t(int64_t(INT32_MIN) + int64_t(m_wideReturnValues.size()));
        m_wideReturnValues.push_back(ret);
    }
}

int64_t SyscallsPlugin::Piece::returnOf(const StoredCall& c) const
{
    return c.ret < kWideReturns ? m_wideReturnValues[size_t(int64_t(c.ret) - INT32_MIN)] : c.ret;
}

int32_t SyscallsPlugin::Piece::pidOf(size_t call) const
{
    const StoredCall& c = at(call);
    return c.task == kWideTask ? int32_t(*m_widePids.find(call)) : m_pids[c.task];
}

uint32_t SyscallsPlugin::Piece::streamOf(size_t call) const
{
    if (const uint64_t* other = m_otherStreams.find(call)) return uint32_t(*other);
    return m_streamKey == kEveryStream ? 0 : m_streamKey + 1;
}

void SyscallsPlugin::Piece::setStream(size_t call, uint32_t streamPlusOne)
{
    if (m_otherStreams.size() == 0 && streamPlusOne == m_streamKey + 1) return; // most calls
    if (streamPlusOne != streamOf(call)) m_otherStreams.set(call, streamPlusOne);
}

SyscallsPlugin::Call SyscallsPlugin::Piece::call(size_t i) const
{
    const StoredCall& s = at(i);
    Call c;
    c.enter = enterOf(i, s);
    c.exit = c.enter + durationOf(s);
    c.ret = returnOf(s);
    c.pid = pidOf(i);
    c.name = s.name;
    c.cpu = m_plugin.cpuOf(streamOf(i));
    c.enterSeen = s.enterSeen;
    c.exitSeen = s.exitSeen;
    return c;
}

size_t SyscallsPlugin::Piece::addCall(const ConsumedRecord& record, const TaskState& task, uint16_t name, bool entered)
{
    StoredCall call;
    call.task = task.index;
    call.name = name & 0x1fff;
    call.enterSeen = entered;
    const size_t index = size();
    setEnter(index, call, record.timestamp);
    m_arena->calls.push_back(call);
    if (task.index == kWideTask) m_widePids.set(index, uint64_t(uint32_t(record.pid)));
    setStream(index, uint32_t(record.stream.value) + 1);
    return index;
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
    // A call that never returned (exit_group, or its exit was lost) stays open.
    if (task.open >= 0) unreturned(task, record.pid, record.timestamp);
    if (task.deferred != SIZE_MAX) m_unreturned[task.deferred].until = record.timestamp, task.deferred = SIZE_MAX;
    const size_t index = addCall(record, task, nameOf(number, nameFromEvent), true);
    task.left = false;
    task.open = int64_t(index);
    task.openNumber = number;
    task.openKinds = kind;
    task.lastExited = -1;
    task.lastEnter = record.timestamp;
    if (first) task.firstEnter = int64_t(index), task.firstKind = kind, task.firstNumber = number;
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
    // rt_sigreturn (and a call whose number a tracer changed) returns as NR -1: it ends the
    // call that was entered.
    const bool matches = task.open >= 0 && (task.openNumber == number || number < 0);
    if (!matches || task.left) {
        uint64_t lastEnter = task.lastEnter;
        if (task.open >= 0 && matches) {
            // The task left this CPU inside the call: this may be the return of a call it
            // entered elsewhere meanwhile, and the call entered here may have returned there.
            // join() decides, by time.
            task.deferred = unreturned(task, record.pid);
            lastEnter = m_unreturned[task.deferred].enter - 1; // the entry here may still be the one
        } else if (task.open >= 0) {
            unreturned(task, record.pid, record.timestamp);
        }
        // Entered before the stretch began (before the recording, or in another piece), or
        // deferred as above.
        task.open = int64_t(addCall(record, task, nameOf(number, nameFromEvent), false));
        task.openNumber = number;
        m_orphans.push_back({uint32_t(task.open), record.pid, number, record.timestamp, lastEnter, kind, first});
    }
    const size_t index = size_t(task.open);
    setStream(index, uint32_t(record.stream.value) + 1);
    StoredCall& call = at(index);
    call.exitSeen = 1;
    if (nameFromEvent >= 0) call.name = uint16_t(nameFromEvent);
    setReturn(call, ret);
    setExit(index, call, record.timestamp);
    task.lastExited = task.open;
    task.lastExitedNumber = task.openNumber;
    task.exitKinds = kind;
    task.open = -1;
}

size_t SyscallsPlugin::Piece::unreturned(const TaskState& task, int32_t pid, uint64_t until)
{
    const size_t call = size_t(task.open);
    m_unreturned.push_back({{this, uint32_t(call)}, pid, task.openNumber, enterOf(call, at(call)), until});
    return m_unreturned.size() - 1;
}

void SyscallsPlugin::Piece::finish()
{
    if (m_finished) return;
    m_finished = true;
    end();
    for (auto& [pid, task] : m_tasks)
        if (task.open >= 0) unreturned(task, pid);
}

// ---- Joining pieces

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
    Piece& to = *into.piece;
    Piece& of = *from.piece;
    StoredCall& target = to.at(into.index);
    const StoredCall& source = of.at(from.index);
    if (nameFromEvent) target.name = source.name;
    if (source.exitSeen && !target.exitSeen) {
        target.exitSeen = 1;
        to.setStream(into.index, of.streamOf(from.index));
        to.setReturn(target, of.returnOf(source));
        to.setExit(into.index, target, of.exitOf(from.index));
    }
    of.at(from.index).joined = 1;
    ++of.m_joined;
}

void SyscallsPlugin::joinStretches(Piece& earlier, Piece& later, std::vector<Unreturned>& open,
                                   std::pair<size_t, size_t> ofEarlier)
{
    // A task's first record a return: the other event of a return the earlier stretch ended
    // with? (Else pairAcrossPieces() pairs it with an entry.)
    for (const Orphan& orphan : later.m_orphans) {
        if (!orphan.first) continue;
        auto found = earlier.m_tasks.find(orphan.pid);
        if (found == earlier.m_tasks.end()) continue;
        const Piece::TaskState& before = found->second;
        if (before.open < 0 && before.lastExited >= 0 && before.lastExitedNumber == orphan.number &&
            !(before.exitKinds & orphan.kind))
            merge({&earlier, uint32_t(before.lastExited)}, {&later, orphan.call}, orphan.kind == Piece::kEvent);
    }
    // A task's first record an entry: the other event of the entry the earlier stretch ended
    // with, or the end of that call's chances to return later.
    std::unordered_map<int32_t, size_t> openAtEnd;
    for (size_t u = ofEarlier.first; u < ofEarlier.second; ++u)
        if (open[u].call.piece == &earlier && open[u].until == UINT64_MAX) openAtEnd[open[u].pid] = u;
    for (auto& [pid, task] : later.m_tasks) {
        auto found = earlier.m_tasks.find(pid);
        auto atEnd = openAtEnd.find(pid);
        if (task.firstEnter < 0 || found == earlier.m_tasks.end() || atEnd == openAtEnd.end()) continue;
        Unreturned& entry = open[atEnd->second];
        const CallRef entered{&later, uint32_t(task.firstEnter)};
        if (entry.number == task.firstNumber && !(found->second.openKinds & task.firstKind)) {
            // The entry's other event, split from it by the stretch's start: one call.
            merge(entry.call, entered, task.firstKind == Piece::kEvent);
            for (Unreturned& u : open)
                if (u.call == entered) u.call = entry.call, u.enter = entry.enter;
            if (earlier.at(entry.call.index).exitSeen) entry.until = 0;
        } else {
            entry.until = later.enterOf(entered.index, later.at(entered.index)); // it entered another call first
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
    for (size_t u = 0; u < open.size(); ++u) keys.push_back({open[u].pid, open[u].enter, u});
    std::sort(keys.begin(), keys.end());
    for (Piece* piece : pieces) {
        for (const Orphan& orphan : piece->m_orphans) {
            if (piece->at(orphan.call).joined) continue;
            auto after = std::lower_bound(keys.begin(), keys.end(), Key{orphan.pid, orphan.exit, 0});
            if (after == keys.begin() || (after - 1)->pid != orphan.pid) continue;
            Unreturned& entry = open[(after - 1)->entry];
            const StoredCall& entered = entry.call.piece->at(entry.call.index);
            if (entered.exitSeen || entered.joined || orphan.exit >= entry.until || entry.enter <= orphan.lastEnter ||
                (entry.number != orphan.number && orphan.number >= 0))
                continue;
            merge(entry.call, {piece, orphan.call}, orphan.kind == Piece::kEvent);
            entry.until = 0;
        }
    }
}

void SyscallsPlugin::join(std::vector<FedPiece> fed)
{
    std::vector<Piece*> pieces;
    for (FedPiece& f : fed) {
        Piece* piece = pieceOf(f.piece.get());
        f.piece.release();
        m_pieces.emplace_back(piece);
        piece->finish();
        pieces.push_back(piece);
    }
    // What may still return: the last join's unreturned entries, then the new pieces'.
    std::vector<Unreturned> open = std::move(m_open);
    std::unordered_map<const Piece*, std::pair<size_t, size_t>> ranges; // each new piece's entries in open
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
            earlier->m_tasks.clear(); // a stretch's state is needed by the next one only
            earlier->m_lastTask.clear();
        }
        earlier = piece;
    }
    pairAcrossPieces(pieces, open);
    for (Piece* piece : pieces) piece->m_orphans.clear();
    // Entries still open may return in a later batch.
    for (const Unreturned& u : open) {
        const StoredCall& c = u.call.piece->at(u.call.index);
        if (u.until == UINT64_MAX && !c.exitSeen && !c.joined) m_open.push_back(u);
    }
    m_callCount = 0;
    for (const auto& piece : m_pieces) m_callCount += piece->size() - piece->m_joined;
}

std::vector<SyscallsPlugin::Call> SyscallsPlugin::calls() const
{
    std::vector<Call> out;
    forEachCall([&](const Call& c) { out.push_back(c); });
    return out;
}

std::string SyscallsPlugin::nothingToShow() const
{
    if (m_callCount) return {};
    const bool anyBound = std::find(m_bound.begin(), m_bound.begin() + std::min<long>(kSwitch, long(m_bound.size())),
                                    true) != m_bound.begin() + std::min<long>(kSwitch, long(m_bound.size()));
    return anyBound ? "the recording's raw_syscalls and syscalls events have no records"
                    : "the recording has no raw_syscalls or syscalls events";
}

PluginTables SyscallsPlugin::tables(const RecordingInfo& info) const
{
    PluginTables out;
    SliceTable slices;
    slices.name = "System calls";
    slices.labels = m_names;
    const size_t n = m_callCount;
    slices.start.reserve(n), slices.end.reserve(n), slices.ownerId.reserve(n), slices.depth.reserve(n),
        slices.label.reserve(n), slices.value.reserve(n), slices.flags.reserve(n);
    forEachCall([&](const Call& c) {
        uint8_t flags = c.failed() ? SliceTable::kError : 0;
        if (!c.exitSeen) flags |= SliceTable::kOpen;
        slices.add(c.enter, c.exit, c.pid, 0, c.name, c.ret, flags);
    });
    out.slices.push_back(std::move(slices));

    auto comm = [&](int32_t pid) { return info.taskName ? info.taskName(pid) : std::string(); };
    // Per system call and per task, in name and pid order.
    struct Sums {
        int64_t calls = 0, errors = 0;
        uint64_t total = 0, max = 0, timed = 0;
        StatsTable::Counts byErrno;
        void add(const Call& c)
        {
            ++calls;
            if (c.enterSeen && c.exitSeen) total += c.duration(), max = std::max(max, c.duration()), ++timed;
            if (!c.failed()) return;
            ++errors;
            const std::string name = errnoName(c.ret);
            auto it = std::find_if(byErrno.begin(), byErrno.end(), [&](const auto& e) { return e.first == name; });
            if (it == byErrno.end())
                byErrno.emplace_back(name, 1);
            else
                ++it->second;
        }
    };
    // Summed by ids (millions of calls), sorted by name and pid once at the end.
    std::vector<Sums> perName(m_names.size());
    std::unordered_map<int32_t, Sums> perTask;
    std::unordered_map<uint64_t, Sums> perTaskCall; // by pid << 32 | name id
    auto taskCallKey = [](int32_t pid, uint32_t name) { return uint64_t(uint32_t(pid)) << 32 | name; };
    StatsTable failures{"failures", "Failed system calls", {}, {}};
    failures.columns = {
        {"time", "Time (ns)"},   {"cpu", "CPU"},      {"pid", "PID"},     {"comm", "Task"},
        {"name", "System call"}, {"ret", "Returned"}, {"errno", "Error"}, {"duration_ns", "Duration (ns)"}};
    // Failures by (system call, errno).
    std::map<std::pair<std::string, std::string>, std::pair<int64_t, uint64_t>> groups;
    std::vector<Call> failed;
    forEachCall([&](const Call& c) {
        perName[c.name].add(c);
        perTask[c.pid].add(c);
        perTaskCall[taskCallKey(c.pid, c.name)].add(c);
        if (c.failed()) failed.push_back(c);
    });
    // Pieces hold one CPU's stretch each: the failures in time order.
    std::stable_sort(failed.begin(), failed.end(),
                     [](const Call& a, const Call& b) { return a.exit != b.exit ? a.exit < b.exit : a.cpu < b.cpu; });
    for (const Call& c : failed) {
        failures.rows.push_back({c.exit, int64_t(c.cpu), int64_t(c.pid), comm(c.pid), m_names[c.name], c.ret,
                                 errnoName(c.ret), c.duration()});
        auto& group = groups[{m_names[c.name], errnoName(c.ret)}];
        ++group.first;
        group.second += c.duration();
    }
    StatsTable bySyscall{"syscalls", "System calls", {}, {}};
    bySyscall.columns = {{"name", "System call"},    {"calls", "Calls"},         {"errors", "Errors"},
                         {"total_ns", "Total (ns)"}, {"avg_ns", "Average (ns)"}, {"max_ns", "Max (ns)"}};
    std::vector<uint32_t> byName;
    for (uint32_t id = 0; id < perName.size(); ++id)
        if (perName[id].calls) byName.push_back(id);
    std::sort(byName.begin(), byName.end(), [&](uint32_t a, uint32_t b) { return m_names[a] < m_names[b]; });
    for (uint32_t id : byName) {
        const Sums& s = perName[id];
        bySyscall.rows.push_back(
            {m_names[id], s.calls, s.byErrno, s.total, s.timed ? s.total / s.timed : uint64_t(0), s.max});
    }
    StatsTable byTask{"tasks", "System calls per task", {}, {}};
    byTask.columns = {
        {"pid", "PID"}, {"comm", "Task"}, {"calls", "Calls"}, {"errors", "Errors"}, {"total_ns", "Total (ns)"}};
    std::vector<int32_t> pids;
    for (const auto& entry : perTask) pids.push_back(entry.first);
    std::sort(pids.begin(), pids.end());
    for (int32_t pid : pids) {
        const Sums& s = perTask[pid];
        byTask.rows.push_back({int64_t(pid), comm(pid), s.calls, s.errors, s.total});
    }
    StatsTable byTaskCall{"task_syscalls", "System calls per task and system call", {}, {}};
    byTaskCall.columns = {{"pid", "PID"},       {"comm", "Task"},           {"name", "System call"}, {"calls", "Calls"},
                          {"errors", "Errors"}, {"total_ns", "Total (ns)"}, {"max_ns", "Max (ns)"}};
    std::vector<std::pair<int32_t, uint32_t>> taskCalls; // in pid and name order
    for (const auto& entry : perTaskCall) taskCalls.emplace_back(int32_t(entry.first >> 32), uint32_t(entry.first));
    std::sort(taskCalls.begin(), taskCalls.end(), [&](const auto& a, const auto& b) {
        return a.first != b.first ? a.first < b.first : m_names[a.second] < m_names[b.second];
    });
    for (const auto& [pid, name] : taskCalls) {
        const Sums& s = perTaskCall[taskCallKey(pid, name)];
        byTaskCall.rows.push_back({int64_t(pid), comm(pid), m_names[name], s.calls, s.byErrno, s.total, s.max});
    }
    StatsTable grouped{"failure_groups", "Failures by system call and error", {}, {}};
    grouped.columns = {{"name", "System call"}, {"errno", "Error"}, {"count", "Failures"}, {"total_ns", "Total (ns)"}};
    for (const auto& [key, value] : groups) grouped.rows.push_back({key.first, key.second, value.first, value.second});
    out.statistics.push_back(std::move(bySyscall));
    out.statistics.push_back(std::move(grouped));
    out.statistics.push_back(std::move(failures));
    out.statistics.push_back(std::move(byTask));
    out.statistics.push_back(std::move(byTaskCall));
    return out;
}

} // namespace ringside::syscalls
