// SPDX-License-Identifier: GPL-2.0-or-later
// The syscalls plugin fed any sequence of raw_syscalls and syscalls:* records (enters without
// exits, exits without enters, NR -1, numbers out of every table, unknown event types, any
// architecture), then its tables as text and JSON.
#include "plugin/statstext.h"
#include "syscallsplugin.h"

#include <cstring>

using namespace ringside;

namespace {

// One record per 12 input bytes.
struct Step {
    uint8_t request; // of the plugin's requests (modulo their count)
    uint8_t pid;     // of 8
    uint8_t cpu;     // of 2
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
    syscalls::SyscallsPlugin plugin;
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
    info.taskName = [](int32_t pid) { return "task" + std::to_string(pid); };
    plugin.setRecording(info);
    const size_t requests = plugin.requests().size();
    plugin.bind(std::vector<bool>(requests, true));
    plugin.setStreams({{0, 0, 0}, {1, 0, 0}});
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
        record.stream = StreamId(uint16_t(step.cpu % 2));
        record.pid = step.pid % 8;
        record.values = values;
        record.valueCount = exit ? 2 : 1;
        plugin.consume(record);
    }
    plugin.flush();
    (void)plugin.nothingToShow();
    const PluginTables tables = plugin.tables(info);
    for (const StatsTable& table : tables.statistics) {
        (void)tableText(table);
        (void)tableJson(table);
    }
    return 0;
}
