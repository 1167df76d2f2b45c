// SPDX-License-Identifier: GPL-2.0-or-later
#include "sql/eventpairstable.h"

#include "latency/loadedpairs.h"
#include "latency/pairspec.h"
#include "sql/sqlmodule.h"
#include "store/eventstore.h"
#include "store/taskindex.h"
#include "trace.h"

#include <sqlite3.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ringside::sql {

// Named, not anonymous: a unity build compiles this beside the other modules' methods.
namespace pairrows {

enum ColumnIndex { kTs, kDur, kEndTs, kKey, kUtid, kCpu, kStartId, kEndId, kFirstArgument };
constexpr int kArguments = 6; // start_event (or preset), end_event, match, options, start_filter, end_filter

// The pairs of one call, ordered by their starts.
struct PairRows {
    std::unique_ptr<LoadedPairs> loaded;
    std::vector<uint32_t> order; // indices into the pairs, by start time (ties in end order)
};

struct Shared {
    const Trace* trace = nullptr;
    const std::atomic<bool>* interrupt = nullptr;
    std::mutex lock;
    std::string cachedFor; // the arguments of `cached`
    std::shared_ptr<const PairRows> cached;
};

struct VirtualTable {
    sqlite3_vtab base{};
    Shared* shared = nullptr;
};

struct VirtualCursor {
    sqlite3_vtab_cursor base{};
    std::shared_ptr<const PairRows> rows;
    size_t at = 0;
};

std::vector<std::string> splitList(const std::string& text)
{
    std::vector<std::string> out;
    size_t from = 0;
    while (from <= text.size()) {
        size_t comma = text.find(',', from);
        if (comma == std::string::npos) comma = text.size();
        std::string item = text.substr(from, comma - from);
        item.erase(0, item.find_first_not_of(" \t"));
        item.erase(item.find_last_not_of(" \t") + 1);
        if (!item.empty()) out.push_back(item);
        from = comma + 1;
    }
    return out;
}

// "system/event", or a bare name the recording has in one system only.
std::string fullEventName(const Trace& trace, const std::string& name, std::string* error)
{
    if (name.find('/') != std::string::npos) return name;
    std::vector<std::string> systems;
    for (const Trace::EventFormatNames& f : trace.recordedFormats())
        if (f.name == name) systems.push_back(f.system);
    if (systems.size() == 1) return systems[0] + "/" + name;
    *error = systems.empty() ? "event_pairs: the recording has no event " + name
                             : "event_pairs: " + name + " is in " + std::to_string(systems.size()) +
                                   " systems: name it as system/" + name;
    return {};
}

// The pair spec of a call's arguments, or an error.
std::optional<PairSpec> specOf(const Trace& trace, const std::vector<std::string>& args, std::string* error)
{
    if (args.size() == 1 || args[1].empty()) {
        if (auto preset = presetPair(args[0])) {
            // A preset's records may be filtered too: event_pairs('waking', '', '', '', 'prio < 100').
            preset->refineFilters(args.size() > 4 ? args[4] : std::string(), args.size() > 5 ? args[5] : std::string());
            return preset;
        }
        std::string names;
        for (const std::string& n : presetPairNames()) names += (names.empty() ? "" : ", ") + n;
        *error = "event_pairs: no preset '" + args[0] + "' (there are " + names +
                 "); or give the start and end events: event_pairs('irq/irq_handler_entry', "
                 "'irq/irq_handler_exit', 'irq', 'cpu')";
        return std::nullopt;
    }
    PairSpec spec;
    spec.name = "pairs";
    spec.from = fullEventName(trace, args[0], error);
    if (spec.from.empty()) return std::nullopt;
    spec.to = fullEventName(trace, args[1], error);
    if (spec.to.empty()) return std::nullopt;
    if (args.size() > 2)
        for (const std::string& field : splitList(args[2])) spec.fields.push_back(PairSpec::parseField(field));
    if (args.size() > 3)
        for (const std::string& option : splitList(args[3])) {
            if (option == "task")
                spec.sameTask = true;
            else if (option == "cpu")
                spec.sameCpu = true;
            else if (option == "nesting")
                spec.nesting = true;
            else {
                *error = "event_pairs: no option '" + option + "' (there are task, cpu, nesting)";
                return std::nullopt;
            }
        }
    if (args.size() > 4) spec.filterFrom = args[4];
    if (args.size() > 5) spec.filterTo = args[5];
    return spec;
}

std::shared_ptr<const PairRows> pairRows(Shared& shared, const std::vector<std::string>& args, std::string* error)
{
    std::string key;
    for (const std::string& a : args) key += a + '\x1f';
    const std::lock_guard lock(shared.lock);
    if (shared.cached && shared.cachedFor == key) return shared.cached;
    const Trace& trace = *shared.trace;
    const std::optional<PairSpec> spec = specOf(trace, args, error);
    if (!spec) return nullptr;
    const std::atomic<bool>* interrupt = shared.interrupt;
    auto loaded = LoadedPairs::run(trace, *spec, [interrupt](uint64_t, uint64_t) {
        return !interrupt || !interrupt->load(std::memory_order_relaxed);
    });
    if (!loaded) {
        *error = loaded.error().message;
        return nullptr;
    }
    if (const std::string& unbound = (*loaded)->pairs().unbound(); !unbound.empty()) {
        *error = "event_pairs: " + unbound;
        return nullptr;
    }
    auto rows = std::make_shared<PairRows>();
    rows->loaded = std::move(loaded.value());
    const PairMatcher::Pairs& p = rows->loaded->pairs().matcher().pairs();
    rows->order.resize(p.size());
    std::iota(rows->order.begin(), rows->order.end(), 0u);
    std::stable_sort(rows->order.begin(), rows->order.end(),
                     [&p](uint32_t a, uint32_t b) { return p.start[a] < p.start[b]; });
    shared.cachedFor = key;
    shared.cached = rows;
    return rows;
}

int connect(sqlite3* db, void* aux, int, const char* const*, sqlite3_vtab** out, char**)
{
    const int declared = sqlite3_declare_vtab(
        db, "CREATE TABLE x(ts INTEGER, dur INTEGER, end_ts INTEGER, key TEXT, "
            "utid INTEGER, cpu INTEGER, start_id INTEGER, end_id INTEGER, "
            "start_event HIDDEN, end_event HIDDEN, match HIDDEN, options HIDDEN, start_filter HIDDEN, "
            "end_filter HIDDEN)");
    if (declared != SQLITE_OK) return declared;
    auto* table = new VirtualTable;
    table->shared = static_cast<Shared*>(aux);
    *out = &table->base;
    return SQLITE_OK;
}

int disconnect(sqlite3_vtab* base)
{
    delete reinterpret_cast<VirtualTable*>(base);
    return SQLITE_OK;
}

// The arguments are equalities on the hidden columns; idxNum says which were given.
int bestIndex(sqlite3_vtab* base, sqlite3_index_info* info)
{
    int given = 0;
    int argumentOf[kArguments] = {-1, -1, -1, -1, -1, -1};
    for (int i = 0; i < info->nConstraint; ++i) {
        const auto& c = info->aConstraint[i];
        const int argument = c.iColumn - kFirstArgument;
        if (argument < 0 || argument >= kArguments) continue;
        if (!c.usable || c.op != SQLITE_INDEX_CONSTRAINT_EQ) return SQLITE_CONSTRAINT;
        argumentOf[argument] = i;
        given |= 1 << argument;
    }
    if (!(given & 1)) {
        sqlite3_free(base->zErrMsg);
        base->zErrMsg = sqlite3_mprintf("event_pairs needs a preset or a start and an end event: "
                                        "event_pairs('irq') or event_pairs('sched/sched_waking', "
                                        "'sched/sched_switch', 'pid=next_pid')");
        return SQLITE_ERROR;
    }
    int next = 1;
    for (int argument = 0; argument < kArguments; ++argument) {
        if (argumentOf[argument] < 0) continue;
        info->aConstraintUsage[argumentOf[argument]].argvIndex = next++;
        info->aConstraintUsage[argumentOf[argument]].omit = 1;
    }
    info->idxNum = given;
    info->estimatedCost = 1e6;
    info->estimatedRows = 100000;
    return SQLITE_OK;
}

int openCursor(sqlite3_vtab*, sqlite3_vtab_cursor** out)
{
    *out = &(new VirtualCursor)->base;
    return SQLITE_OK;
}

int closeCursor(sqlite3_vtab_cursor* base)
{
    delete reinterpret_cast<VirtualCursor*>(base);
    return SQLITE_OK;
}

int filter(sqlite3_vtab_cursor* base, int given, const char*, int argc, sqlite3_value** argv)
{
    auto* cursor = reinterpret_cast<VirtualCursor*>(base);
    auto* table = reinterpret_cast<VirtualTable*>(base->pVtab);
    std::vector<std::string> args;
    for (int argument = 0, next = 0; argument < kArguments; ++argument) {
        std::string value;
        if ((given >> argument) & 1 && next < argc) {
            const auto* text = reinterpret_cast<const char*>(sqlite3_value_text(argv[next++]));
            value = text ? text : "";
        }
        args.push_back(value);
    }
    while (args.size() > 1 && args.back().empty()) args.pop_back();
    std::string error;
    try {
        cursor->rows = pairRows(*table->shared, args, &error);
    } catch (const std::exception& e) {
        error = std::string("event_pairs: ") + e.what();
    }
    cursor->at = 0;
    if (!cursor->rows) {
        sqlite3_free(base->pVtab->zErrMsg);
        base->pVtab->zErrMsg = sqlite3_mprintf("%s", error.c_str());
        return table->shared->interrupt && table->shared->interrupt->load() ? SQLITE_INTERRUPT : SQLITE_ERROR;
    }
    return SQLITE_OK;
}

int next(sqlite3_vtab_cursor* base)
{
    ++reinterpret_cast<VirtualCursor*>(base)->at;
    return SQLITE_OK;
}

int eof(sqlite3_vtab_cursor* base)
{
    auto* cursor = reinterpret_cast<VirtualCursor*>(base);
    return cursor->at >= cursor->rows->order.size();
}

int column(sqlite3_vtab_cursor* base, sqlite3_context* context, int i)
{
    auto* cursor = reinterpret_cast<VirtualCursor*>(base);
    const Trace& trace = *reinterpret_cast<VirtualTable*>(base->pVtab)->shared->trace;
    const EventPairs& pairs = cursor->rows->loaded->pairs();
    const PairMatcher::Pairs& p = pairs.matcher().pairs();
    const uint32_t row = cursor->rows->order[cursor->at];
    const EventStore& store = trace.store();
    const EventRef start = p.startEvent[row];
    switch (i) {
    case kTs: sqlite3_result_int64(context, int64_t(p.start[row])); break;
    case kDur: sqlite3_result_int64(context, int64_t(p.duration[row])); break;
    case kEndTs: sqlite3_result_int64(context, int64_t(p.start[row] + p.duration[row])); break;
    case kKey: {
        const std::string& label = pairs.groups()[p.group[row]];
        sqlite3_result_text(context, label.data(), int(label.size()), SQLITE_TRANSIENT);
        break;
    }
    case kUtid: {
        const int32_t pid = store.stream(start.stream).columns.pid[start.index];
        const TaskId task = trace.taskIndex().taskAt(pid, p.start[row]);
        if (task.valid())
            sqlite3_result_int64(context, task.value);
        else
            sqlite3_result_null(context);
        break;
    }
    case kCpu: sqlite3_result_int64(context, store.stream(start.stream).cpu); break;
    case kStartId: sqlite3_result_int64(context, int64_t(store.rowOf(start))); break;
    case kEndId: sqlite3_result_int64(context, int64_t(store.rowOf(p.endEvent[row]))); break;
    default: sqlite3_result_null(context); break;
    }
    return SQLITE_OK;
}

int rowId(sqlite3_vtab_cursor* base, sqlite3_int64* out)
{
    *out = sqlite3_int64(reinterpret_cast<VirtualCursor*>(base)->at);
    return SQLITE_OK;
}

// Used as a function (FROM event_pairs(...)), never created.
const sqlite3_module kModule =
    readOnlyModule({connect, bestIndex, disconnect, openCursor, closeCursor, filter, next, eof, column, rowId, true});

} // namespace pairrows

int registerEventPairs(sqlite3* db, const Trace& trace, const std::atomic<bool>* interrupt)
{
    auto* shared = new pairrows::Shared;
    shared->trace = &trace;
    shared->interrupt = interrupt;
    return sqlite3_create_module_v2(db, "event_pairs", &pairrows::kModule, shared,
                                    [](void* aux) { delete static_cast<pairrows::Shared*>(aux); });
}

std::string eventPairsCall(const PairSpec& spec)
{
    auto quoted = [](const std::string& text) {
        std::string out = "'";
        for (const char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
        return out + "'";
    };
    std::string match, options;
    for (const auto& [start, end] : spec.fields)
        match += (match.empty() ? "" : ",") + (start == end ? start : start + "=" + end);
    for (const auto& [on, option] :
         {std::pair{spec.sameTask, "task"}, {spec.sameCpu, "cpu"}, {spec.nesting, "nesting"}})
        if (on) options += (options.empty() ? "" : ",") + std::string(option);
    std::string first = quoted(spec.from) + ", " + quoted(spec.to) + ", " + quoted(match) + ", " + quoted(options);
    // Only text marks are beyond the arguments: a preset's pair with them is called by name.
    const bool marked = !spec.startText.empty() || !spec.endText.empty();
    for (const std::string& name : marked ? presetPairNames() : std::vector<std::string>()) {
        PairSpec preset = *presetPair(name);
        preset.name = spec.name;
        preset.filterFrom = spec.filterFrom;
        preset.filterTo = spec.filterTo;
        if (preset == spec) first = quoted(name) + ", '', '', ''";
    }
    return "event_pairs(" + first + ", " + quoted(spec.filterFrom) + ", " + quoted(spec.filterTo) + ")";
}

} // namespace ringside::sql
