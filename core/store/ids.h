// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <cstdint>
#include <functional>

namespace ringside {

// Distinct id types, so a CPU index cannot be passed where a task id is meant.
template <typename Tag, typename Rep = uint32_t>
struct TypedId {
    Rep value = static_cast<Rep>(-1);
    constexpr TypedId() = default;
    constexpr explicit TypedId(Rep v) : value(v) {}
    constexpr bool valid() const { return value != static_cast<Rep>(-1); }
    friend constexpr bool operator==(TypedId a, TypedId b) { return a.value == b.value; }
    friend constexpr bool operator!=(TypedId a, TypedId b) { return a.value != b.value; }
    friend constexpr bool operator<(TypedId a, TypedId b) { return a.value < b.value; }
};

using TaskId = TypedId<struct TaskTag>;
using EventTypeId = TypedId<struct EventTypeTag, uint16_t>;

// One CPU of one buffer: streams are numbered in the order trace-cmd merges them (buffers in
// file order, CPUs ascending), which is also the tie-break of the merged order.
using StreamId = TypedId<struct StreamTag, uint16_t>;

// An event: its stream and its position in that stream's time-ordered columns.
struct EventRef {
    StreamId stream;
    uint32_t index = 0;
    bool valid() const { return stream.valid(); }
    friend bool operator==(EventRef a, EventRef b) { return a.stream == b.stream && a.index == b.index; }
};

} // namespace ringside
