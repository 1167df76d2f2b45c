// SPDX-License-Identifier: GPL-2.0-or-later
#include "file/fileoptions.h"

#include "util/bytereader.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

namespace ringside {

std::string optionString(std::string_view payload)
{
    size_t nul = payload.find('\0');
    return std::string(payload.substr(0, nul));
}

std::string selectedClock(std::string_view file)
{
    size_t open = file.find('[');
    if (open == std::string_view::npos) return {};
    size_t close = file.find(']', open);
    if (close == std::string_view::npos) return {};
    return std::string(file.substr(open + 1, close - open - 1));
}

bool clockCountsNanoseconds(const std::string& clock)
{
    return clock == "local" || clock == "global" || clock == "uptime" || clock == "perf" ||
           clock.rfind("mono", 0) == 0 || clock == "x86-tsc-nsec" || clock == "tai";
}

static uint64_t numberAfter(const std::string& line, size_t colon)
{
    return std::strtoull(line.c_str() + colon + 1, nullptr, 10);
}

bool parseCpuStat(std::string_view text, std::string* buffer, CpuStats* stats)
{
    std::istringstream in{std::string(optionString(text))};
    std::string line;
    bool any = false;
    while (std::getline(in, line)) {
        size_t colon = line.find(':');
        if (colon == std::string::npos) continue;
        std::string key = line.substr(0, colon);
        if (key == "Buffer") {
            size_t start = line.find_first_not_of(' ', colon + 1);
            *buffer = start == std::string::npos ? std::string() : line.substr(start);
            continue;
        }
        any = true;
        if (key == "CPU")
            stats->cpu = static_cast<int>(numberAfter(line, colon));
        else if (key == "entries")
            stats->entries = numberAfter(line, colon);
        else if (key == "overrun")
            stats->overrun = numberAfter(line, colon);
        else if (key == "commit overrun")
            stats->commitOverrun = numberAfter(line, colon);
        else if (key == "dropped events")
            stats->droppedEvents = numberAfter(line, colon);
        else if (key == "read events")
            stats->readEvents = numberAfter(line, colon);
    }
    if (any) stats->text = optionString(text);
    return any && stats->cpu >= 0;
}

bool parseTimeShift(std::string_view payload, bool bigEndian, TimeShift* shift)
{
    ByteReader r(reinterpret_cast<const uint8_t*>(payload.data()), payload.size(), bigEndian);
    shift->peerTraceId = r.u64();
    shift->flags = r.u32();
    uint32_t cpus = r.u32();
    if (r.failed() || cpus > 4096) return false;
    shift->cpus.resize(cpus);
    for (auto& samples : shift->cpus) {
        uint32_t count = r.u32();
        if (r.failed() || count > r.remaining() / 24) return false;
        samples.resize(count);
        for (auto& s : samples) s.time = static_cast<int64_t>(r.u64());
        for (auto& s : samples) s.offset = static_cast<int64_t>(r.u64());
        for (auto& s : samples) s.scaling = static_cast<int64_t>(r.u64());
    }
    if (r.remaining() > 0) {
        for (auto& samples : shift->cpus)
            for (auto& s : samples) s.fraction = static_cast<int64_t>(r.u64());
    }
    if (r.failed()) return false;
    for (auto& samples : shift->cpus) {
        std::stable_sort(samples.begin(), samples.end(), [](const auto& a, const auto& b) { return a.time < b.time; });
        samples.erase(
            std::unique(samples.begin(), samples.end(), [](const auto& a, const auto& b) { return a.time == b.time; }),
            samples.end());
    }
    return true;
}

bool parseGuest(std::string_view payload, bool bigEndian, GuestInfo* guest)
{
    ByteReader r(reinterpret_cast<const uint8_t*>(payload.data()), payload.size(), bigEndian);
    guest->name = r.cstring();
    guest->traceId = r.u64();
    uint32_t count = r.u32();
    if (r.failed() || count > r.remaining() / 8) return false;
    for (uint32_t i = 0; i < count; ++i) {
        int cpu = static_cast<int>(r.u32());
        int pid = static_cast<int>(r.u32());
        guest->vcpuPids.emplace_back(cpu, pid);
    }
    return !r.failed();
}

} // namespace ringside
