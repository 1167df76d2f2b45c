// SPDX-License-Identifier: GPL-2.0-or-later
// `ringside-cli kvm HOST.dat [GUEST.dat...] [--json]`: when each vCPU thread of a KVM host ran
// its guest, why it came back, and how a paired guest's CPUs line up with those stays.
#include "commands.h"

#include "decode/eventformatter.h"
#include "decode/mergedreport.h"
#include "plugin/statstext.h"
#include "trace.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>

namespace ringside::cli {

namespace {

const char* const kUsage = "usage: ringside-cli kvm HOST.dat [GUEST.dat...] [--json]\n";

// The kvm plugin's name for an exit reason ("reason EPT_MISCONFIG rip ..."), read from the
// report text of one exit with that number.
std::string reasonName(EventFormatter& formatter, const GuestTime::Stay& stay)
{
    const std::string info = formatter.info({stay.exitStream, uint32_t(stay.exitRow)});
    const size_t at = info.find("reason ");
    if (at == std::string::npos) return std::to_string(stay.exitReason);
    const size_t end = info.find(' ', at + 7);
    return info.substr(at + 7, end == std::string::npos ? std::string::npos : end - at - 7);
}

struct GuestCpu {
    int cpu = 0;
    int32_t hostPid = -1;
    uint64_t events = 0, inside = 0;
};

} // namespace

int kvmCommand(const std::vector<std::string>& args)
{
    std::vector<std::string> paths;
    bool json = false;
    for (const std::string& a : args) {
        if (a == "--json")
            json = true;
        else if (!a.empty() && a[0] != '-')
            paths.push_back(a);
        else
            return std::fputs(kUsage, stderr), 2;
    }
    if (paths.empty()) return std::fputs(kUsage, stderr), 2;
    std::vector<std::unique_ptr<Trace>> traces;
    for (const std::string& path : paths) {
        auto trace = Trace::open(path);
        if (!trace) {
            std::fprintf(stderr, "ringside-cli: %s\n", trace.error().message.c_str());
            return 1;
        }
        traces.push_back(std::move(*trace));
    }
    const Trace& host = *traces.front();
    const GuestTime& stays = host.guestTime();
    if (!stays.available()) {
        std::fprintf(stderr, "ringside-cli: %s has no kvm_entry/kvm_exit events: no guest ran while it was recorded\n",
                     paths.front().c_str());
        return 1;
    }
    std::vector<const Trace*> all;
    for (const auto& t : traces) all.push_back(t.get());
    const RecordingPairing pairing = pairRecordings(all, paths);
    for (const std::string& note : pairing.notes) std::fprintf(stderr, "ringside-cli: %s\n", note.c_str());

    const uint64_t span = host.store().lastTimestamp() - host.store().firstTimestamp();
    EventFormatter formatter(host);
    StatsTable vcpus{"vcpus", "vCPU threads of " + paths.front(), {}, {}};
    vcpus.columns = {{"vcpu", "vCPU"},
                     {"pid", "host task"},
                     {"comm", "name"},
                     {"entries", "entries"},
                     {"exits", "exits"},
                     {"guest_ns", "in guest (ns)"},
                     {"guest_percent", "% of the recording"},
                     {"exits_without_entry", "exits without entry"},
                     {"exit_reasons", "exits by reason"}};
    for (const auto& [pid, task] : stays.tasks()) {
        std::map<uint32_t, std::pair<uint64_t, std::string>> reasons;
        for (const GuestTime::Stay& stay : task.stays) {
            auto& [count, name] = reasons[stay.exitReason];
            if (!count++) name = reasonName(formatter, stay);
        }
        std::vector<std::pair<uint64_t, std::string>> sorted;
        for (const auto& [reason, counted] : reasons) sorted.push_back(counted);
        std::sort(sorted.rbegin(), sorted.rend());
        StatsTable::Counts byReason;
        for (const auto& [count, name] : sorted) byReason.emplace_back(name, int64_t(count));
        vcpus.rows.push_back(
            {int64_t(task.vcpu), int64_t(pid), formatter.comm(pid), task.entries, uint64_t(task.stays.size()),
             task.guestNs, span ? 100.0 * double(task.guestNs) / double(span) : 0.0, task.exitsWithoutEntry, byReason});
    }

    // A paired guest's events happen while its vCPU is in the guest: how many do says how well
    // the clocks were aligned.
    StatsTable guestCpus{"guest_cpus", "guest CPUs and the host tasks that ran them", {}, {}};
    guestCpus.columns = {{"guest", "guest"},
                         {"cpu", "guest CPU"},
                         {"host_pid", "host task"},
                         {"events", "events"},
                         {"inside_stays", "inside the vCPU's stays"},
                         {"inside_percent", "%"}};
    for (const RecordingPairing::Guest& pair : pairing.guests) {
        if (pair.host != 0) continue;
        const Trace& guest = *traces[pair.guest];
        std::map<int, GuestCpu> cpus;
        for (const GuestInfo& info : host.file().info().guests)
            if (guest.file().info().traceId && info.traceId == *guest.file().info().traceId)
                for (const auto& [vcpu, pid] : info.vcpuPids) cpus[vcpu] = {vcpu, pid, 0, 0};
        const EventStore& store = guest.store();
        for (size_t s = 0; s < store.streamCount(); ++s) {
            const CpuColumns& columns = store.stream(StreamId(uint16_t(s))).columns;
            auto cpu = cpus.find(columns.cpu);
            if (cpu == cpus.end()) continue;
            for (size_t i = 0; i < columns.size(); ++i) {
                ++cpu->second.events;
                cpu->second.inside += stays.stayAt(cpu->second.hostPid, columns.timestamp[i]) != nullptr;
            }
        }
        for (const auto& [vcpu, c] : cpus)
            guestCpus.rows.push_back({paths[pair.guest], int64_t(c.cpu), int64_t(c.hostPid), c.events, c.inside,
                                      c.events ? 100.0 * double(c.inside) / double(c.events) : 0.0});
    }

    if (json) {
        std::printf("{\"host\": %s,\n\"vcpus\": %s,\n\"guest_cpus\": %s}\n", jsonQuoted(paths.front()).c_str(),
                    tableJson(vcpus).c_str(), tableJson(guestCpus).c_str());
        return 0;
    }
    std::printf("%s", tableText(vcpus).c_str());
    if (!guestCpus.rows.empty()) std::printf("\n%s", tableText(guestCpus).c_str());
    return 0;
}

} // namespace ringside::cli
