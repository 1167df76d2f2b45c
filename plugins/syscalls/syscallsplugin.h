// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "chunkedlist.h"
#include "plugin/plugin.h"
#include "syscalltables.h"
#include "util/flatindex.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace ringside::syscalls {

// System calls as slices on the task rows, from raw_syscalls sys_enter/sys_exit (numbers,
// named by the recording's architecture) and the per-syscall syscalls:sys_enter_*/sys_exit_*
// events (named by the event). A call recorded by both kinds of events is one call. Failures
// (negative errno returns) are named; statistics per system call and per task, and every
// failure (the headline table).
//
// Fed in pieces (a stretch of one CPU's records each, on the parser's threads): a piece pairs
// what its stretch holds and adds each call it is sure of to the "syscalls" slice table as
// soon as nothing can change it, anchored at its entry and exit events (a few bytes each: its
// times and task are the store's; its return value is read from the exit event when shown).
// What a piece cannot decide (its task left the CPU inside the call, an exit without an entry
// in the stretch, an entry whose exit is in the next stretch) waits for join(), which pairs
// them across pieces by time. The plugin keeps no call once it is in the table: only sums,
// the failures, and the calls not yet returned.
class SyscallsPlugin : public Plugin {
public:
    static constexpr const char* kName = "syscalls";

    // One system call, as it is added to the table (and to the observer).
    struct Call {
        uint64_t enter = 0, exit = 0; // exit == enter while no exit was seen
        int64_t ret = 0;
        int32_t pid = 0;
        uint32_t name = 0; // index into names()
        StreamId stream;   // where it returned (or entered, without an exit)
        bool enterSeen = false, exitSeen = false;
        // A return of -4095..-1 is an error number.
        static bool fails(bool exitSeen, int64_t ret) { return exitSeen && ret < 0 && ret >= -4095; }
        bool failed() const { return fails(exitSeen, ret); }
        uint64_t duration() const { return enterSeen && exitSeen ? exit - enter : 0; }
    };
    // What one task's calls of one kind came to (hundreds of thousands of them held until the
    // statistics are made: 24 bytes each; when its pid made its first call is the tally's, per
    // pid). The errors are counted from the failures when the statistics are made: most sums
    // have none. The counts fit 32 bits: a task would need over four billion events of its own
    // for more, past what a recording holds; they never wrap.
    struct Sums {
        uint64_t total = 0, max = 0;
        uint32_t calls = 0, timed = 0;
        void add(const Call& c) // once per call: inline
        {
            calls += calls != UINT32_MAX;
            if (c.enterSeen && c.exitSeen) total += c.duration(), max = std::max(max, c.duration()), timed += timed != UINT32_MAX;
        }
        void add(const Sums& other);
    };

    SyscallsPlugin();
    ~SyscallsPlugin() override;

    std::string name() const override { return kName; }
    std::string description() const override;
    std::vector<EventRequest> requests() const override;
    void setRecording(const RecordingInfo& info) override;
    void setTables(TableSink& tables) override;
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
    // Calls entered and never returned go into the table, open.
    void finish() override;
    std::string nothingToShow() const override;
    std::vector<StatsTable> statistics() const override;
    // Made from the sums and failures as they are freed: the tables and the sums they come
    // from are never held twice (on a 100M-event recording, hundreds of megabytes).
    std::vector<StatsTable> finalStatistics() override;

    // Calls added to the table so far.
    size_t callCount() const { return m_callCount; }
    const std::vector<std::string>& names() const { return m_names; }
    Architecture architecture() const { return m_arch; }
    // Every call as it is added (tests): from the thread that adds it.
    void setCallObserver(std::function<void(const Call&)> observer) { m_observer = std::move(observer); }

private:
    // A call not yet in the table. In a piece its events' indexes count from the stretch's
    // start (placed at join).
    // Blocking calls wait in their piece until the load's join: tens of millions on a large
    // recording, so each of these is packed (numbers are 4 bytes in every event that has one).
    struct PendingCall { // addCall writes each field
        uint64_t enter = 0, exit = 0;
        int64_t ret = 0;
        EventRef enterEvent, exitEvent;
        int32_t pid = 0;
        int32_t number = 0;
        uint16_t name = 0;
        bool enterSeen = false, exitSeen = false, joined = false;
    };
    class Piece;
    // A call in a piece.
    struct CallRef {
        Piece* piece = nullptr;
        uint32_t index = 0;
        bool operator==(const CallRef&) const = default;
    };
    // A call entered and not returned in its piece: the exit may be in another one. Its task,
    // number and entry time are the call's.
    struct Unreturned {
        CallRef call;
        uint64_t until = UINT64_MAX; // the task entered another call then
        const PendingCall& pending() const;
    };
    // A call returned without an entry in its piece (its task, number and exit time are the
    // call's: a returned call's never change).
    struct Orphan {
        uint64_t lastEnter = 0; // the task's latest entry before it in the piece, 0 if none
        uint32_t call = 0;
        uint8_t kind = 0;
        bool first = false; // the task's first record in the piece
    };
    // A failed call, for the failures table (32 bytes: hundreds of thousands are held).
    struct Failure {
        uint64_t exit = 0;
        int64_t duration = 0; // StatsTable::kUnknown without an entry
        EventRef exitEvent;
        int32_t pid = 0;
        uint16_t name = 0;
        int16_t ret = 0; // -4095..-1
        // Time order; the exit event orders failures of one time and CPU as they came.
        static bool before(const Failure& a, const Failure& b)
        {
            if (a.exit != b.exit) return a.exit < b.exit;
            if (a.exitEvent.stream != b.exitEvent.stream) return a.exitEvent.stream < b.exitEvent.stream;
            return a.exitEvent.index < b.exitEvent.index;
        }
    };
    // Where a task's sums are in a Tally, by name: a task makes a few dozen kinds of calls over
    // and over, and the tally's index (tens of thousands of keys) missed the caches on most.
    // A short list searched in order, each hit moved one place towards the front. A tally fed
    // through caches (a piece's, one cache per pid) has every key of the pid in its cache and
    // needs no index: a key the cache lacks is new.
    struct SumsCache {
        std::vector<std::pair<uint32_t, uint32_t>> places; // (name, position in the tally)
        uint32_t first = UINT32_MAX;                       // the pid's place in the tally's firsts
    };
    // Sums of calls added per pid and name (the sums per name and per pid are theirs added up
    // when the statistics are asked for); the failures. Hundreds of thousands of pairs, met
    // once per call: one flat index over two arrays, not a node per pair.
    struct Tally {
        std::vector<uint64_t> keys; // pid << 32 | name
        std::vector<Sums> sums;     // of keys[i]
        // When each pid's earliest call here entered (its exit without an entry): the task the
        // pid's rows name is the pid's at its first call.
        std::vector<std::pair<int32_t, uint64_t>> firsts;
        ChunkedList<Failure> failures; // hundreds of thousands: never copied as they grow
        // `cache`: the call's pid's, when the caller keeps one for every pid it adds (a tally
        // is fed with caches or without, never both).
        void add(const Call& c, EventRef exitEvent, SumsCache* cache = nullptr);
        void add(Tally&& other);
        Tally() = default;
        Tally(const Tally&) = delete; // a copy's remembered sums would be the original's
        Tally& operator=(const Tally&) = delete;
        Tally(Tally&&) = default;
        Tally& operator=(Tally&&) = default;
        void clear() { *this = Tally(); }

    private:
        Sums& of(uint64_t key);
        void noteFirst(int32_t pid, uint64_t time);
        std::unordered_map<int32_t, uint32_t> m_firstOf; // pid -> place in firsts, without caches
        FlatIndex m_index; // key -> position in keys and sums
        // A task often makes the same call again: its sums without a lookup.
        uint64_t m_lastKey = UINT64_MAX;
        uint32_t m_last = 0;
    };

    // Name ids fit 16 bits: past 65,535 names (numbers no table knows) the rest share one.
    // Pieces ask from several threads.
    uint16_t nameId(const std::string& name);
    int cpuOf(StreamId stream) const;
    Piece* pieceOf(StreamPiece* piece) const;
    // Adds a final call to the table, `tally` and the observer; `owner` is its task when the
    // caller knows it.
    // `anchored`: the rows of the stretch a piece is fed, for a call anchored there.
    void addToTable(const PendingCall& call, Tally& tally, uint32_t owner, SumsCache* cache = nullptr,
                    AnchoredSliceRows* anchored = nullptr);
    // The statistics tables from m_tally and m_pieceTallies; with `consuming` (this plugin, from
    // finalStatistics), freeing them as they are made.
    std::vector<StatsTable> tables(SyscallsPlugin* consuming) const;
    // A joined call nothing can change any more: into the table, owned by its task then.
    void decided(PendingCall& call);
    // Keeps failures (a piece's, a join's) as one more list in time order, the table's rows.
    void keepFailures(ChunkedList<Failure>& list);
    void joinStretches(Piece& earlier, Piece& later, std::vector<Unreturned>& open,
                       std::pair<size_t, size_t> ofEarlier);
    void pairAcrossPieces(std::vector<Piece*>& pieces, std::vector<Unreturned>& open);
    void merge(CallRef into, CallRef from, bool nameFromEvent);

    Architecture m_arch = Architecture::Unknown;
    RecordingInfo m_info;
    TaskLives m_decidedLives{m_info}; // the tasks of calls decided at a join
    SliceSink* m_slices = nullptr;
    std::function<void(const Call&)> m_observer;
    std::vector<bool> m_bound;
    std::vector<StreamInfo> m_streams;
    mutable std::mutex m_namesLock;
    std::vector<std::string> m_names;
    std::unordered_map<std::string, uint16_t> m_nameIds;
    std::vector<uint32_t> m_labels; // the table's label of each name id
    std::vector<std::unique_ptr<Piece>> m_pieces;        // joined, kept while their calls may still pair
    std::unique_ptr<Piece> m_merged;                     // fed by consume(), joined by flush()
    std::vector<Unreturned> m_open;                      // unreturned at the end of the last join
    std::unordered_map<uint32_t, Piece*> m_lastOfStream; // the latest joined piece of a stream
    Tally m_tally; // the sums of the calls joined across pieces, and their failures until kept
    // Every failure, as lists in time order (each piece's, each join's): the table merges them
    // and lets each chunk go once read. One merged list held them twice at the load's peak.
    std::vector<ChunkedList<Failure>> m_failures;
    // The joined pieces' sums (indexed by their caches only), not added into m_tally: their
    // keys barely overlap (a task's calls stay in a few stretches: 300,704 keys in 9 pieces for
    // 312,798 distinct on 23M events), and adding them up held a second copy and its index at
    // the load's peak.
    std::vector<Tally> m_pieceTallies;
    bool m_tallyHandedOver = false; // finalStatistics() made the tables from it
    size_t m_callCount = 0;
    std::atomic<bool> m_any{false}; // pieces set it from the parser's threads
    bool m_bothKinds = false;       // raw_syscalls and syscalls:* both recorded
};

} // namespace ringside::syscalls
