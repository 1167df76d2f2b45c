// SPDX-License-Identifier: GPL-2.0-or-later
#include "decode/guestsymbols.h"

#include <traceevent/event-parse.h>

#include <mutex>
#include <unordered_map>

namespace ringside {

namespace {

std::mutex g_lock;
std::unordered_map<tep_handle*, GuestResolver>& resolvers()
{
    static std::unordered_map<tep_handle*, GuestResolver> map;
    return map;
}

} // namespace

void setGuestResolver(tep_handle* host, GuestResolver resolver)
{
    const std::lock_guard lock(g_lock);
    resolvers()[host] = std::move(resolver);
}

void clearGuestResolver(tep_handle* host)
{
    const std::lock_guard lock(g_lock);
    resolvers().erase(host);
}

} // namespace ringside

// Overrides the kvm plugin's weak definition (see guestsymbols.h).
const char* tep_plugin_kvm_get_func(struct tep_event* event, struct tep_record* record, unsigned long long* paddr)
{
    if (!event || !event->tep || !record || !paddr) return nullptr;
    ringside::GuestResolver resolver;
    {
        const std::lock_guard lock(ringside::g_lock);
        auto it = ringside::resolvers().find(event->tep);
        if (it == ringside::resolvers().end()) return nullptr;
        resolver = it->second;
    }
    return resolver(tep_data_pid(event->tep, record), paddr);
}

// The names come from the guest's tep handle, which owns them.
void tep_plugin_kvm_put_func(const char*) {}
