// SPDX-License-Identifier: GPL-2.0-or-later
#include "commands.h"
#include "pluginchoice.h"
#include "jsonschema.h"

#include "clitext.h"
#include "trace.h"

#include <traceevent/event-parse.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <string>

namespace ringside::cli {

namespace {

struct TypeCount {
    std::string name;
    uint64_t count;
};

std::vector<TypeCount> typeCounts(const Trace& trace)
{
    std::vector<TypeCount> out;
    const auto& counts = trace.store().eventTypeCounts();
    for (size_t id = 0; id < counts.size(); ++id) {
        if (!counts[id]) continue;
        tep_event* event = tep_find_event(trace.tep(), static_cast<int>(id));
        std::string name =
            event ? std::string(event->system) + "/" + event->name : "unknown type " + std::to_string(id);
        out.push_back({name, counts[id]});
    }
    std::sort(out.begin(), out.end(),
              [](const auto& a, const auto& b) { return a.count != b.count ? a.count > b.count : a.name < b.name; });
    return out;
}

void printText(const Trace& trace)
{
    const FileInfo& info = trace.file().info();
    const EventStore& store = trace.store();
    std::printf("file:         %s\n", trace.file().path().c_str());
    std::printf("version:      %d\n", info.version);
    std::printf("compression:  %s%s%s\n", codecName(info.codec), info.codecVersion.empty() ? "" : " ",
                info.codecVersion.c_str());
    std::printf("layout:       %s endian, user long %d, kernel long %d, page %u bytes\n",
                info.bigEndian ? "big" : "little", info.userLongSize, info.kernelLongSize, info.pageSize);
    std::printf("clock:        %s%s\n", info.traceClock.empty() ? "(not recorded)" : info.traceClock.c_str(),
                info.tsc2nsec ? " (TSC converted to ns)" : "");
    if (!info.uname.empty()) std::printf("uname:        %s\n", info.uname.c_str());
    if (!info.tracerVersion.empty()) std::printf("recorded by:  trace-cmd %s\n", info.tracerVersion.c_str());
    std::printf("cpus:         %d\n", info.cpuCount);
    if (info.timeShift)
        std::printf("guest:        times shifted to host trace id 0x%" PRIx64 "\n", info.timeShift->peerTraceId);
    for (const auto& g : info.guests)
        std::printf("host of:      guest '%s' (%zu vCPUs, trace id 0x%" PRIx64 ")\n", g.name.c_str(), g.vcpuPids.size(),
                    g.traceId);
    std::printf("events:       %zu\n", store.eventCount());
    if (store.eventCount() && info.timesInUsecs) {
        std::printf("time range:   %s .. %s (%s s)\n", seconds(store.firstTimestamp()).c_str(),
                    seconds(store.lastTimestamp()).c_str(),
                    seconds(store.lastTimestamp() - store.firstTimestamp()).c_str());
    } else if (store.eventCount()) {
        // A raw counter clock without a conversion to nanoseconds: its unit is not time.
        std::printf("time range:   %" PRIu64 " .. %" PRIu64 " (%" PRIu64 " ticks of clock %s)\n",
                    store.firstTimestamp(), store.lastTimestamp(), store.lastTimestamp() - store.firstTimestamp(),
                    info.traceClock.c_str());
    }
    std::printf("tasks:        %zu\n", store.tasks().size());
    std::printf("buffers:\n");
    for (const auto& buffer : store.buffers()) {
        std::printf("  %s: clock %s, page %u bytes, %zu CPUs with data\n",
                    buffer.name.empty() ? "(top)" : buffer.name.c_str(),
                    buffer.clock.empty() ? info.traceClock.c_str() : buffer.clock.c_str(), buffer.pageSize,
                    buffer.streams.size());
        for (StreamId id : buffer.streams) {
            const Stream& s = store.stream(id);
            std::printf("    CPU %d: %zu events, %" PRIu64 " lost in pages, %" PRIu64 " overrun\n", s.cpu,
                        s.columns.size(), s.columns.lostTotal, s.statsOverrun);
        }
    }
    std::printf("event types:\n");
    for (const auto& t : typeCounts(trace)) std::printf("  %-40s %" PRIu64 "\n", t.name.c_str(), t.count);
    std::printf("diagnostics:%s\n", store.diagnostics().empty() ? " none" : "");
    for (const auto& d : store.diagnostics().items())
        std::printf("  %s %s: %s\n", severityName(d.severity), d.code.c_str(), d.message.c_str());
}

void printJson(const Trace& trace)
{
    const FileInfo& info = trace.file().info();
    const EventStore& store = trace.store();
    std::printf("{\n  \"schema\": \"%s\",\n  \"file\": %s,\n  \"version\": %d,\n  \"compression\": %s,\n",
                schema::kInfo, jsonString(trace.file().path()).c_str(), info.version, jsonString(codecName(info.codec)).c_str());
    std::printf("  \"bigEndian\": %s,\n  \"pageSize\": %u,\n  \"clock\": %s,\n  \"uname\": %s,\n",
                info.bigEndian ? "true" : "false", info.pageSize, jsonString(info.traceClock).c_str(),
                jsonString(info.uname).c_str());
    std::printf("  \"cpus\": %d,\n  \"events\": %zu,\n  \"tasks\": %zu,\n", info.cpuCount, store.eventCount(),
                store.tasks().size());
    std::printf("  \"firstTimestamp\": %" PRIu64 ",\n  \"lastTimestamp\": %" PRIu64 ",\n  \"timeUnit\": %s,\n",
                store.firstTimestamp(), store.lastTimestamp(), info.timesInUsecs ? "\"ns\"" : "\"ticks\"");
    std::printf("  \"buffers\": [");
    for (size_t b = 0; b < store.buffers().size(); ++b) {
        const auto& buffer = store.buffers()[b];
        std::printf("%s\n    {\"name\": %s, \"clock\": %s, \"pageSize\": %u, \"cpus\": [", b ? "," : "",
                    jsonString(buffer.name).c_str(), jsonString(buffer.clock).c_str(), buffer.pageSize);
        for (size_t i = 0; i < buffer.streams.size(); ++i) {
            const Stream& s = store.stream(buffer.streams[i]);
            std::printf("%s\n      {\"cpu\": %d, \"events\": %zu, \"lostInPages\": %" PRIu64
                        ", \"unknownLossPages\": %" PRIu64 ", \"overrun\": %" PRIu64 "}",
                        i ? "," : "", s.cpu, s.columns.size(), s.columns.lostTotal, s.columns.unknownLostPages,
                        s.statsOverrun);
        }
        std::printf("]}");
    }
    std::printf("\n  ],\n  \"eventTypes\": {");
    auto types = typeCounts(trace);
    for (size_t i = 0; i < types.size(); ++i)
        std::printf("%s\n    %s: %" PRIu64, i ? "," : "", jsonString(types[i].name).c_str(), types[i].count);
    std::printf("\n  },\n  \"diagnostics\": [");
    const auto& items = store.diagnostics().items();
    for (size_t i = 0; i < items.size(); ++i)
        std::printf("%s\n    {\"severity\": \"%s\", \"code\": %s, \"message\": %s, \"count\": %" PRIu64 "}",
                    i ? "," : "", severityName(items[i].severity), jsonString(items[i].code).c_str(),
                    jsonString(items[i].message).c_str(), items[i].count);
    std::printf("\n  ]\n}\n");
}

} // namespace

int infoCommand(const std::vector<std::string>& args)
{
    std::string path;
    bool json = false;
    for (const auto& a : args) {
        if (a == "--json")
            json = true;
        else if (path.empty())
            path = a;
        else {
            std::fputs("usage: ringside-cli info FILE [--json]\n", stderr);
            return 2;
        }
    }
    if (path.empty()) {
        std::fputs("usage: ringside-cli info FILE [--json]\n", stderr);
        return 2;
    }
    auto trace = Trace::open(path);
    if (!trace) {
        std::fprintf(stderr, "ringside-cli: %s\n", trace.error().message.c_str());
        return 1;
    }
    noteFailures(**trace, path);
    if (json)
        printJson(**trace);
    else
        printText(**trace);
    return 0;
}

} // namespace ringside::cli
