// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "analysis/guesttime.h"
#include "plugin/plugin.h"

#include <map>

namespace ringside::kvm {

// A KVM host's vCPU threads: per thread its vCPU, entries, exits, time in the guest (and its
// share of the recording), exits without an entry and exits by reason: the table `ringside-cli
// kvm` prints. The core's GuestTime pairs the events (the same code: it is inline) and draws
// each stay on the thread's task row.
class KvmPlugin : public Plugin {
public:
    static constexpr const char* kName = "kvm";

    std::string name() const override { return kName; }
    std::string description() const override;
    std::vector<EventRequest> requests() const override { return m_stays.requests(); }
    void bind(const std::vector<bool>& bound) override;
    void setRecording(const RecordingInfo& info) override { m_info = info; }
    void consume(const ConsumedRecord& record) override;
    std::string nothingToShow() const override;
    std::vector<StatsTable> statistics() const override;

    const GuestTime& stays() const { return m_stays; }

    // The name of a VMX exit reason (Intel's numbering, which the kvm_exit of an x86 host
    // with VMX records); "exit N" for others.
    static std::string exitReasonName(uint32_t reason);

private:
    GuestTime m_stays;
    RecordingInfo m_info;
    std::map<int32_t, uint32_t> m_tasks; // the task of each vCPU thread's pid, from its first record
    bool m_bound = false;
};

} // namespace ringside::kvm
