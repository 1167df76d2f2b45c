// SPDX-License-Identifier: GPL-2.0-or-later
#include "decode/mergedreport.h"

#include "decode/guestsymbols.h"
#include "decode/reportprinter.h"
#include "decode/reportworker.h"
#include "trace.h"

#include <traceevent/event-parse.h>

#include <algorithm>
#include <cinttypes>
#include <memory>
#include <set>

namespace ringside {

namespace {

std::string hexId(uint64_t id)
{
    char text[32];
    std::snprintf(text, sizeof text, "0x%" PRIx64, id);
    return text;
}

} // namespace

RecordingPairing pairRecordings(const std::vector<const Trace*>& traces, const std::vector<std::string>& names)
{
    RecordingPairing pairing;
    std::set<size_t> paired;
    for (size_t g = 0; g < traces.size(); ++g) {
        const FileInfo& guest = traces[g]->file().info();
        if (!guest.timeShift) continue;
        bool found = false;
        for (size_t h = 0; h < traces.size() && !found; ++h) {
            const FileInfo& host = traces[h]->file().info();
            if (h == g || !host.traceId || *host.traceId != guest.timeShift->peerTraceId) continue;
            const bool named =
                guest.traceId && std::any_of(host.guests.begin(), host.guests.end(),
                                             [&](const GuestInfo& i) { return i.traceId == *guest.traceId; });
            pairing.guests.push_back({h, g});
            paired.insert(g), paired.insert(h);
            pairing.notes.push_back(
                names[g] + " is a guest of " + names[h] +
                ": its times were converted to the host's clock (TimeShift to trace id " +
                hexId(guest.timeShift->peerTraceId) + ")" +
                (named ? "" : "; the host does not list it among its guests, so its vCPUs are not known"));
            found = true;
        }
        if (!found)
            pairing.notes.push_back(names[g] + " is a guest of a host (trace id " +
                                    hexId(guest.timeShift->peerTraceId) +
                                    ") that is not among the recordings: it is placed by its own timestamps");
    }
    // Recordings not paired: comparable when both count nanoseconds on the same clock.
    for (size_t i = 0; i < traces.size(); ++i)
        for (size_t j = i + 1; j < traces.size(); ++j) {
            if (paired.count(i) && paired.count(j)) continue;
            const FileInfo& a = traces[i]->file().info();
            const FileInfo& b = traces[j]->file().info();
            if (a.traceClock != b.traceClock || a.timesInUsecs != b.timesInUsecs) {
                pairing.notes.push_back("warning: " + names[i] + " (clock " + a.traceClock + ") and " + names[j] +
                                        " (clock " + b.traceClock +
                                        ") are placed by their own timestamps, which cannot be compared");
                continue;
            }
            // The same clock, yet apart (another boot, another machine): worth knowing before
            // looking for one beside the other.
            const EventStore& sa = traces[i]->store();
            const EventStore& sb = traces[j]->store();
            if (sa.eventCount() == 0 || sb.eventCount() == 0) continue;
            const bool aFirst = sa.lastTimestamp() < sb.firstTimestamp();
            if (!aFirst && sb.lastTimestamp() >= sa.firstTimestamp()) continue;
            const uint64_t gap =
                aFirst ? sb.firstTimestamp() - sa.lastTimestamp() : sa.firstTimestamp() - sb.lastTimestamp();
            char amount[64];
            if (a.timesInUsecs)
                std::snprintf(amount, sizeof amount, "%.3f s", double(gap) / 1e9);
            else
                std::snprintf(amount, sizeof amount, "%llu ticks", static_cast<unsigned long long>(gap));
            pairing.notes.push_back("note: " + names[i] + " and " + names[j] +
                                    " do not overlap in time: " + (aFirst ? names[j] : names[i]) + " starts " + amount +
                                    " after " + (aFirst ? names[i] : names[j]) + " ends");
        }
    return pairing;
}

size_t printMergedReport(const std::vector<const Trace*>& traces, const std::vector<std::string>& names, FILE* out)
{
    size_t width = 0;
    for (const std::string& name : names) width = std::max(width, name.size());
    for (size_t i = 0; i < traces.size(); ++i)
        std::fprintf(out, "%*s: cpus=%d\n", int(width), names[i].c_str(), ReportPrinter::cpuCount(*traces[i]));

    // One worker per recording, each with a handle of its own, printing its rows in order.
    std::vector<std::unique_ptr<ReportWorker>> workers;
    for (size_t i = 0; i < traces.size(); ++i) {
        std::string error;
        workers.push_back(ReportWorker::create(*traces[i], true, &error));
        if (!workers.back()) {
            std::fprintf(out, "%*s: [cannot decode: %s]\n", int(width), names[i].c_str(), error.c_str());
            return 0;
        }
    }
    const RecordingPairing pairing = pairRecordings(traces, names);
    for (const RecordingPairing::Guest& pair : pairing.guests) {
        const FileInfo& guest = traces[pair.guest]->file().info();
        std::set<int> vcpuTasks;
        for (const GuestInfo& g : traces[pair.host]->file().info().guests)
            if (guest.traceId && g.traceId == *guest.traceId)
                for (const auto& [vcpu, pid] : g.vcpuPids) vcpuTasks.insert(pid);
        tep_handle* guestTep = workers[pair.guest]->tep();
        setGuestResolver(workers[pair.host]->tep(),
                         [vcpuTasks, guestTep](int pid, unsigned long long* address) -> const char* {
                             if (!vcpuTasks.count(pid)) return nullptr;
                             const char* name = tep_find_function(guestTep, *address);
                             if (name) *address = tep_find_function_address(guestTep, *address);
                             return name;
                         });
    }

    std::vector<MergedOrder::Cursor> cursors;
    for (const Trace* trace : traces) cursors.emplace_back(trace->store().order(), 0);
    auto nextTime = [&](size_t i) { return traces[i]->store().timestamp(cursors[i].event()); };
    size_t events = 0;
    std::string text;
    std::vector<size_t> rowEnds;
    for (;;) {
        size_t pick = traces.size();
        uint64_t earliest = 0;
        for (size_t i = 0; i < traces.size(); ++i) {
            if (cursors[i].atEnd()) continue;
            const uint64_t t = nextTime(i);
            if (pick == traces.size() || t < earliest) pick = i, earliest = t;
        }
        if (pick == traces.size()) break;
        // The run of the recording's rows before any other's next event (on equal times the
        // earlier file's first), formatted at once: a call per row cost a scan of the merged
        // order's checkpoint each (minutes on millions of events).
        size_t other = traces.size();
        for (size_t i = 0; i < traces.size(); ++i)
            if (i != pick && !cursors[i].atEnd() && (other == traces.size() || nextTime(i) < nextTime(other))) other = i;
        const size_t row = cursors[pick].row();
        auto first = [&] {
            return other == traces.size() || nextTime(pick) < nextTime(other) ||
                   (nextTime(pick) == nextTime(other) && pick < other);
        };
        constexpr size_t kRunRows = 16384; // the text of a run is held at once
        do
            cursors[pick].next();
        while (!cursors[pick].atEnd() && cursors[pick].row() - row < kRunRows && first());
        text.clear();
        rowEnds.clear();
        events += workers[pick]->dumpRows(row, cursors[pick].row(), text, &rowEnds);
        for (size_t r = 0, from = 0; r < rowEnds.size(); from = rowEnds[r++]) {
            if (rowEnds[r] == from) continue; // a leaf's exit, folded into its entry's line
            std::fprintf(out, "%*s: ", int(width), names[pick].c_str());
            std::fwrite(text.data() + from, 1, rowEnds[r] - from, out);
        }
    }
    for (const RecordingPairing::Guest& pair : pairing.guests) clearGuestResolver(workers[pair.host]->tep());
    return events;
}

} // namespace ringside
