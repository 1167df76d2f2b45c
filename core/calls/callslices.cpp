// SPDX-License-Identifier: GPL-2.0-or-later
#include "calls/callslices.h"

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

size_t CallSlices::memoryBytes() const
{
    return m_start.memoryBytes() + m_duration.memoryBytes() + m_parent.memoryBytes() + m_function.memoryBytes() +
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

uint32_t CallSlices::addSlice(uint64_t start, uint32_t parent, uint32_t function, int32_t pid, StreamId stream,
                              int64_t depth, uint8_t flags)
{
    const auto slice = uint32_t(m_start.size());
    m_duration.push_back(0);
    m_parent.push_back(parent);
    m_function.push_back(function);
    m_pid.push_back(pid);
    m_stream.push_back(stream.value);
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
    const uint32_t slice = addSlice(record.timestamp, parent, functionId(record.field(kFunc).asUnsigned()), record.pid,
                                    record.stream, depth, kCallOpen | interruptFlagsOf(record.flags));
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
        slice =
            addSlice(start, parent, function, record.pid, record.stream, depth, kCallNoEntry | interruptFlagsOf(record.flags));
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
    m_pairing.openAtEnd = 0;
    for (const auto& [task, stack] : m_stacks) m_pairing.openAtEnd += stack.frames.size();
    const std::lock_guard lock(m_publishedLock);
    m_published = m_pairing;
}

} // namespace ringside
