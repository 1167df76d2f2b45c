// SPDX-License-Identifier: GPL-2.0-or-later
#include "powerplugin.h"

#include <algorithm>

namespace ringside::power {

namespace {

enum Request : size_t { kFrequency, kLimits, kIdle };

// Residency's keys that are no frequency or idle state.
constexpr int64_t kUnknownFrequency = -1;
constexpr int64_t kActive = -1, kIdleNotRecorded = -2, kNoIdleYet = -3;

} // namespace

std::string PowerPlugin::description() const
{
    return "CPU frequency as a counter and idle states as slices on each CPU's row, the time at each frequency and "
           "in each idle state per CPU";
}

std::vector<EventRequest> PowerPlugin::requests() const
{
    return {
        {"power", "cpu_frequency", {"state", "cpu_id"}, false},
        {"power", "cpu_frequency_limits", {"min_freq", "max_freq", "cpu_id"}, false},
        {"power", "cpu_idle", {"state", "cpu_id"}, false},
    };
}

void PowerPlugin::setTables(TableSink& tables)
{
    // Named in SQL as Perfetto names them, so that its frequency and idle queries carry over.
    m_frequency = &tables.counters({"cpufreq", "CPU frequency", RowOwner::Cpu, "kHz", "cpufreq", "cpu_frequency"});
    m_minimum = &tables.counters({"cpufreq_min", "Lowest frequency allowed", RowOwner::Cpu, "kHz",
                                  "Cpu {cpu} Min Freq Limit", "cpu_min_frequency_limit"});
    m_maximum = &tables.counters({"cpufreq_max", "Highest frequency allowed", RowOwner::Cpu, "kHz",
                                  "Cpu {cpu} Max Freq Limit", "cpu_max_frequency_limit"});
    SliceTableSpec idle{"cpuidle", "Idle states", RowOwner::Cpu, "", "", 0x9aa5b1};
    idle.ownRow = true; // a track under each CPU, as Perfetto shows cpuidle
    m_idle = &tables.slices(idle);
    m_idleStates = &tables.counters({"cpuidle_state", "Idle state", RowOwner::Cpu, "", "cpuidle", "cpu_idle", false});
}

uint32_t PowerPlugin::rowOf(uint32_t cpu) const
{
    uint32_t row = UINT32_MAX;
    for (size_t s = 0; s < m_streams.size(); ++s)
        if (m_streams[s].cpu == int(cpu) && (row == UINT32_MAX || m_streams[s].buffer < m_streams[row].buffer))
            row = uint32_t(s);
    return row;
}

std::pair<uint64_t, uint64_t> PowerPlugin::span() const
{
    if (m_info.timeRange) {
        const auto [first, last] = m_info.timeRange();
        return {first, std::max(last, m_last)};
    }
    return {0, m_last};
}

void PowerPlugin::consume(const ConsumedRecord& record)
{
    m_last = std::max(m_last, record.timestamp);
    switch (record.request) {
    case kFrequency:
        frequency(record.timestamp, uint32_t(record.field(1).asUnsigned()), int64_t(record.field(0).asUnsigned()));
        break;
    case kLimits: {
        const uint32_t row = rowOf(uint32_t(record.field(2).asUnsigned()));
        if (row == UINT32_MAX) break;
        m_minimum->add(record.timestamp, row, int64_t(record.field(0).asUnsigned()));
        m_maximum->add(record.timestamp, row, int64_t(record.field(1).asUnsigned()));
        break;
    }
    case kIdle: idle(record.timestamp, uint32_t(record.field(1).asUnsigned()), record.field(0).asUnsigned()); break;
    default: break;
    }
}

void PowerPlugin::frequency(uint64_t t, uint32_t cpu, int64_t khz)
{
    Cpu& c = m_cpus[cpu];
    if (!c.anyFrequency) {
        // Before its first sample the frequency is not known: that time is the residency's "-".
        c.atFrequency[kUnknownFrequency] += t - std::min(t, span().first);
        c.anyFrequency = true;
    } else {
        c.atFrequency[c.frequency] += t - c.frequencySince;
    }
    c.frequency = khz;
    c.frequencySince = t;
    ++c.frequencyChanges;
    if (const uint32_t row = rowOf(cpu); row != UINT32_MAX) m_frequency->add(t, row, khz);
}

uint32_t PowerPlugin::stateLabel(int64_t state)
{
    auto [it, added] = m_labels.try_emplace(state, 0);
    if (added)
        it->second =
            m_idle->label(state == kIdleNotRecorded ? "idle (state not recorded)" : "state " + std::to_string(state));
    return it->second;
}

void PowerPlugin::leaveState(Cpu& c, uint32_t cpu, uint64_t t, bool open)
{
    c.inState[c.state] += t - c.stateSince;
    if (c.state == kActive) return;
    if (const uint32_t row = rowOf(cpu); row != UINT32_MAX) {
        Slice s;
        s.start = c.stateSince;
        s.end = t;
        s.owner = row;
        s.label = stateLabel(c.state);
        s.flags =
            uint8_t(Slice::kNoValue | (open ? Slice::kOpen : 0) | (c.state == kIdleNotRecorded ? Slice::kNoStart : 0));
        m_idle->add(s);
    }
}

void PowerPlugin::idle(uint64_t t, uint32_t cpu, uint64_t state)
{
    // Every event, as recorded (4294967295 on leaving), mismatched or not: Perfetto's cpuidle.
    if (const uint32_t row = rowOf(cpu); row != UINT32_MAX) m_idleStates->add(t, row, int64_t(state));
    Cpu& c = m_cpus[cpu];
    const bool exit = state == kIdleExit;
    if (c.state == kNoIdleYet) {
        // Before a CPU's first cpu_idle: idle in a state not recorded if it now leaves idle,
        // active if it now enters (a CPU enters idle from running).
        c.state = exit ? kIdleNotRecorded : kActive;
        c.stateSince = std::min(t, span().first);
    }
    if (exit) {
        if (c.state == kActive) {
            // Left idle without entering it: an entry lost, or made before a gap. It stays active.
            ++c.exitsWhileActive;
            return;
        }
        leaveState(c, cpu, t, false);
        c.state = kActive;
        c.stateSince = t;
        return;
    }
    // Entering a state while in another: the first ends here.
    if (c.state != kActive) ++c.entriesWhileIdle;
    leaveState(c, cpu, t, false);
    c.state = int64_t(std::min<uint64_t>(state, INT32_MAX));
    c.stateSince = t;
    ++c.idleEntries;
}

void PowerPlugin::finish()
{
    if (m_finished) return;
    m_finished = true;
    const uint64_t end = span().second;
    for (auto& [cpu, c] : m_cpus)
        if (c.state >= 0 || c.state == kIdleNotRecorded) {
            // Still in it: counted to the end, from where the statistics add nothing more.
            const uint64_t until = std::max(end, c.stateSince);
            leaveState(c, cpu, until, true);
            c.stateSince = until;
        }
}

std::string PowerPlugin::nothingToShow() const
{
    if (!m_cpus.empty()) return {};
    const bool anyBound = std::find(m_bound.begin(), m_bound.end(), true) != m_bound.end();
    return anyBound ? "the recording's power events have no records"
                    : "the recording has no power:cpu_frequency or power:cpu_idle events";
}

std::vector<StatsTable> PowerPlugin::statistics() const
{
    using Kind = StatsTable::Kind;
    const auto [first, last] = span();
    const uint64_t recorded = last - std::min(first, last);
    auto percent = [&](uint64_t ns) { return recorded ? 100.0 * double(ns) / double(recorded) : 0.0; };

    StatsTable frequencies;
    frequencies.key = "frequency_residency";
    frequencies.title = "Time at each frequency";
    auto& fCpu = frequencies.column("cpu", "CPU", Kind::Number);
    auto& fKhz = frequencies.column("frequency_khz", "Frequency (kHz)", Kind::Number);
    auto& fTime = frequencies.column("time_ns", "Time", Kind::Duration);
    auto& fShare = frequencies.column("percent", "% of the recording", Kind::Real);

    StatsTable states;
    states.key = "idle_residency";
    states.title = "Time in each idle state";
    auto& sCpu = states.column("cpu", "CPU", Kind::Number);
    auto& sState = states.column("state", "State", Kind::Text);
    auto& sTime = states.column("time_ns", "Time", Kind::Duration);
    auto& sShare = states.column("percent", "% of the recording", Kind::Real);

    StatsTable perCpu;
    perCpu.key = "cpus";
    perCpu.title = "CPUs";
    auto& cCpu = perCpu.column("cpu", "CPU", Kind::Number);
    auto& cChanges = perCpu.column("frequency_changes", "Frequency changes", Kind::Count);
    auto& cEntries = perCpu.column("idle_entries", "Idle entries", Kind::Count);
    auto& cIdle = perCpu.column("idle_ns", "Idle", Kind::Duration);
    auto& cShare = perCpu.column("idle_percent", "% idle", Kind::Real);
    auto& cExits = perCpu.column("exits_while_active", "Idle exits without entry", Kind::Count);
    auto& cReentries = perCpu.column("entries_while_idle", "Idle entries while idle", Kind::Count);
    auto& cRow = perCpu.column("has_row", "Drawn on its row", Kind::Text);

    for (const auto& [cpu, c] : m_cpus) {
        // What is still in force runs to the recording's last event.
        // A CPU with no event of a kind has no rows of its residency.
        std::map<int64_t, uint64_t> atFrequency = c.atFrequency;
        if (c.anyFrequency) atFrequency[c.frequency] += last - std::min(last, c.frequencySince);
        for (const auto& [khz, ns] : atFrequency) {
            fCpu.numbers.push_back(cpu);
            fKhz.numbers.push_back(khz == kUnknownFrequency ? StatsTable::kUnknown : khz);
            fTime.numbers.push_back(int64_t(ns));
            fShare.reals.push_back(percent(ns));
        }
        std::map<int64_t, uint64_t> inState = c.inState;
        if (c.state != kNoIdleYet) inState[c.state] += last - std::min(last, c.stateSince);
        uint64_t idleNs = 0;
        for (const auto& [state, ns] : inState) {
            if (ns == 0) continue; // a state begun and left at the same time, or at the recording's start
            sCpu.numbers.push_back(cpu);
            sState.texts.push_back(state == kActive            ? "active"
                                   : state == kIdleNotRecorded ? "idle, state not recorded"
                                                               : "state " + std::to_string(state));
            sTime.numbers.push_back(int64_t(ns));
            sShare.reals.push_back(percent(ns));
            if (state >= 0 || state == kIdleNotRecorded) idleNs += ns;
        }
        cCpu.numbers.push_back(cpu);
        cChanges.numbers.push_back(int64_t(c.frequencyChanges));
        cEntries.numbers.push_back(int64_t(c.idleEntries));
        cIdle.numbers.push_back(c.state == kNoIdleYet ? StatsTable::kUnknown : int64_t(idleNs));
        cShare.reals.push_back(percent(idleNs));
        cExits.numbers.push_back(int64_t(c.exitsWhileActive));
        cReentries.numbers.push_back(int64_t(c.entriesWhileIdle));
        cRow.texts.push_back(rowOf(cpu) == UINT32_MAX ? "no: the CPU recorded no events" : "yes");
    }
    return {std::move(perCpu), std::move(frequencies), std::move(states)};
}

} // namespace ringside::power
