// SPDX-License-Identifier: GPL-2.0-or-later
#include "analysis/guesttime.h"

#include <algorithm>

namespace ringside {

namespace {

enum Request : size_t { kEntry, kExit };

} // namespace

std::vector<EventRequest> GuestTime::requests() const
{
    return {{"kvm", "kvm_entry", {"vcpu_id"}}, {"kvm", "kvm_exit", {"exit_reason"}}};
}

void GuestTime::consume(const ConsumedRecord& record)
{
    VcpuTask& task = m_tasks[record.pid];
    if (record.request == kEntry) {
        task.vcpu = int(record.field(0).asUnsigned());
        ++task.entries;
        // A second entry without an exit between (a lost exit): the first stay is dropped.
        m_entered[record.pid] = record.timestamp;
        task.openAtEnd = true;
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
    task.guestNs += stay.exit - stay.entry;
    task.openAtEnd = false;
    m_entered.erase(open);
}

const GuestTime::Stay* GuestTime::stayAt(int32_t pid, uint64_t time) const
{
    auto task = m_tasks.find(pid);
    if (task == m_tasks.end()) return nullptr;
    const auto& stays = task->second.stays;
    auto it = std::upper_bound(stays.begin(), stays.end(), time, [](uint64_t t, const Stay& s) { return t < s.entry; });
    if (it == stays.begin()) return nullptr;
    --it;
    return time <= it->exit ? &*it : nullptr;
}

} // namespace ringside
