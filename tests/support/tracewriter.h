// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ringside::test {

// Appends the bytes of `value` (this machine's order: the recordings are little-endian).
template <typename T>
void put(std::string& out, T value)
{
    out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

// Writes small trace-cmd version 6 recordings (little-endian, 64-bit, 4 KiB pages) from
// chosen formats and records: fixtures made to measure, and the frame the fuzzers put their
// input in. `trace-cmd report` reads what it writes.
struct TraceWriter {
    struct Format {
        std::string system;
        std::string text; // a format file as the kernel prints it ("name: ...\nID: ...\nformat: ...")
    };
    struct Record {
        uint32_t delta = 1;      // time since the previous record of the CPU (< 2^27)
        std::string payload;     // the event: common fields first
        bool lostBefore = false; // starts a page that says events were lost before it
    };

    std::vector<Format> formats;
    std::vector<std::string> ftraceFormats;
    std::string kallsyms, printkFormats, cmdlines;
    std::string uname; // the uname option ("Linux host 6.1.0 x86_64"), written when given
    std::vector<std::vector<Record>> cpus; // records per CPU, in time order
    uint64_t firstTimestamp = 1000000;

    std::string write() const;

    // The payload of an event of type `type` by `pid`: the common fields, then `fields`.
    static std::string payload(uint16_t type, int32_t pid, const std::string& fields, uint8_t flags = 0,
                               uint8_t preempt = 0);
    // The standard common fields and header page of a 64-bit kernel, for formats written by hand.
    static const char* commonFields();

    // The kernel's sched_switch (type 372) and sched_wakeup (type 374), as this machine's
    // kernel prints their formats (prev_state as a number), and records of them.
    static Format schedSwitchFormat();
    static Format schedWakeupFormat();
    static std::string schedSwitch(int32_t prev, const std::string& prevComm, int64_t prevState, int32_t next,
                                   const std::string& nextComm);
    static std::string schedWakeup(int32_t by, int32_t pid, const std::string& comm, int32_t targetCpu);
    // A task's name as the kernel's comm fields hold it: 16 bytes, cut at 15.
    static std::string comm(const std::string& name);
};

// A recording of "test:tick" events, 3 s long: CPU 0 with 3,000 (many pages), CPU 1 with 900
// in pages that say events were lost before them (twice), CPU 2 with none. For replaying as a
// live capture (ringside-capture-replay): the CPU without pages is taken to have reached the
// others' time as the rounds go by.
std::string tickRecording();

} // namespace ringside::test
