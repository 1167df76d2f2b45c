// SPDX-License-Identifier: GPL-2.0-or-later
#include "calls/callslices.h"

#include <algorithm>
#include <optional>

namespace ringside {

namespace {

enum Request : size_t { kEntry, kExit, kExitWithRetval };
enum ExitField : size_t { kFunc, kDepth, kOverrun, kCalltime, kRettime, kRetval };

uint8_t interruptFlagsOf(uint8_t commonFlags)
{
    return commonFlags & kFlagInterrupt;
}

} // namespace

std::vector<EventRequest> CallSlices::requests() const
{
    return {
        {"ftrace", "funcgraph_entry", {"func", "depth"}},
        {"ftrace", "funcgraph_exit", {"func", "depth", "overrun", "calltime", "rettime"}},
        {"ftrace", "funcgraph_exit", {"func", "depth", "overrun", "calltime", "rettime", "retval"}},
    };
}

void CallSlices::bind(const std::vector<bool>& bound)
{
    m_available = bound.size() > kExit && bound[kEntry] && bound[kExit];
    m_retvalBound = m_available && bound.size() > kExitWithRetval && bound[kExitWithRetval];
}

void CallSlices::setStreams(const std::vector<StreamInfo>& streams)
{
    m_streams = streams;
}

uint64_t CallSlices::duration(size_t i) const
{
    const uint32_t d = m_duration[i];
    return d == kWideDuration ? m_wideDurations.at(uint32_t(i)) : d;
}

int64_t CallSlices::depth(size_t i) const
{
    const uint8_t d = m_depth[i];
    return d == kDeepDepth ? m_deepDepths.at(uint32_t(i)) : d;
}

int64_t CallSlices::retval(size_t i) const
{
    if (!hasRetval(i)) return 0;
    const int32_t v = m_retval[i];
    return (m_flags[i] & kCallRetvalWide) ? m_wideRetvals[size_t(uint32_t(v))] : v;
}

bool CallSlices::isInterruptRoot(size_t i) const
{
    const uint8_t context = m_flags[i] & kCallInterrupt;
    if (!context) return false;
    const uint32_t p = m_parent[i];
    return p == kNoParent || (m_flags[p] & kCallInterrupt) != context;
}

void CallSlices::setTables(TableSink& tables)
{
    SliceTableSpec spec;
    spec.key = kTableKey;
    spec.title = "Function calls";
    spec.owner = RowOwner::Task;
    spec.flameChart = true;
    // The core's own tables are SliceTables: its rows are read from here, not added.
    if (auto* table = dynamic_cast<SliceTable*>(&tables.slices(spec))) table->readFrom(this);
}

void CallSlices::nameFunctions(const Resolver& resolve)
{
    const size_t named = m_names.size();
    std::vector<uint64_t> addresses;
    {
        const std::lock_guard lock(m_addressesLock);
        if (m_addresses.size() <= named) return;
        addresses.assign(m_addresses.begin() + long(named), m_addresses.end());
    }
    std::vector<std::string> names = resolve(addresses);
    names.resize(addresses.size());
    for (std::string& name : names) {
        m_names.push_back(std::move(name));
        m_nameTexts.push_back(&m_names.back());
    }
}

std::vector<std::string> CallSlices::functionNames() const
{
    std::vector<std::string> names;
    const size_t n = m_nameTexts.size();
    names.reserve(n);
    for (size_t i = 0; i < n; ++i) names.push_back(*m_nameTexts[i]);
    return names;
}

const std::string& CallSlices::labelText(uint32_t function) const
{
    static const std::string none;
    return function < m_nameTexts.size() ? *m_nameTexts[function] : none;
}

SliceTable::View CallSlices::viewOf(uint32_t call, uint32_t task) const
{
    SliceTable::View v;
    v.start = start(call);
    v.end = end(call);
    v.value = retval(call);
    v.owner = task;
    v.label = function(call);
    v.depth = uint8_t(std::clamp<int64_t>(depth(call), 0, 255));
    const uint8_t f = flags(call);
    v.flags = uint8_t(((f & kCallOpen) ? Slice::kOpen : 0) | ((f & kCallNoEntry) ? Slice::kNoStart : 0) |
                      ((f & kCallRetval) ? 0 : Slice::kNoValue) | ((f & kCallInterrupt) ? Slice::kInterrupt : 0));
    v.id = call;
    v.parent = parent(call);
    return v;
}

void CallSlices::forEachOf(uint32_t task, const std::function<void(const SliceTable::View&)>& visit) const
{
    const GrowingList<uint32_t>* calls = m_byTask.of(task);
    if (!calls) return;
    // Calls not returned, by depth: the next call as deep or shallower began after they
    // returned unseen (as the stack closed them), so they end there.
    // A caller that returned ends them sooner.
    std::vector<SliceTable::View> open;
    auto close = [&](SliceTable::View v, std::optional<uint64_t> at) {
        const uint32_t caller = v.parent;
        if (caller != SliceTable::kNoId && !(flags(caller) & kCallOpen)) at = std::min(at.value_or(UINT64_MAX), end(caller));
        if (at) {
            v.end = std::max(v.start, *at);
            v.flags &= uint8_t(~Slice::kOpen);
        }
        visit(v); // without `at`: still running when the recording ended
    };
    for (size_t i = 0, n = calls->size(); i < n; ++i) {
        const SliceTable::View v = viewOf((*calls)[i], task);
        while (!open.empty() && open.back().depth >= v.depth && open.back().start <= v.start) {
            close(open.back(), v.start);
            open.pop_back();
        }
        if (v.flags & Slice::kOpen)
            open.push_back(v);
        else
            visit(v);
    }
    for (const SliceTable::View& v : open) close(v, std::nullopt);
}

void CallSlices::forEachOnStream(StreamId stream, const std::function<void(const SliceTable::View&)>& visit) const
{
    // A call that migrated shows on the CPU it began on.
    for (uint32_t task = 0; task < owners(); ++task)
        forEachOf(task, [&](const SliceTable::View& v) {
            if (m_stream[v.id] == stream.value) visit(v);
        });
}

std::optional<SliceTable::View> CallSlices::slice(uint32_t call) const
{
    if (call >= size()) return std::nullopt;
    return viewOf(call, SliceTable::kNoId);
}

size_t CallSlices::memoryBytes() const
{
    return m_byTask.memoryBytes() + m_start.memoryBytes() + m_duration.memoryBytes() + m_parent.memoryBytes() + m_function.memoryBytes() +
           m_pid.memoryBytes() + m_stream.memoryBytes() + m_depth.memoryBytes() + m_flags.memoryBytes() +
           m_retval.memoryBytes() + functionAddressBytes() +
           m_wideRetvals.capacity() * sizeof(int64_t) + m_functionIds.memoryBytes() +
           (m_wideDurations.size() + m_deepDepths.size()) * 32;
}

CallSlices::TaskStack& CallSlices::stackOf(const ConsumedRecord& record)
{
    // The idle tasks all have pid 0, one per CPU.
    const StreamInfo& stream = m_streams[record.stream.value];
    const uint64_t task = record.pid != 0 ? uint32_t(record.pid) : (uint64_t(1) << 32) | uint32_t(stream.cpu);
    TaskStack& stack = m_stacks[int64_t((uint64_t(stream.buffer) << 40) | task)];
    stack.stream = record.stream.value;
    return stack;
}

uint32_t CallSlices::functionId(uint64_t address)
{
    // ~0 is the index's empty key: no kernel function lives there.
    bool added = false;
    const uint32_t id =
        m_functionIds.findOrAdd(address == ~uint64_t(0) ? 0 : address, uint32_t(m_addresses.size()), &added);
    if (added) {
        const std::lock_guard lock(m_addressesLock);
        m_addresses.push_back(address);
    }
    return id;
}

size_t CallSlices::functionAddressBytes() const
{
    const std::lock_guard lock(m_addressesLock);
    return m_addresses.capacity() * sizeof(uint64_t);
}

std::vector<uint64_t> CallSlices::functionAddresses() const
{
    const std::lock_guard lock(m_addressesLock);
    return m_addresses;
}

uint64_t CallSlices::functionAddress(uint32_t function) const
{
    const std::lock_guard lock(m_addressesLock);
    return function < m_addresses.size() ? m_addresses[function] : 0;
}

CallPairing CallSlices::pairing() const
{
    const std::lock_guard lock(m_publishedLock);
    return m_published;
}

uint32_t CallSlices::addSlice(uint64_t start, uint32_t parent, uint32_t function, const ConsumedRecord& record,
                              int64_t depth, uint8_t flags)
{
    const auto slice = uint32_t(m_start.size());
    m_duration.push_back(0);
    m_parent.push_back(parent);
    m_function.push_back(function);
    m_pid.push_back(record.pid);
    m_stream.push_back(record.stream.value);
    m_byTask.stage(record.task.value, slice);
    if (depth >= 0 && depth < kDeepDepth) {
        m_depth.push_back(uint8_t(depth));
    } else {
        m_depth.push_back(kDeepDepth);
        m_deepDepths[slice] = depth;
    }
    m_flags.push_back(flags);
    if (m_retvalBound) m_retval.push_back(0);
    m_start.push_back(start); // last: size() counts complete rows
    return slice;
}

void CallSlices::setDuration(uint32_t slice, uint64_t duration)
{
    if (duration < kWideDuration) {
        m_duration[slice] = uint32_t(duration);
    } else {
        m_duration[slice] = kWideDuration;
        m_wideDurations[slice] = duration;
    }
}

void CallSlices::setRetval(uint32_t slice, uint64_t raw)
{
    // An unsigned long of the recording's kernel: sign-extend a 32-bit one.
    const int64_t value = m_longSize == 4 ? int64_t(int32_t(uint32_t(raw))) : int64_t(raw);
    m_flags[slice] |= kCallRetval;
    if (value >= INT32_MIN && value <= INT32_MAX) {
        m_retval[slice] = int32_t(value);
    } else {
        m_flags[slice] |= kCallRetvalWide;
        m_retval[slice] = int32_t(uint32_t(m_wideRetvals.size()));
        m_wideRetvals.push_back(value);
    }
}

void CallSlices::closeUnpaired(TaskStack& stack, size_t keep, uint8_t why)
{
    while (stack.frames.size() > keep) {
        m_flags[stack.frames.back()] |= why;
        stack.frames.pop_back();
        if (why == kCallBroken)
            ++m_pairing.brokenByLoss;
        else
            ++m_pairing.entriesWithoutExit;
    }
}

void CallSlices::onEntry(const ConsumedRecord& record)
{
    ++m_pairing.entries;
    TaskStack& stack = stackOf(record);
    const int64_t depth = record.field(kDepth).asSigned();
    // Open calls as deep or deeper never saw their exits.
    size_t keep = stack.frames.size();
    while (keep > 0 && this->depth(stack.frames[keep - 1]) >= depth) --keep;
    closeUnpaired(stack, keep, 0);
    const uint32_t parent = stack.frames.empty() ? kNoParent : stack.frames.back();
    const uint32_t slice = addSlice(record.timestamp, parent, functionId(record.field(kFunc).asUnsigned()), record, depth,
                                    kCallOpen | interruptFlagsOf(record.flags));
    if (parent == kNoParent && depth > 0) stack.pending.push_back(slice);
    stack.frames.push_back(slice);
}

void CallSlices::onExit(const ConsumedRecord& record, bool withRetval)
{
    ++m_pairing.exits;
    TaskStack& stack = stackOf(record);
    const int64_t depth = record.field(kDepth).asSigned();
    const uint32_t function = functionId(record.field(kFunc).asUnsigned());
    const uint64_t calltime = record.field(kCalltime).asUnsigned(), rettime = record.field(kRettime).asUnsigned();
    uint64_t duration = 0;
    if (rettime >= calltime)
        duration = rettime - calltime;
    else
        ++m_pairing.badDurations;
    if (record.field(kOverrun).asUnsigned()) ++m_pairing.overruns;

    size_t keep = stack.frames.size();
    while (keep > 0 && this->depth(stack.frames[keep - 1]) > depth) --keep;
    if (keep > 0 && this->depth(stack.frames[keep - 1]) == depth && m_function[stack.frames[keep - 1]] != function)
        --keep;
    closeUnpaired(stack, keep, 0);

    uint32_t slice;
    if (!stack.frames.empty() && this->depth(stack.frames.back()) == depth) {
        slice = stack.frames.back();
        stack.frames.pop_back();
        m_flags[slice] = uint8_t((m_flags[slice] & ~kCallOpen) | interruptFlagsOf(record.flags));
    } else {
        // Its entry is not in the recording: the call began before it, or the entry was lost.
        ++m_pairing.exitsWithoutEntry;
        const uint32_t parent = stack.frames.empty() ? kNoParent : stack.frames.back();
        const uint64_t start = record.timestamp >= duration ? record.timestamp - duration : 0;
        slice = addSlice(start, parent, function, record, depth, kCallNoEntry | interruptFlagsOf(record.flags));
        adoptPending(stack, slice, depth);
        if (parent == kNoParent && depth > 0) stack.pending.push_back(slice);
    }
    setDuration(slice, duration);
    if (withRetval) setRetval(slice, record.field(kRetval).asUnsigned());
}

void CallSlices::adoptPending(TaskStack& stack, uint32_t slice, int64_t depth)
{
    // Parentless calls one level deeper that began within this call are its children; deeper
    // ones can no longer find a parent.
    const uint64_t start = m_start[slice];
    size_t kept = 0;
    for (uint32_t p : stack.pending) {
        const int64_t d = this->depth(p);
        if (d == depth + 1 && m_start[p] >= start) m_parent[p] = slice;
        if (d <= depth) stack.pending[kept++] = p;
    }
    stack.pending.resize(kept);
}

void CallSlices::consume(const ConsumedRecord& record)
{
    switch (record.request) {
    case kEntry: onEntry(record); break;
    case kExit:
        if (!m_retvalBound) onExit(record, false);
        break;
    case kExitWithRetval: onExit(record, true); break;
    default: break;
    }
}

void CallSlices::eventsLost(StreamId stream, uint64_t timestamp)
{
    (void)timestamp;
    bool broke = false;
    for (auto& [task, stack] : m_stacks) {
        if (stack.stream != stream.value) continue;
        broke |= !stack.frames.empty();
        closeUnpaired(stack, 0, kCallBroken);
        stack.pending.clear();
    }
    if (broke) ++m_pairing.lossGaps;
}

void CallSlices::flush()
{
    m_byTask.publish();
    m_pairing.openAtEnd = 0;
    for (const auto& [task, stack] : m_stacks) m_pairing.openAtEnd += stack.frames.size();
    const std::lock_guard lock(m_publishedLock);
    m_published = m_pairing;
}

} // namespace ringside
