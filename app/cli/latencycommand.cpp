// SPDX-License-Identifier: GPL-2.0-or-later
// `ringside-cli latency FILE (--preset NAME | --from EVENT --to EVENT) [--match FIELD[=FIELD]]...
// [--by task|cpu]... [--nesting] [--filter-from COND] [--filter-to COND] [--top N] [--json]`: the durations between two events, paired
// by a key, as statistics, a histogram, per group and the slowest pairs.
#include "clitext.h"
#include "commands.h"
#include "jsonschema.h"

#include "latency/eventpairs.h"
#include "latency/latencyreport.h"
#include "latency/loadedpairs.h"
#include "pluginchoice.h"
#include "trace.h"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>

namespace ringside::cli {

namespace {

const char* const kLatencyUsage =
    "usage: ringside-cli latency FILE (--preset NAME | --from SYSTEM/EVENT --to SYSTEM/EVENT)\n"
    "                            [--match FIELD[=FIELD]]... [--by task|cpu]... [--nesting]\n"
    "                            [--filter-from CONDITION] [--filter-to CONDITION] [--top N] [--json] [--timing]\n";

std::string summaryJson(const LatencySummary& s)
{
    char text[512];
    std::snprintf(text, sizeof text,
                  "\"count\": %" PRIu64 ", \"min_ns\": %" PRIu64 ", \"p50_ns\": %" PRIu64 ", \"p90_ns\": %" PRIu64
                  ", \"p99_ns\": %" PRIu64 ", \"p999_ns\": %" PRIu64 ", \"max_ns\": %" PRIu64
                  ", \"mean_ns\": %.1f, \"total_ns\": %" PRIu64,
                  s.count, s.min, s.p50, s.p90, s.p99, s.p999, s.max, s.mean, s.total);
    return text;
}

std::string summaryLine(const LatencySummary& s)
{
    char mean[32];
    std::snprintf(mean, sizeof mean, "%.3f", s.mean / 1000.0);
    return "min " + micros(s.min) + "  p50 " + micros(s.p50) + "  p90 " + micros(s.p90) + "  p99 " + micros(s.p99) +
           "  p99.9 " + micros(s.p999) + "  max " + micros(s.max) + "  mean " + mean + " us";
}

} // namespace

int latencyCommand(const std::vector<std::string>& args)
{
    std::string path, preset, from, to, filterFrom, filterTo;
    std::vector<std::pair<std::string, std::string>> fields;
    bool json = false, sameTask = false, sameCpu = false, nesting = false, timing = false;
    size_t top = 10;
    auto value = [&](size_t& i) -> const std::string* { return i + 1 < args.size() ? &args[++i] : nullptr; };
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        const std::string* v = nullptr;
        if (a == "--json")
            json = true;
        else if (a == "--nesting")
            nesting = true;
        else if (a == "--timing")
            timing = true;
        else if (a == "--preset" && (v = value(i)))
            preset = *v;
        else if (a == "--from" && (v = value(i)))
            from = *v;
        else if (a == "--to" && (v = value(i)))
            to = *v;
        else if (a == "--filter-from" && (v = value(i)))
            filterFrom = *v;
        else if (a == "--filter-to" && (v = value(i)))
            filterTo = *v;
        else if (a == "--match" && (v = value(i)) && !v->empty())
            fields.push_back(PairSpec::parseField(*v));
        else if (a == "--by" && (v = value(i)) && (*v == "task" || *v == "cpu"))
            (*v == "task" ? sameTask : sameCpu) = true;
        else if (a == "--top" && (v = value(i)))
            top = size_t(std::strtoull(v->c_str(), nullptr, 10));
        else if (path.empty() && !a.empty() && a[0] != '-')
            path = a;
        else
            return std::fputs(kLatencyUsage, stderr), 2;
    }
    if (path.empty()) return std::fputs(kLatencyUsage, stderr), 2;
    PairSpec spec;
    if (!preset.empty()) {
        auto found = presetPair(preset);
        if (!found) {
            std::string names;
            for (const std::string& n : presetPairNames()) names += " " + n;
            std::fprintf(stderr, "ringside-cli: no latency preset '%s' (there are:%s)\n", preset.c_str(),
                         names.c_str());
            return 2;
        }
        spec = *found;
        // Options given beside a preset refine it.
        if (!from.empty()) spec.from = from;
        if (!to.empty()) spec.to = to;
        if (!fields.empty()) spec.fields = fields;
        spec.sameTask |= sameTask;
        spec.sameCpu |= sameCpu;
        spec.nesting |= nesting;
    } else {
        if (from.empty() || to.empty()) return std::fputs(kLatencyUsage, stderr), 2;
        spec = PairSpec{"pairs", from, to, fields, sameTask, sameCpu, nesting};
    }
    spec.refineFilters(filterFrom, filterTo); // a preset's own conditions stay
    for (const std::string* event : {&spec.from, &spec.to})
        if (event->find('/') == std::string::npos) {
            std::fprintf(stderr, "ringside-cli: name the event with its system, as in irq/%s\n", event->c_str());
            return 2;
        }

    // Loaded, then paired as the window and SQL pair (LoadedPairs): the same pairs, and filters
    // on each side. The pair is known before the load: its records are kept as the pages are
    // parsed, not read again.
    using Clock = std::chrono::steady_clock;
    const Clock::time_point began = Clock::now();
    std::vector<std::unique_ptr<RecordConsumer>> keeper;
    if (auto kept = LoadedPairs::recordsKeeper(spec)) keeper.push_back(std::move(kept));
    auto trace = Trace::open(path, LoadOptions(), std::move(keeper));
    const Clock::time_point opened = Clock::now();
    if (!trace) {
        std::fprintf(stderr, "ringside-cli: %s\n", trace.error().message.c_str());
        return 1;
    }
    const Trace& t = **trace;
    noteFailures(t, path);
    auto loaded = LoadedPairs::run(t, spec);
    const Clock::time_point paired = Clock::now();
    if (!loaded) {
        std::fprintf(stderr, "ringside-cli: %s\n", loaded.error().message.c_str());
        return 1;
    }
    const EventPairs* pairs = &(*loaded)->pairs();
    if (!pairs->unbound().empty()) {
        std::fprintf(stderr, "ringside-cli: %s: %s\n", path.c_str(), pairs->unbound().c_str());
        return 1;
    }
    // Nothing to pair is an answer, not an error: said beside it.
    if (const std::string why = pairs->nothingPaired(); !why.empty())
        std::fprintf(stderr, "ringside-cli: %s: no pairs: %s\n", path.c_str(), why.c_str());

    const PairMatcher& matcher = pairs->matcher();
    const PairMatcher::Pairs& p = matcher.pairs();
    const LatencyReport report = makeLatencyReport(*pairs, top);
    const LatencySummary& overall = report.overall;
    const std::vector<HistogramBucket>& histogram = report.histogram;
    const std::vector<LatencyReport::Group>& groups = report.groups;
    const std::vector<uint32_t>& order = report.slowest;
    if (timing) {
        auto seconds = [](Clock::time_point a, Clock::time_point b) {
            return std::chrono::duration<double>(b - a).count();
        };
        std::fprintf(stderr, "latency load_s=%.3f pair_s=%.3f (%s_s=%.3f match_s=%.3f) statistics_s=%.3f pairs=%zu\n",
                     seconds(began, opened), seconds(opened, paired), (*loaded)->usedKeptRecords() ? "kept" : "walk",
                     (*loaded)->walkSeconds(), (*loaded)->matchSeconds(), seconds(paired, Clock::now()), p.size());
    }
    const EventStore& store = t.store();
    auto pidOf = [&](EventRef e) { return store.stream(e.stream).columns.pid[e.index]; };
    auto cpuOf = [&](EventRef e) { return store.stream(e.stream).cpu; };

    if (json) {
        std::printf("{\"schema\": \"%s\", \"file\": %s, \"name\": %s, \"from\": %s, \"to\": %s, \"match\": [",
                    schema::kLatency, jsonString(path).c_str(), jsonString(spec.name).c_str(),
                    jsonString(spec.from).c_str(), jsonString(spec.to).c_str());
        for (size_t i = 0; i < spec.fields.size(); ++i)
            std::printf("%s[%s, %s]", i ? ", " : "", jsonString(spec.fields[i].first).c_str(),
                        jsonString(spec.fields[i].second).c_str());
        std::printf("], \"same_task\": %s, \"same_cpu\": %s, \"nesting\": %s, \"filter_from\": %s, "
                    "\"filter_to\": %s,\n",
                    spec.sameTask ? "true" : "false", spec.sameCpu ? "true" : "false", spec.nesting ? "true" : "false",
                    jsonString(spec.filterFrom).c_str(), jsonString(spec.filterTo).c_str());
        std::printf("\"unmatched_starts\": %" PRIu64 ", \"unmatched_ends\": %" PRIu64 ", %s,\n",
                    matcher.unmatchedStarts(), matcher.unmatchedEnds(), summaryJson(overall).c_str());
        std::printf("\"histogram\": [");
        for (size_t i = 0; i < histogram.size(); ++i)
            std::printf("%s{\"from_ns\": %" PRIu64 ", \"to_ns\": %" PRIu64 ", \"count\": %" PRIu64 "}", i ? ", " : "",
                        histogram[i].from, histogram[i].to, histogram[i].count);
        std::printf("],\n\"group_by\": %s, \"groups\": [", jsonString(pairs->groupTitle()).c_str());
        for (size_t i = 0; i < groups.size(); ++i)
            std::printf("%s\n  {\"key\": %s, %s}", i ? "," : "", jsonString(groups[i].label).c_str(),
                        summaryJson(groups[i].summary).c_str());
        std::printf("],\n\"slowest\": [");
        for (size_t i = 0; i < order.size(); ++i) {
            const uint32_t k = order[i];
            std::printf("%s\n  {\"start_ns\": %" PRIu64 ", \"duration_ns\": %" PRIu64
                        ", \"cpu\": %d, \"pid\": %d, \"end_cpu\": %d, \"key\": %s}",
                        i ? "," : "", p.start[k], p.duration[k], cpuOf(p.startEvent[k]), pidOf(p.startEvent[k]),
                        cpuOf(p.endEvent[k]), jsonString(pairs->groups()[p.group[k]]).c_str());
        }
        std::printf("]}\n");
        return 0;
    }

    std::printf("latency %s: %s -> %s, %s\n", spec.name.c_str(), spec.from.c_str(), spec.to.c_str(),
                spec.pairingDescription().c_str());
    std::printf("pairs %" PRIu64 ", unmatched starts %" PRIu64 ", unmatched ends %" PRIu64 "\n", overall.count,
                matcher.unmatchedStarts(), matcher.unmatchedEnds());
    if (!overall.count) return 0;
    std::printf("%s\n", summaryLine(overall).c_str());
    std::printf("\nhistogram (us)\n");
    const uint64_t most =
        std::max_element(histogram.begin(), histogram.end(), [](auto& a, auto& b) { return a.count < b.count; })->count;
    for (const HistogramBucket& b : histogram) {
        const int bar = int((b.count * 40 + most - 1) / most);
        std::printf("  %12s - %-12s %10" PRIu64 " %s\n", micros(b.from).c_str(), micros(b.to).c_str(), b.count,
                    std::string(size_t(bar), '#').c_str());
    }
    std::printf("\nby %s\n", pairs->groupTitle().c_str());
    for (const LatencyReport::Group& g : groups)
        std::printf("  %-20s %10" PRIu64 "  %s\n", g.label.c_str(), g.summary.count, summaryLine(g.summary).c_str());
    std::printf("\nslowest\n");
    for (const uint32_t k : order)
        std::printf("  %s  %12s us  cpu %d  pid %d  %s %s\n", seconds(p.start[k]).c_str(),
                    micros(p.duration[k]).c_str(), cpuOf(p.startEvent[k]), pidOf(p.startEvent[k]),
                    pairs->groupTitle().c_str(), pairs->groups()[p.group[k]].c_str());
    return 0;
}

} // namespace ringside::cli
