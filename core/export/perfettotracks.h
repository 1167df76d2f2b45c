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
// per task carrying its running slices; and, when the recording has function_graph calls, a
// "calls" thread per task carrying them as nested slices. Names come as metadata events.
//
// Times are microseconds with nanosecond decimals. Tracks the kernel has no pid for use ids
// past PID_MAX_LIMIT (kCpuTrackBase, kCallTrackBase + pid), so they never meet a real task.
// On each thread, slices nest or follow each other: one that would overlap its parent's end
// is cut there (damaged or lost records), since the format has no other way to draw it.
//
// Each event is appended to `out` preceded by ",\n" (the first by nothing); `flush(out)` is
// called when `out` grows large and returns false to stop. Returns the events written.
inline constexpr int32_t kCpuTrackBase = 1 << 23;
inline constexpr int32_t kCallTrackBase = 1 << 22;
size_t writePerfettoTracks(const Trace& trace, ReportWorker& worker, std::string& out,
                           const std::function<bool(std::string&)>& flush);

// Nanoseconds as microseconds with three decimals ("1022903151.234").
void appendMicros(std::string& out, uint64_t ns);
// An event's opening: `{"ph":PH,"name":NAME,"pid":P,"tid":T` (the caller closes it).
void appendEventHead(std::string& out, const char* ph, std::string_view name, int32_t pid, int32_t tid);
// The process a task's thread belongs to: its thread group's leader (0 for the idle tasks).
int32_t processOf(const Trace& trace, int32_t pid);

} // namespace ringside
