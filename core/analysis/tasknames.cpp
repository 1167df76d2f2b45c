// SPDX-License-Identifier: GPL-2.0-or-later
#include "analysis/tasknames.h"

namespace ringside {

namespace {
// Each request's (pid, comm) field pairs, in requests()' order.
enum NameRequest : size_t { Switch, Wakeup, WakeupNew, Fork, NewTask };
} // namespace

std::vector<EventRequest> TaskNames::requests() const
{
    return {{"sched", "sched_switch", {"prev_pid", "prev_comm", "next_pid", "next_comm"}},
            {"sched", "sched_wakeup", {"pid", "comm"}},
            {"sched", "sched_wakeup_new", {"pid", "comm"}},
            {"sched", "sched_process_fork", {"child_pid", "child_comm"}},
            {"task", "task_newtask", {"pid", "comm"}}};
}

namespace {
// pid 0 is the idle task of every CPU ("swapper/N" in its switches), named <idle> apart.
bool nameable(int64_t pid, std::string_view comm)
{
    return pid > 0 && pid <= INT32_MAX && !comm.empty();
}

// The pid and name pairs a record gives, in the order they count.
template <typename Learn>
void namesOf(const ConsumedRecord& record, Learn&& learn)
{
    learn(record.field(0).asSigned(), record.field(1).asText());
    if (record.request == Switch) learn(record.field(2).asSigned(), record.field(3).asText());
}
} // namespace

// One stretch of a stream: the first name each pid had in it, and when.
class TaskNames::Piece : public StreamPiece {
public:
    void consume(const ConsumedRecord& record) override
    {
        namesOf(record, [&](int64_t pid, std::string_view comm) {
            if (nameable(pid, comm)) first.try_emplace(int32_t(pid), record.timestamp, std::string(comm));
        });
    }
    std::unordered_map<int32_t, std::pair<uint64_t, std::string>> first;
};

void TaskNames::consume(const ConsumedRecord& record)
{
    namesOf(record, [this](int64_t pid, std::string_view comm) { learn(pid, comm); });
}

std::unique_ptr<StreamPiece> TaskNames::newPiece(StreamId)
{
    return std::make_unique<Piece>();
}

void TaskNames::join(std::vector<FedPiece> pieces)
{
    // The batch's earliest name of each pid; the pieces come in stream order, so a tie keeps
    // the lower stream's, as the merged order would.
    std::unordered_map<int32_t, std::pair<uint64_t, std::string>> earliest;
    for (FedPiece& fed : pieces)
        for (auto& [pid, named] : static_cast<Piece&>(*fed.piece).first) {
            auto [it, added] = earliest.try_emplace(pid, std::move(named));
            if (!added && named.first < it->second.first) it->second = std::move(named);
        }
    // An earlier batch's name came before any of this one's.
    const std::lock_guard lock(m_lock);
    for (auto& [pid, named] : earliest) m_names.try_emplace(pid, std::move(named.second));
}

void TaskNames::learn(int64_t pid, std::string_view comm)
{
    if (!nameable(pid, comm)) return;
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
