// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace ringside {

class ReportWorker;
class Trace;

// The Chrome/Perfetto JSON trace's tracks (Trace Event Format): a "CPUs" process per buffer
// with a thread per CPU carrying which task ran when; a process per thread group with a thread
// per task carrying its running slices; and every analysis's and plugin's track table
// (function_graph calls, system calls, task states, work items, ...): each owner's rows on a thread of
// the owner's process (a task's thread group, or its buffer's CPUs) named "<owner> <table
// title>", intervals and slices as complete events (category "<analysis>.<table key>"; a slice's
// depth, value and failed/no_start/no_end in its args), instants as instants, counters as
// counter events ("<title> (<owner>)"), flows as flow events between the tasks' threads.
// Names come as metadata events.
//
// Times are microseconds with nanosecond decimals. Tracks the kernel has no pid for use ids
// past PID_MAX_LIMIT (kCpuTrackBase, kTableTrackBase + table *
// kTableTrackStride + pid or stream), so they never meet a real task.
// On each thread, slices nest or follow each other: one that would overlap its parent's end
// is cut there (damaged or lost records), since the format has no other way to draw it.
//
// Each event is appended to `out` preceded by ",\n" (the first by nothing); `flush(out)` is
// called when `out` grows large and returns false to stop. Returns the events written.
inline constexpr int32_t kCpuTrackBase = 1 << 23;
inline constexpr int32_t kTableTrackBase = 1 << 24;
inline constexpr int32_t kTableTrackStride = 1 << 22; // PID_MAX_LIMIT
inline constexpr int32_t kMostTableTracks = (INT32_MAX - kTableTrackBase) / kTableTrackStride;
size_t writePerfettoTracks(const Trace& trace, ReportWorker& worker, std::string& out,
                           const std::function<bool(std::string&)>& flush);

// Nanoseconds as microseconds with three decimals ("1022903151.234").
void appendMicros(std::string& out, uint64_t ns);
// An event's opening: `{"ph":PH,"name":NAME,"pid":P,"tid":T` (the caller closes it).
void appendEventHead(std::string& out, const char* ph, std::string_view name, int32_t pid, int32_t tid);
// The process a task's thread belongs to: its thread group's leader (0 for the idle tasks).
int32_t processOf(const Trace& trace, int32_t pid);

} // namespace ringside
