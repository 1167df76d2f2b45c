// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "consume/recordconsumer.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ringside {

// When each vCPU thread of a KVM host ran its guest: from kvm_entry (the host enters the
// guest) to the next kvm_exit of the same task (the guest gives the CPU back, for a reason).
// What KernelShark's KVM combo plugin draws on the host's task rows (the table "guest_time":
// each stay an interval of the vCPU thread), and what lines a guest's CPU up with the host
// task that ran it. Fed in merged order by the consumer registry. Inline: the kvm plugin (a
// module, which sees the core's headers only) pairs entries and exits with one of its own.
class GuestTime : public RecordConsumer {
public:
    static constexpr const char* kName = "guest-time";

    // One stay in the guest; `exitReason` is the kernel's number (the kvm plugin names it).
    struct Stay {
        uint64_t entry = 0, exit = 0;
        uint32_t exitReason = 0;
        uint64_t exitRow = 0; // the kvm_exit's index in its stream, for jumping to it
        StreamId exitStream;
    };
    struct VcpuTask {
        int vcpu = -1;
        std::vector<Stay> stays; // in time order, each closed by its exit
        uint64_t guestNs = 0;    // the stays' total
        uint64_t entries = 0;
        uint64_t exitsWithoutEntry = 0;
        bool openAtEnd = false; // in the guest when the recording ended
        int isa = 0;            // of its exits: 1 VMX (Intel), 2 SVM (AMD), 0 unknown
    };

    std::string name() const override { return kName; }
    std::vector<EventRequest> requests() const override
    {
        // The exit's isa (1 VMX, 2 SVM: what its reason numbers mean) on its own: kernels
        // before 5.x lack the field, and the stays need none of it.
        return {{"kvm", "kvm_entry", {"vcpu_id"}}, {"kvm", "kvm_exit", {"exit_reason"}}, {"kvm", "kvm_exit", {"isa"}}};
    }
    void setTables(TableSink& tables) override
    {
        IntervalTableSpec spec{"guest_time", "In the guest", RowOwner::Task, {{"in the guest", 0x2e8b57}}, false};
        spec.guestStays = true;
        m_table = &tables.intervals(spec);
    }
    void bind(const std::vector<bool>& bound) override { m_bound = bound.size() >= 2 && bound[0] && bound[1]; }
    void consume(const ConsumedRecord& record) override
    {
        VcpuTask& task = m_tasks[record.pid];
        if (record.request == 2) {
            task.isa = int(record.field(0).asUnsigned());
            return;
        }
        if (record.request == 0) { // kvm_entry
            task.vcpu = int(record.field(0).asUnsigned());
            ++task.entries;
            // A second entry without an exit between (a lost exit): the first stay is dropped.
            m_entered[record.pid] = record.timestamp;
            task.openAtEnd = true;
            if (m_table && record.task.valid()) m_table->open(record.timestamp, record.task.value, 0);
            return;
        }
        auto open = m_entered.find(record.pid);
        if (open == m_entered.end()) {
            ++task.exitsWithoutEntry;
            return;
        }
        Stay stay;
        stay.entry = open->second;
        stay.exit = std::max(record.timestamp, open->second);
        stay.exitReason = uint32_t(record.field(0).asUnsigned());
        stay.exitRow = record.index;
        stay.exitStream = record.stream;
        task.stays.push_back(stay);
        if (m_table && record.task.valid()) m_table->add(stay.entry, stay.exit, record.task.value, 0);
        task.guestNs += stay.exit - stay.entry;
        task.openAtEnd = false;
        m_entered.erase(open);
    }

    // Whether the recording has kvm_entry and kvm_exit records.
    bool available() const { return m_bound && !m_tasks.empty(); }
    // Per host task (pid) that entered a guest.
    const std::map<int32_t, VcpuTask>& tasks() const { return m_tasks; }
    // The stay of `pid` that holds `time`, or null.
    const Stay* stayAt(int32_t pid, uint64_t time) const
    {
        auto task = m_tasks.find(pid);
        if (task == m_tasks.end()) return nullptr;
        const auto& stays = task->second.stays;
        auto it =
            std::upper_bound(stays.begin(), stays.end(), time, [](uint64_t t, const Stay& s) { return t < s.entry; });
        if (it == stays.begin()) return nullptr;
        --it;
        return time <= it->exit ? &*it : nullptr;
    }

private:
    bool m_bound = false;
    IntervalSink* m_table = nullptr;
    std::map<int32_t, VcpuTask> m_tasks;
    std::map<int32_t, uint64_t> m_entered; // pid -> entry time of the open stay
};

} // namespace ringside
