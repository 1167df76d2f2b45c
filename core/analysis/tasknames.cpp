// SPDX-License-Identifier: GPL-2.0-or-later
#include "analysis/tasknames.h"

namespace ringside {

namespace {
// Each request's (pid, comm) field pairs, in requests()' order.
enum Request : size_t { Switch, Wakeup, WakeupNew, Fork, NewTask };
} // namespace

std::vector<EventRequest> TaskNames::requests() const
{
    return {{"sched", "sched_switch", {"prev_pid", "prev_comm", "next_pid", "next_comm"}},
            {"sched", "sched_wakeup", {"pid", "comm"}},
            {"sched", "sched_wakeup_new", {"pid", "comm"}},
            {"sched", "sched_process_fork", {"child_pid", "child_comm"}},
            {"task", "task_newtask", {"pid", "comm"}}};
}

void TaskNames::consume(const ConsumedRecord& record)
{
    learn(record.field(0).asSigned(), record.field(1).asText());
    if (record.request == Switch) learn(record.field(2).asSigned(), record.field(3).asText());
}

void TaskNames::learn(int64_t pid, std::string_view comm)
{
    // pid 0 is the idle task of every CPU ("swapper/N" in its switches), named <idle> apart.
    if (pid <= 0 || pid > INT32_MAX || comm.empty()) return;
    const std::lock_guard lock(m_lock);
    m_names.try_emplace(static_cast<int32_t>(pid), comm);
}

std::string TaskNames::name(int32_t pid) const
{
    const std::lock_guard lock(m_lock);
    auto it = m_names.find(pid);
    return it == m_names.end() ? std::string() : it->second;
}

size_t TaskNames::size() const
{
    const std::lock_guard lock(m_lock);
    return m_names.size();
}

} // namespace ringside
