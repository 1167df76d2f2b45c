// SPDX-License-Identifier: GPL-2.0-or-later
// Table search benchmark: opens a recording, then times the core search for a text in all
// columns and in single columns (plain, case-insensitive; the first match and all of them), and the old way for comparison
// on a slice (one thread, every cell formatted through the table's formatter).
// usage: bench_search FILE [TEXT] [--threads N]
#include "decode/eventformatter.h"
#include "query/search.h"
#include "trace.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

using namespace ringside;

namespace {

double secondsSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_search FILE [TEXT] [--threads N]\n");
        return 2;
    }
    std::string text = "sched_switch";
    int threads = 0;
    for (int i = 2; i < argc; ++i) {
        if (std::strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
            threads = std::atoi(argv[++i]);
        else
            text = argv[i];
    }
    auto start = std::chrono::steady_clock::now();
    auto trace = Trace::open(argv[1]);
    if (!trace) {
        std::fprintf(stderr, "bench_search: %s\n", trace.error().message.c_str());
        return 1;
    }
    const size_t rows = (*trace)->store().eventCount();
    std::printf("open: %.2f s, %zu events\n", secondsSince(start), rows);

    const std::pair<const char*, SearchColumn> columns[] = {{"Event", SearchColumn::Event},
                                                            {"Task", SearchColumn::Task},
                                                            {"Time", SearchColumn::Time},
                                                            {"Info", SearchColumn::Info},
                                                            {"All", SearchColumn::All}};
    for (const auto& [name, column] : columns) {
        SearchRequest request;
        request.column = column;
        request.match = containsText(text, false);
        request.threads = threads;
        // The first match from the table's start: what the window shows before the count.
        double first = -1;
        request.firstMatch = [&](size_t) { first = secondsSince(start); };
        start = std::chrono::steady_clock::now();
        const std::vector<size_t> matches = searchRows(**trace, request);
        std::printf("search '%s' in %-5s: first match %.3f s, all %.2f s, %zu matches\n", text.c_str(), name, first,
                    secondsSince(start), matches.size());
    }

    // The previous approach, per row on one thread through EventFormatter, on 200k rows.
    EventFormatter formatter(**trace);
    const TextPredicate match = containsText(text, false);
    const size_t slice = std::min<size_t>(rows, 200000);
    size_t hits = 0;
    start = std::chrono::steady_clock::now();
    for (size_t row = 0; row < slice; ++row) {
        const EventRef e = (*trace)->store().eventAt(row);
        hits += match(formatter.info(e)) || match(formatter.latency(e));
    }
    const double old = secondsSince(start);
    std::printf("one thread, EventFormatter info+latency on %zu rows: %.2f s (%.2f s per 1M rows), %zu matches\n",
                slice, old, old * 1e6 / double(std::max<size_t>(slice, 1)), hits);
    return 0;
}
