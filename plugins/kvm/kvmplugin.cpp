// SPDX-License-Identifier: GPL-2.0-or-later
#include "kvmplugin.h"

#include <map>

namespace ringside::kvm {

std::string KvmPlugin::description() const
{
    return "A KVM host's vCPU threads: when each ran its guest (kvm_entry to kvm_exit) on its task row, time in "
           "the guest and exits by reason";
}

void KvmPlugin::bind(const std::vector<bool>& bound)
{
    m_bound = bound.size() >= 2 && bound[0] && bound[1];
    m_stays.bind(bound);
}

std::string KvmPlugin::nothingToShow() const
{
    if (!m_bound) return "the recording has no kvm_entry/kvm_exit formats: it was not made on a KVM host";
    if (!m_stays.available()) return "no kvm_entry/kvm_exit events: no guest ran while it was recorded";
    return {};
}

std::string KvmPlugin::exitReasonName(uint32_t reason)
{
    // Intel's basic exit reasons (SDM vol. 3, appendix C), as Linux names them.
    static const std::map<uint32_t, const char*> vmx = {
        {0, "EXCEPTION_NMI"},
        {1, "EXTERNAL_INTERRUPT"},
        {2, "TRIPLE_FAULT"},
        {3, "INIT_SIGNAL"},
        {4, "SIPI_SIGNAL"},
        {7, "INTERRUPT_WINDOW"},
        {8, "NMI_WINDOW"},
        {9, "TASK_SWITCH"},
        {10, "CPUID"},
        {12, "HLT"},
        {13, "INVD"},
        {14, "INVLPG"},
        {15, "RDPMC"},
        {16, "RDTSC"},
        {18, "VMCALL"},
        {19, "VMCLEAR"},
        {20, "VMLAUNCH"},
        {21, "VMPTRLD"},
        {22, "VMPTRST"},
        {23, "VMREAD"},
        {24, "VMRESUME"},
        {25, "VMWRITE"},
        {26, "VMOFF"},
        {27, "VMON"},
        {28, "CR_ACCESS"},
        {29, "DR_ACCESS"},
        {30, "IO_INSTRUCTION"},
        {31, "MSR_READ"},
        {32, "MSR_WRITE"},
        {33, "INVALID_STATE"},
        {34, "MSR_LOAD_FAIL"},
        {36, "MWAIT_INSTRUCTION"},
        {37, "MONITOR_TRAP_FLAG"},
        {39, "MONITOR_INSTRUCTION"},
        {40, "PAUSE_INSTRUCTION"},
        {41, "MCE_DURING_VMENTRY"},
        {43, "TPR_BELOW_THRESHOLD"},
        {44, "APIC_ACCESS"},
        {45, "EOI_INDUCED"},
        {46, "GDTR_IDTR"},
        {47, "LDTR_TR"},
        {48, "EPT_VIOLATION"},
        {49, "EPT_MISCONFIG"},
        {50, "INVEPT"},
        {51, "RDTSCP"},
        {52, "PREEMPTION_TIMER"},
        {53, "INVVPID"},
        {54, "WBINVD"},
        {55, "XSETBV"},
        {56, "APIC_WRITE"},
        {57, "RDRAND"},
        {58, "INVPCID"},
        {59, "VMFUNC"},
        {60, "ENCLS"},
        {61, "RDSEED"},
        {62, "PML_FULL"},
        {63, "XSAVES"},
        {64, "XRSTORS"},
        {67, "UMWAIT"},
        {68, "TPAUSE"},
        {74, "BUS_LOCK"},
        {75, "NOTIFY"},
    };
    auto it = vmx.find(reason);
    return it != vmx.end() ? it->second : "exit " + std::to_string(reason);
}

void KvmPlugin::consume(const ConsumedRecord& record)
{
    if (record.task.valid()) m_tasks.try_emplace(record.pid, record.task.value);
    m_stays.consume(record);
}

std::vector<StatsTable> KvmPlugin::statistics() const
{
    using Kind = StatsTable::Kind;
    StatsTable vcpus{"vcpus", "vCPU threads", {}, true};
    auto& vcpu = vcpus.column("vcpu", "vCPU", Kind::Number);
    auto& thread = vcpus.column("task", "Host task", Kind::Task);
    auto& entries = vcpus.column("entries", "Entries", Kind::Count);
    auto& exits = vcpus.column("exits", "Exits", Kind::Count);
    auto& guest = vcpus.column("guest_ns", "In the guest", Kind::Duration);
    auto& share = vcpus.column("guest_percent", "% of the recording", Kind::Real);
    auto& orphans = vcpus.column("exits_without_entry", "Exits without entry", Kind::Count);
    auto& reasons = vcpus.column("exit_reasons", "Exits by reason", Kind::Counts);
    const auto [first, last] = m_info.timeRange ? m_info.timeRange() : std::pair<uint64_t, uint64_t>(0, 0);
    const uint64_t span = last > first ? last - first : 0;
    for (const auto& [pid, task] : m_stays.tasks()) {
        std::map<std::string, int64_t> byReason;
        for (const GuestTime::Stay& stay : task.stays)
            // Only VMX numbers have names here; an AMD host's (SVM) are given as numbers.
            ++byReason[task.isa == 1 ? exitReasonName(stay.exitReason) : "exit " + std::to_string(stay.exitReason)];
        StatsTable::Counts counts(byReason.begin(), byReason.end());
        std::stable_sort(counts.begin(), counts.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
        vcpu.numbers.push_back(task.vcpu);
        const auto id = m_tasks.find(pid);
        thread.numbers.push_back(id != m_tasks.end() ? int64_t(id->second) : StatsTable::kUnknown);
        entries.numbers.push_back(int64_t(task.entries));
        exits.numbers.push_back(int64_t(task.stays.size()));
        guest.numbers.push_back(int64_t(task.guestNs));
        share.reals.push_back(span ? 100.0 * double(task.guestNs) / double(span) : 0.0);
        orphans.numbers.push_back(int64_t(task.exitsWithoutEntry));
        reasons.counts.push_back(std::move(counts));
    }
    std::vector<StatsTable> all;
    all.push_back(std::move(vcpus));
    return all;
}

} // namespace ringside::kvm
