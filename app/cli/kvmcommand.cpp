// SPDX-License-Identifier: GPL-2.0-or-later
// `ringside-cli kvm HOST.dat [GUEST.dat...] [--json]`: when each vCPU thread of a KVM host ran
// its guest, why it came back, and how a paired guest's CPUs line up with those stays.
#include "commands.h"
#include "jsonschema.h"

#include "decode/mergedreport.h"
#include "plugin/statstext.h"
#include "pluginchoice.h"
#include "trace.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>

namespace ringside::cli {

namespace {

const char* const kKvmUsage = "usage: ringside-cli kvm HOST.dat [GUEST.dat...] [--json]\n";

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
            return std::fputs(kKvmUsage, stderr), 2;
    }
    if (paths.empty()) return std::fputs(kKvmUsage, stderr), 2;
    // The host with the kvm plugin: its table is what this prints.
    PluginChoice choice;
    choice.only = {"kvm"};
    std::vector<std::unique_ptr<Plugin>> plugins;
    std::string error;
    if (!choice.instantiate(plugins, error)) {
        std::fprintf(stderr, "ringside-cli: %s\n", error.c_str());
        return 1;
    }
    std::vector<std::unique_ptr<Trace>> traces;
    for (size_t i = 0; i < paths.size(); ++i) {
        auto trace = Trace::open(paths[i], LoadOptions(), {}, i == 0 ? std::move(plugins) : decltype(plugins)());
        if (!trace) {
            std::fprintf(stderr, "ringside-cli: %s\n", trace.error().message.c_str());
            return 1;
        }
        noteFailures(**trace, paths[i]);
        traces.push_back(std::move(*trace));
    }
    const Trace& host = *traces.front();
    const GuestTime& stays = host.guestTime();
    if (!stays.available()) {
        std::fprintf(stderr, "ringside-cli: %s has no kvm_entry/kvm_exit events: no guest ran while it was recorded\n",
                     paths.front().c_str());
        return 1;
    }
    const Plugin& kvm = *host.plugins().front();
    if (!host.pluginFailure(kvm).empty()) return 1; // said with the other failures
    const auto tables = host.statistics(kvm);
    const StatsTable* vcpus = nullptr;
    for (const StatsTable& t : *tables)
        if (t.key == "vcpus") vcpus = &t;
    if (!vcpus) {
        std::fprintf(stderr, "ringside-cli: the kvm plugin made no vCPU table for %s\n", paths.front().c_str());
        return 1;
    }
    std::vector<const Trace*> all;
    for (const auto& t : traces) all.push_back(t.get());
    const RecordingPairing pairing = pairRecordings(all, paths);
    for (const std::string& note : pairing.notes) std::fprintf(stderr, "ringside-cli: %s\n", note.c_str());

    // A paired guest's events happen while its vCPU is in the guest: how many do says how well
    // the clocks were aligned.
    using Kind = StatsTable::Kind;
    StatsTable guestCpus{"guest_cpus", "Guest CPUs and the host tasks that ran them", {}, false};
    auto& guestName = guestCpus.column("guest", "Guest", Kind::Text);
    auto& guestCpu = guestCpus.column("cpu", "Guest CPU", Kind::Number);
    auto& hostTask = guestCpus.column("host_task", "Host task", Kind::Task);
    auto& events = guestCpus.column("events", "Events", Kind::Count);
    auto& inside = guestCpus.column("inside_stays", "Inside the vCPU's stays", Kind::Count);
    auto& share = guestCpus.column("inside_percent", "%", Kind::Real);
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
        for (const auto& [vcpu, c] : cpus) {
            guestName.texts.push_back(paths[pair.guest]);
            guestCpu.numbers.push_back(c.cpu);
            const TaskId task = host.taskIndex().busiestTaskOf(c.hostPid);
            hostTask.numbers.push_back(task.valid() ? int64_t(task.value) : StatsTable::kUnknown);
            events.numbers.push_back(int64_t(c.events));
            inside.numbers.push_back(int64_t(c.inside));
            share.reals.push_back(c.events ? 100.0 * double(c.inside) / double(c.events) : 0.0);
        }
    }

    const StatsContext context = host.statsContext();
    if (json) {
        std::printf("{\"schema\": \"%s\", \"host\": %s,\n\"vcpus\": %s,\n\"guest_cpus\": %s}\n", schema::kKvm,
                    jsonQuoted(paths.front()).c_str(),
                    tableJson(*vcpus, context).c_str(), tableJson(guestCpus, context).c_str());
        return 0;
    }
    std::printf("%s", tableText(*vcpus, context).c_str());
    if (guestCpus.rows()) std::printf("\n%s", tableText(guestCpus, context).c_str());
    return 0;
}

} // namespace ringside::cli
