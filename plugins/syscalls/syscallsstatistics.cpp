// SPDX-License-Identifier: GPL-2.0-or-later
// The syscalls plugin's statistics tables, made from its sums and failures when asked for.
#include "syscallsplugin.h"

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>

namespace ringside::syscalls {

std::vector<StatsTable> SyscallsPlugin::statistics() const
{
    // After finalStatistics() the sums are gone, and the core holds what they came to.
    return m_tallyHandedOver ? std::vector<StatsTable>() : tables(nullptr);
}

std::vector<StatsTable> SyscallsPlugin::finalStatistics()
{
    std::vector<StatsTable> made = tables(this);
    m_tallyHandedOver = true;
    return made;
}

std::vector<StatsTable> SyscallsPlugin::tables(SyscallsPlugin* consuming) const
{
    std::vector<const Tally*> allSums{&m_tally};
    for (const Tally& t : m_pieceTallies) allSums.push_back(&t);
    using Kind = StatsTable::Kind;
    // Hundreds of thousands of failures of a few thousand tasks.
    TaskLives lives(m_info);
    auto taskOf = [&](int32_t pid, uint64_t time) { return int64_t(lives.at(pid, time)); };
    std::vector<std::string> names;
    {
        const std::lock_guard lock(m_namesLock);
        names = m_names;
    }
    static const std::string unnamed = "?";
    auto nameOf = [&](uint32_t id) -> const std::string& { return id < names.size() ? names[id] : unnamed; };
    // A few distinct return values among hundreds of thousands of failures: each named once.
    std::unordered_map<int64_t, std::string> errnoNames;
    auto errnoOf = [&](int64_t ret) -> const std::string& {
        auto [it, added] = errnoNames.try_emplace(ret);
        if (added) it->second = errnoName(ret);
        return it->second;
    };
    // The errors by return value of each system call and of each task and call, from the
    // failures. Shown most frequent first, then by name: the same however the sums were added.
    using ByErrno = std::vector<std::pair<int64_t, int64_t>>;
    // Tens of thousands of tasks' calls failed: a flat index to their counts, not a node each
    // (the index's lookups, one per failure and one per row, took most of the tables' time).
    FlatMap<uint32_t> taskCallErrnos; // pid << 32 | name -> position in errnosOfTaskCall
    std::vector<ByErrno> errnosOfTaskCall;
    auto count = [](ByErrno& counts, int64_t ret) {
        auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& e) { return e.first == ret; });
        if (it == counts.end())
            counts.emplace_back(ret, 1);
        else
            ++it->second;
    };
    auto errnoCounts = [&](const ByErrno* byErrno) {
        StatsTable::Counts counts;
        if (!byErrno) return counts;
        for (const auto& [ret, n] : *byErrno) counts.emplace_back(errnoOf(ret), n);
        std::sort(counts.begin(), counts.end(),
                  [](const auto& a, const auto& b) { return a.second != b.second ? a.second > b.second : a.first < b.first; });
        return counts;
    };
    // Made in the order that holds least at once: the sums go once the rows per task and
    // call are made, then the failures once theirs are.
    std::vector<ChunkedList<Failure>> handedOver;
    if (consuming) handedOver.swap(consuming->m_failures);
    const std::vector<ChunkedList<Failure>>& failureLists = consuming ? handedOver : m_failures;
    // Failures by system call and errno: count and time (a name fails with a few errors).
    struct Group {
        int64_t ret = 0;
        int64_t count = 0;
        int64_t total = StatsTable::kUnknown; // until one has a duration
    };
    std::vector<std::vector<Group>> groupsOfName(names.size());
    uint64_t lastKey = UINT64_MAX; // a task fails one call over and over: its counts at hand
    uint32_t lastErrnos = 0;
    std::unordered_map<int32_t, int64_t> errorsOfPid; // a few thousand tasks failed
    int64_t* lastErrors = nullptr; // the last failure's pid's (a node's: it never moves)
    int32_t erringPid = -1;
    for (const ChunkedList<Failure>& list : failureLists)
        for (const Failure& f : list) {
            if (f.pid != erringPid || !lastErrors) lastErrors = &errorsOfPid[f.pid], erringPid = f.pid;
            ++*lastErrors;
            if (f.name >= groupsOfName.size()) groupsOfName.resize(f.name + 1u);
            std::vector<Group>& groups = groupsOfName[f.name];
            auto group = std::find_if(groups.begin(), groups.end(), [&](const Group& g) { return g.ret == f.ret; });
            if (group == groups.end()) group = groups.insert(groups.end(), Group{f.ret});
            ++group->count;
            if (f.duration != StatsTable::kUnknown)
                group->total = (group->total == StatsTable::kUnknown ? 0 : group->total) + f.duration;
            const uint64_t key = uint64_t(uint32_t(f.pid)) << 32 | f.name;
            if (key != lastKey) {
                bool added = false;
                lastErrnos = taskCallErrnos.findOrAdd(key, uint32_t(errnosOfTaskCall.size()), &added);
                if (added) errnosOfTaskCall.emplace_back();
                lastKey = key;
            }
            count(errnosOfTaskCall[lastErrnos], f.ret);
        }

    StatsTable bySyscall{"syscalls", "System calls", {}, false};
    auto& sName = bySyscall.column("name", "System call", Kind::Text);
    auto& sCalls = bySyscall.column("calls", "Calls", Kind::Count);
    auto& sErrors = bySyscall.column("errors", "Errors", Kind::Counts);
    auto& sTotal = bySyscall.column("total_ns", "Total", Kind::Duration);
    auto& sAvg = bySyscall.column("avg_ns", "Average", Kind::Duration);
    auto& sMax = bySyscall.column("max_ns", "Max", Kind::Duration);
    // The sums per name and per task: those per task and name added up.
    std::vector<Sums> perName;
    std::unordered_map<int32_t, Sums> perTask;
    size_t entries = 0;
    for (const Tally* t : allSums) {
        entries += t->keys.size();
        for (size_t i = 0; i < t->keys.size(); ++i) {
            const uint64_t key = t->keys[i];
            const uint32_t name = uint32_t(key);
            if (perName.size() <= name) perName.resize(name + 1u);
            perName[name].add(t->sums[i]);
            perTask[int32_t(key >> 32)].add(t->sums[i]);
        }
    }
    std::unordered_map<int32_t, uint64_t> firstOf; // each pid's first call
    for (const Tally* t : allSums)
        for (const auto& [pid, time] : t->firsts) {
            auto [it, added] = firstOf.try_emplace(pid, time);
            if (!added) it->second = std::min(it->second, time);
        }
    std::vector<uint32_t> byName;
    for (uint32_t id = 0; id < perName.size(); ++id)
        if (perName[id].calls) byName.push_back(id);
    std::sort(byName.begin(), byName.end(), [&](uint32_t a, uint32_t b) { return nameOf(a) < nameOf(b); });
    for (uint32_t id : byName) {
        const Sums& s = perName[id];
        sName.texts.push_back(nameOf(id));
        sCalls.numbers.push_back(s.calls);
        ByErrno byErrno;
        if (id < groupsOfName.size())
            for (const Group& g : groupsOfName[id]) byErrno.emplace_back(g.ret, g.count);
        sErrors.counts.push_back(errnoCounts(&byErrno));
        sTotal.numbers.push_back(s.timed ? int64_t(s.total) : StatsTable::kUnknown); // none with both ends
        sAvg.numbers.push_back(s.timed ? int64_t(s.total / s.timed) : StatsTable::kUnknown);
        sMax.numbers.push_back(s.timed ? int64_t(s.max) : StatsTable::kUnknown);
    }

    StatsTable byTask{"tasks", "System calls per task", {}, false};
    auto& tTask = byTask.column("task", "Task", Kind::Task);
    auto& tCalls = byTask.column("calls", "Calls", Kind::Count);
    auto& tErrors = byTask.column("errors", "Errors", Kind::Count);
    auto& tTotal = byTask.column("total_ns", "Total", Kind::Duration);
    std::vector<int32_t> pids;
    for (const auto& entry : perTask) pids.push_back(entry.first);
    std::sort(pids.begin(), pids.end());
    for (int32_t pid : pids) {
        const Sums& s = perTask.at(pid);
        tTask.numbers.push_back(taskOf(pid, firstOf.at(pid)));
        tCalls.numbers.push_back(s.calls);
        const auto errors = errorsOfPid.find(pid);
        tErrors.numbers.push_back(errors != errorsOfPid.end() ? errors->second : 0);
        tTotal.numbers.push_back(s.timed ? int64_t(s.total) : StatsTable::kUnknown);
    }

    StatsTable byTaskCall{"task_syscalls", "System calls per task and system call", {}, false};
    auto& cTask = byTaskCall.column("task", "Task", Kind::Task);
    auto& cName = byTaskCall.column("name", "System call", Kind::Label);
    cName.labels = names;
    auto& cCalls = byTaskCall.column("calls", "Calls", Kind::Count);
    auto& cErrors = byTaskCall.column("errors", "Errors", Kind::Counts);
    auto& cTotal = byTaskCall.column("total_ns", "Total", Kind::Duration);
    auto& cMax = byTaskCall.column("max_ns", "Max", Kind::Duration);
    // In pid and name order, as one number each (the pid's sign flipped, the name's rank in
    // alphabetical order): hundreds of thousands of rows sort without comparing strings.
    std::vector<uint32_t> byRank(names.size()), rankOf(names.size());
    for (uint32_t id = 0; id < byRank.size(); ++id) byRank[id] = id;
    std::sort(byRank.begin(), byRank.end(), [&](uint32_t a, uint32_t b) { return names[a] < names[b]; });
    for (uint32_t r = 0; r < byRank.size(); ++r) rankOf[byRank[r]] = r;
    // A key's order, as one number (the pid's sign flipped, the name's rank in alphabetical order).
    auto orderOf = [&](uint64_t key) {
        return uint64_t(uint32_t(key >> 32) ^ 0x80000000u) << 32 | rankOf[uint32_t(key)];
    };
    // Each tally's positions in that order (its keys are distinct), then the tallies merged:
    // equal keys of several tallies add up to one row. A tally goes once its last key is read.
    // Tasks come and go, so a piece's tally holds mostly the pids of its own stretch and is done
    // with long before the last rows: the sums and the rows made from them are not held whole
    // at once (they were, the load's peak on 23M events).
    std::vector<std::vector<uint32_t>> sorted(allSums.size());
    for (size_t t = 0; t < allSums.size(); ++t) {
        const std::vector<uint64_t>& keys = allSums[t]->keys;
        std::vector<std::pair<uint64_t, uint32_t>> ordered(keys.size());
        for (uint32_t i = 0; i < keys.size(); ++i) ordered[i] = {orderOf(keys[i]), i};
        std::sort(ordered.begin(), ordered.end());
        sorted[t].reserve(ordered.size());
        for (const auto& [order, i] : ordered) sorted[t].push_back(i);
    }
    for (auto* c : {&cTask, &cName, &cCalls, &cTotal, &cMax}) c->numbers.reserve(entries);
    cErrors.counts.reserve(entries);
    std::vector<size_t> nextKey(allSums.size(), 0);
    auto headOrder = [&](size_t t) { return orderOf(allSums[t]->keys[sorted[t][nextKey[t]]]); };
    auto laterKey = [&](size_t a, size_t b) { return headOrder(a) > headOrder(b); };
    std::vector<size_t> tallies; // with keys left, a heap by their next key
    for (size_t t = 0; t < allSums.size(); ++t)
        if (!sorted[t].empty()) tallies.push_back(t);
    std::make_heap(tallies.begin(), tallies.end(), laterKey);
    auto done = [&](size_t t) {
        std::vector<uint32_t>().swap(sorted[t]);
        if (consuming) (t == 0 ? consuming->m_tally : consuming->m_pieceTallies[t - 1]).clear();
    };
    std::optional<int32_t> lastPid;
    int64_t lastTask = 0;
    while (!tallies.empty()) {
        const uint64_t ordered = headOrder(tallies.front());
        Sums s;
        while (!tallies.empty() && headOrder(tallies.front()) == ordered) {
            std::pop_heap(tallies.begin(), tallies.end(), laterKey);
            const size_t t = tallies.back();
            s.add(allSums[t]->sums[sorted[t][nextKey[t]]]);
            if (++nextKey[t] < sorted[t].size()) {
                std::push_heap(tallies.begin(), tallies.end(), laterKey);
            } else {
                tallies.pop_back();
                done(t);
            }
        }
        const int32_t pid = int32_t(uint32_t(ordered >> 32) ^ 0x80000000u);
        const uint32_t name = byRank[uint32_t(ordered)];
        const uint64_t key = uint64_t(uint32_t(pid)) << 32 | name;
        if (pid != lastPid) lastPid = pid, lastTask = taskOf(pid, firstOf.at(pid)); // rows come by pid
        cTask.numbers.push_back(lastTask);
        cName.numbers.push_back(name);
        cCalls.numbers.push_back(s.calls);
        const uint32_t* errnos = taskCallErrnos.find(key); // most never failed
        cErrors.counts.push_back(errnoCounts(errnos ? &errnosOfTaskCall[*errnos] : nullptr));
        cTotal.numbers.push_back(s.timed ? int64_t(s.total) : StatsTable::kUnknown);
        cMax.numbers.push_back(s.timed ? int64_t(s.max) : StatsTable::kUnknown);
    }
    if (consuming) {
        consuming->m_tally.clear();
        std::vector<Tally>().swap(consuming->m_pieceTallies);
    }

    StatsTable failures{"failures", "Failed system calls", {}, true};
    auto& at = failures.column("at", "Time", Kind::Event);
    at.spanKey = "duration_ns"; // the return ends the call
    auto& cpu = failures.column("cpu", "CPU", Kind::Number);
    auto& task = failures.column("task", "Task", Kind::Task);
    // The names and errors as labels: hundreds of thousands of rows of a few texts.
    auto& call = failures.column("name", "System call", Kind::Label);
    auto& ret = failures.column("ret", "Returned", Kind::Number);
    auto& error = failures.column("errno", "Error", Kind::Label);
    auto& duration = failures.column("duration_ns", "Duration", Kind::Duration);
    size_t failed = 0;
    for (const ChunkedList<Failure>& list : failureLists) failed += list.size();
    for (auto* c : {&at, &cpu, &task, &call, &ret, &error, &duration}) c->numbers.reserve(failed);
    call.labels = names;
    // A failure returns -4095..-1: its error's label by -ret.
    std::vector<int32_t> errorLabels(4096, -1);
    auto errorLabel = [&](int64_t value) {
        int32_t& label = errorLabels[size_t(-value) & 4095];
        if (label < 0) label = int32_t(error.labels.size()), error.labels.push_back(errnoOf(value));
        return int64_t(label);
    };
    // The lists merged in time order, each chunk let go once read: the failures and the table's
    // rows are not held whole at once (the load's peak, on 23M events 21 MB of each).
    std::vector<size_t> next(failureLists.size(), 0); // each list's next failure
    auto laterHead = [&](size_t a, size_t b) {
        return Failure::before(failureLists[b][next[b]], failureLists[a][next[a]]);
    };
    std::vector<size_t> heads; // lists with failures left, a heap by their next failure
    for (size_t l = 0; l < failureLists.size(); ++l)
        if (!failureLists[l].empty()) heads.push_back(l);
    std::make_heap(heads.begin(), heads.end(), laterHead);
    while (!heads.empty()) {
        std::pop_heap(heads.begin(), heads.end(), laterHead);
        const size_t l = heads.back();
        const Failure& f = failureLists[l][next[l]];
        at.numbers.push_back(f.exitEvent.valid() ? StatsTable::eventCell(f.exitEvent) : StatsTable::kUnknown);
        cpu.numbers.push_back(cpuOf(f.exitEvent.stream));
        task.numbers.push_back(taskOf(f.pid, f.exit));
        call.numbers.push_back(f.name);
        ret.numbers.push_back(f.ret);
        error.numbers.push_back(errorLabel(f.ret));
        duration.numbers.push_back(f.duration);
        if (++next[l] < failureLists[l].size()) {
            std::push_heap(heads.begin(), heads.end(), laterHead);
            if (consuming && next[l] % ChunkedList<Failure>::kPerChunk == 0) handedOver[l].releaseBefore(next[l]);
        } else {
            heads.pop_back();
            if (consuming) handedOver[l].clear();
        }
    }

    StatsTable grouped{"failure_groups", "Failures by system call and error", {}, false};
    auto& gName = grouped.column("name", "System call", Kind::Text);
    auto& gError = grouped.column("errno", "Error", Kind::Text);
    auto& gCount = grouped.column("count", "Failures", Kind::Count);
    auto& gTotal = grouped.column("total_ns", "Total", Kind::Duration);
    std::vector<std::pair<uint32_t, const Group*>> byNames;
    for (uint32_t id = 0; id < groupsOfName.size(); ++id)
        for (const Group& g : groupsOfName[id]) byNames.emplace_back(id, &g);
    std::sort(byNames.begin(), byNames.end(), [&](const auto& a, const auto& b) {
        const int byName = nameOf(a.first).compare(nameOf(b.first));
        return byName != 0 ? byName < 0 : errnoOf(a.second->ret) < errnoOf(b.second->ret);
    });
    for (const auto& [name, group] : byNames) {
        gName.texts.push_back(nameOf(name));
        gError.texts.push_back(errnoOf(group->ret));
        gCount.numbers.push_back(group->count);
        gTotal.numbers.push_back(group->total);
    }
    // StatsTable's columns are a deque, whose move may throw: a growing vector would copy them.
    std::vector<StatsTable> all;
    all.reserve(5);
    all.push_back(std::move(failures));
    all.push_back(std::move(bySyscall));
    all.push_back(std::move(grouped));
    all.push_back(std::move(byTask));
    all.push_back(std::move(byTaskCall));
    return all;
}

} // namespace ringside::syscalls
