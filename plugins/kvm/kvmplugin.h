// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "analysis/guesttime.h"
#include "plugin/plugin.h"

namespace ringside::kvm {

// A KVM host's vCPU threads: when each ran its guest (kvm_entry to the next kvm_exit) as a
// state on the thread's task row, and per thread its entries, exits, time in the guest and
// exits by reason. The core's GuestTime pairs the events; this plugin shows them.
class KvmPlugin : public Plugin {
public:
    static constexpr const char* kName = "kvm";

    std::string name() const override { return kName; }
    std::string description() const override;
    std::vector<EventRequest> requests() const override { return m_stays.requests(); }
    void bind(const std::vector<bool>& bound) override;
    void setRecording(const RecordingInfo& info) override { m_machine = info.machine; }
    void consume(const ConsumedRecord& record) override { m_stays.consume(record); }
    std::string nothingToShow() const override;
    PluginTables tables(const RecordingInfo& info) const override;

    const GuestTime& stays() const { return m_stays; }

    // The name of a VMX exit reason (Intel's numbering, which the kvm_exit of an x86 host
    // with VMX records); "exit N" for others.
    static std::string exitReasonName(uint32_t reason);

private:
    GuestTime m_stays;
    bool m_bound = false;
    std::string m_machine;
};

} // namespace ringside::kvm
