// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "plugin/plugin.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ringside::power {

// CPU frequency and idle states from the power events, per CPU: the CPU the event names
// (`cpu_id`), not the one that recorded it (one CPU's kworker records the frequency of all of
// its cluster). On each CPU's row: the frequency as a counter (cpu_frequency; the limits of
// cpu_frequency_limits as two more), and the idle states as slices from entering one
// (cpu_idle, state N) to leaving it (state 4294967295, the kernel's -1). Statistics: the time
// each CPU spent at each frequency and in each idle state (its residency), adding up to the
// recording's time; per CPU, the events that disagree with what came before (a CPU leaving
// idle that never entered it, entering a state while in another).
class PowerPlugin : public Plugin {
public:
    static constexpr const char* kName = "power";
    // cpu_idle's state when a CPU leaves idle (PWR_EVENT_EXIT, (u32)-1).
    static constexpr uint64_t kIdleExit = 4294967295u;

    std::string name() const override { return kName; }
    std::string description() const override;
    std::vector<EventRequest> requests() const override;
    void setRecording(const RecordingInfo& info) override { m_info = info; }
    void setTables(TableSink& tables) override;
    void bind(const std::vector<bool>& bound) override { m_bound = bound; }
    void setStreams(const std::vector<StreamInfo>& streams) override { m_streams = streams; }
    void consume(const ConsumedRecord& record) override;
    // Idle states not left by the end are added, open.
    void finish() override;
    std::string nothingToShow() const override;
    std::vector<StatsTable> statistics() const override;

    // What is known of one CPU (tests read it).
    struct Cpu {
        // Time at each frequency (kHz; -1: before its first cpu_frequency) and in each idle
        // state (-1: active; -2: idle in a state not recorded, before its first cpu_idle).
        std::map<int64_t, uint64_t> atFrequency, inState;
        int64_t frequency = -1;
        uint64_t frequencySince = 0;
        int64_t state = -3; // -3: no cpu_idle yet
        uint64_t stateSince = 0;
        uint64_t frequencyChanges = 0, idleEntries = 0;
        uint64_t exitsWhileActive = 0, entriesWhileIdle = 0; // mismatches
        bool anyFrequency = false;
    };
    // By cpu_id.
    const std::map<uint32_t, Cpu>& cpus() const { return m_cpus; }
    // The times each CPU's residency covers: the recording's first and last event.
    std::pair<uint64_t, uint64_t> span() const;

private:
    // The row of a CPU: the stream of the top buffer (or the first) recorded on it, or
    // UINT32_MAX when none was (a CPU with no events of its own is drawn nowhere).
    uint32_t rowOf(uint32_t cpu) const;
    void frequency(uint64_t t, uint32_t cpu, int64_t khz);
    void idle(uint64_t t, uint32_t cpu, uint64_t state);
    // Closes the CPU's idle state at `t` (a slice, and its residency).
    void leaveState(Cpu& c, uint32_t cpu, uint64_t t, bool open);
    uint32_t stateLabel(int64_t state);

    RecordingInfo m_info;
    std::vector<bool> m_bound;
    std::vector<StreamInfo> m_streams;
    CounterSink* m_frequency = nullptr;
    CounterSink* m_minimum = nullptr;
    CounterSink* m_maximum = nullptr;
    SliceSink* m_idle = nullptr;
    CounterSink* m_idleStates = nullptr;  // cpu_idle's state as recorded (SQL only)
    std::map<int64_t, uint32_t> m_labels; // of the idle states' slices
    std::map<uint32_t, Cpu> m_cpus;
    uint64_t m_last = 0; // the latest record's time
    bool m_finished = false;
};

} // namespace ringside::power
