// SPDX-License-Identifier: GPL-2.0-or-later
// The syscalls plugin fed any sequence of raw_syscalls and syscalls:* records (enters without
// exits, exits without enters, NR -1, numbers out of every table, unknown event types, any
// architecture), then its tables as text and JSON. A second plugin takes the same records in
// pieces, each stream cut into stretches where the input says, and joins them.
#include "analysis/tracktables.h"
#include "plugin/statstext.h"
#include "syscallsplugin.h"

#include <cstring>

using namespace ringside;

namespace {

// One record per 12 input bytes.
struct Step {
    uint8_t request; // of the plugin's requests (modulo their count)
    uint8_t pid;     // of 8
    uint8_t cpu;     // of 2; bit 7: the record starts a new stretch of its stream
    uint8_t type;    // event type, for requests by prefix
    int16_t number;
    uint16_t delta; // time since the previous record
    int32_t ret;
};
static_assert(sizeof(Step) == 12);

const char* const kMachines[] = {"x86_64", "i686", "aarch64", "armv7l", "riscv64", ""};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size < 1) return 0;
    syscalls::SyscallsPlugin plugin, inPieces;
    RecordingInfo info;
    info.machine = kMachines[data[0] % 6];
    info.eventName = [](uint16_t type) {
        switch (type % 5) {
        case 0: return std::string("sys_enter_execve");
        case 1: return std::string("sys_exit_execve");
        case 2: return std::string("sys_enter_");
        case 3: return std::string("sys_exit_read");
        default: return std::string();
        }
    };
    info.taskAt = [](int32_t pid, uint64_t) { return uint32_t(pid); };
    const size_t requests = plugin.requests().size();
    AnalysisTables tables, piecesTables;
    plugin.setRecording(info);
    inPieces.setRecording(info);
    plugin.setTables(tables);
    inPieces.setTables(piecesTables);
    for (syscalls::SyscallsPlugin* p : {&plugin, &inPieces}) {
        p->bind(std::vector<bool>(requests, true));
        p->setStreams({{0, 0, 0}, {1, 0, 0}});
    }
    std::vector<FedPiece> stretches[2]; // per stream, in order
    // Each stretch's rows, placed once its records are fed (as the registry does).
    std::vector<std::unique_ptr<StretchRows>> rows[2];
    uint32_t fed[2] = {0, 0};        // records of each stream so far
    std::vector<uint32_t> pidsOf[2]; // each record's pid, by stream and index: owners as the app finds them
    uint64_t now = 1000;
    for (size_t at = 1; at + sizeof(Step) <= size; at += sizeof(Step)) {
        Step step;
        std::memcpy(&step, data + at, sizeof step);
        now += step.delta;
        const size_t request = step.request % requests;
        // Exits carry (number, ret), enters (number): as the plugin's requests ask.
        const bool exit = request % 2 == 1;
        TypedValue values[2] = {TypedValue::number(uint64_t(int64_t(step.number)), true, 8),
                                TypedValue::number(uint64_t(int64_t(step.ret)), true, 8)};
        ConsumedRecord record;
        record.request = request;
        record.type = step.type;
        record.timestamp = now;
        const unsigned stream = step.cpu % 2;
        record.stream = StreamId(uint16_t(stream));
        record.pid = step.pid % 8;
        record.values = values;
        record.valueCount = exit ? 2 : 1;
        record.index = fed[stream];
        pidsOf[stream].push_back(uint32_t(record.pid));
        plugin.consume(record);
        std::vector<FedPiece>& own = stretches[stream];
        if (own.empty() || (step.cpu & 0x80)) {
            if (!own.empty()) {
                const StretchRows::Scope scope(rows[stream].back().get());
                own.back().piece->end();
            }
            rows[stream].push_back(std::make_unique<StretchRows>(record.stream));
            const StretchRows::Scope scope(rows[stream].back().get());
            own.push_back({record.stream, fed[stream], inPieces.newPiece(record.stream)});
        }
        record.index = fed[stream]++ - own.back().firstIndex;
        const StretchRows::Scope scope(rows[stream].back().get());
        own.back().piece->consume(record);
    }
    plugin.flush();
    plugin.finish();
    std::vector<FedPiece> pieces;
    for (unsigned stream = 0; stream < 2; ++stream)
        for (size_t k = 0; k < stretches[stream].size(); ++k) {
            FedPiece& piece = stretches[stream][k];
            {
                const StretchRows::Scope scope(rows[stream][k].get());
                piece.piece->end();
            }
            const uint32_t next = k + 1 < stretches[stream].size() ? stretches[stream][k + 1].firstIndex : fed[stream];
            rows[stream][k]->place(piece.firstIndex, next - piece.firstIndex);
            pieces.push_back(std::move(piece));
        }
    inPieces.join(std::move(pieces));
    inPieces.finish();
    (void)plugin.nothingToShow();
    // A slice's owner is found from one of its events, which must be one of those fed.
    auto ownerOf = [&](EventRef event) {
        if (event.stream.value >= 2 || event.index >= pidsOf[event.stream.value].size()) __builtin_trap();
        return pidsOf[event.stream.value][event.index];
    };
    tables.publish(ownerOf);
    piecesTables.publish(ownerOf);
    for (const std::vector<StatsTable>& stats : {plugin.statistics(), inPieces.statistics()})
        for (const StatsTable& table : stats) {
            (void)tableText(table);
            (void)tableJson(table);
        }
    return 0;
}
