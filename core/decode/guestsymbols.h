// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <cstdint>
#include <functional>

struct tep_handle;

namespace ringside {

// Guest kernel symbols for a host's kvm_entry/kvm_exit addresses. libtraceevent's kvm plugin
// asks the application for the name of a guest address through a weak function
// (tep_plugin_kvm_get_func), which Ringside defines: a program that exports its symbols
// (ENABLE_EXPORTS) overrides the plugin's empty one. `trace-cmd report -i host -i guest`
// prints these names; a host read alone prints none, and neither does Ringside then.
//
// A resolver takes the host task's pid and the address; it returns the guest function's name
// (owned by the guest's tep handle) and moves the address to the function's start, or returns
// null when the task runs no vCPU of a guest it knows. Registered per host tep handle for as
// long as that handle prints; thread-safe.
using GuestResolver = std::function<const char*(int pid, unsigned long long* address)>;
void setGuestResolver(tep_handle* host, GuestResolver resolver);
void clearGuestResolver(tep_handle* host);

} // namespace ringside
