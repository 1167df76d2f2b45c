// SPDX-License-Identifier: GPL-2.0-or-later
#include "query/search.h"

#include "decode/reportworker.h"
#include "trace.h"

#include <traceevent/event-parse.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <regex>
#include <thread>
#include <unordered_set>

namespace ringside {

namespace {

constexpr size_t kSearchPieceRows = 32768;

char lowerAscii(char c)
{
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c + ('a' - 'A')) : c;
}

// Which streams, event types and pids match, decided once from their labels.
struct ColumnMatches {
    std::vector<char> streams;
    std::vector<char> types;
    std::unordered_set<int32_t> taskPids, pidPids;
};

std::string streamLabel(const EventStore& store, size_t s)
{
    const Stream& stream = store.stream(StreamId(static_cast<uint16_t>(s)));
    const std::string& buffer = store.buffers()[stream.buffer].name;
    return buffer.empty() ? std::to_string(stream.cpu) : buffer + ":" + std::to_string(stream.cpu);
}

// As the table shows times: seconds with nine decimals, or the raw count for clocks that
// do not count nanoseconds.
void formatTime(uint64_t ns, bool nanoseconds, std::string& out)
{
    if (!nanoseconds) {
        out = std::to_string(ns);
        return;
    }
    char digits[16];
    std::snprintf(digits, sizeof digits, "%09llu", static_cast<unsigned long long>(ns % 1000000000ull));
    out = std::to_string(ns / 1000000000ull);
    out += '.';
    out += digits;
}

bool wantsColumn(SearchColumn wanted, SearchColumn column)
{
    return wanted == SearchColumn::All || wanted == column;
}

} // namespace

TextPredicate containsText(std::string needle, bool caseSensitive)
{
    if (caseSensitive)
        return
            [needle = std::move(needle)](std::string_view text) { return text.find(needle) != std::string_view::npos; };
    for (char& c : needle) c = lowerAscii(c);
    return [needle = std::move(needle)](std::string_view text) {
        if (needle.empty()) return true;
        if (text.size() < needle.size()) return false;
        const char first = needle[0];
        const char firstUpper = first >= 'a' && first <= 'z' ? static_cast<char>(first - ('a' - 'A')) : first;
        for (size_t i = 0; i + needle.size() <= text.size(); ++i) {
            if (text[i] != first && text[i] != firstUpper) continue;
            size_t j = 1;
            while (j < needle.size() && lowerAscii(text[i + j]) == needle[j]) ++j;
            if (j == needle.size()) return true;
        }
        return false;
    };
}

TextPredicate matchesRegex(const std::string& pattern, bool caseSensitive, std::string* error)
{
    try {
        auto flags = std::regex::ECMAScript | std::regex::optimize;
        if (!caseSensitive) flags |= std::regex::icase;
        auto re = std::make_shared<const std::regex>(pattern, flags);
        return [re](std::string_view text) { return std::regex_search(text.begin(), text.end(), *re); };
    } catch (const std::regex_error& e) {
        if (error) *error = e.what();
        return {};
    }
}

std::vector<size_t> searchRows(const Trace& trace, const SearchRequest& request, const std::atomic<bool>* cancel,
                               const std::function<void(double)>& progress)
{
    const EventStore& store = trace.store();
    const SearchColumn column = request.column;
    if (!request.match) return {};
    auto cancelled = [&] { return cancel && cancel->load(std::memory_order_relaxed); };

    const bool needsText = wantsColumn(column, SearchColumn::Latency) || wantsColumn(column, SearchColumn::Info);
    const bool needsTime = wantsColumn(column, SearchColumn::Time);
    const bool usecs = trace.file().info().timesInUsecs;

    // One worker (own tep handle) per thread for the formatted columns; the first one also
    // names event types and tasks, so the trace's own handle stays with its owner.
    int threads =
        request.threads > 0 ? request.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const size_t tableRows = request.rows ? request.rows->size() : store.eventCount();
    const size_t pieceRows = request.pieceRows ? request.pieceRows : kSearchPieceRows;
    const size_t pieces = (tableRows + pieceRows - 1) / pieceRows;
    threads = static_cast<int>(std::clamp<size_t>(pieces, 1, size_t(threads)));
    std::vector<std::unique_ptr<ReportWorker>> workers;
    const bool needsNames = wantsColumn(column, SearchColumn::Event) || wantsColumn(column, SearchColumn::Task);
    for (int i = 0; i < (needsText ? threads : needsNames ? 1 : 0); ++i)
        if (auto w = ReportWorker::create(trace, true)) workers.push_back(std::move(w));
    if ((needsText || needsNames) && workers.empty()) return {};

    ColumnMatches m;
    if (wantsColumn(column, SearchColumn::Cpu)) {
        m.streams.assign(store.streamCount(), 0);
        for (size_t s = 0; s < store.streamCount(); ++s) m.streams[s] = request.match(streamLabel(store, s));
    }
    if (wantsColumn(column, SearchColumn::Event)) {
        m.types.assign(65536, 0);
        for (size_t t = 0; t < 65536; ++t) {
            if (store.eventTypeCount(uint16_t(t)) == 0) continue;
            tep_event* e = workers[0]->event(static_cast<uint16_t>(t));
            m.types[t] = request.match(e ? std::string(e->name) : "unknown type " + std::to_string(t));
        }
    }
    for (const Task& task : store.tasks().snapshot()) {
        if (wantsColumn(column, SearchColumn::Pid) && request.match(std::to_string(task.pid)))
            m.pidPids.insert(task.pid);
        if (!wantsColumn(column, SearchColumn::Task)) continue;
        const std::string name = request.taskName ? request.taskName(task.pid) : trace.taskName(task.pid);
        if (request.match(name)) m.taskPids.insert(task.pid);
    }
    if (cancelled()) return {};

    std::vector<std::vector<size_t>> found(pieces);
    std::atomic<size_t> nextPiece{0};
    size_t donePieces = 0;
    std::mutex progressMutex;
    // Pieces are taken from firstFrom's on (wrapping): the i-th taken is pieceOf(i). The first
    // match is known once every piece taken before it is done (`searched` of them, in turn).
    const size_t startPiece = pieces ? std::min(request.firstFrom / pieceRows, pieces - 1) : 0;
    auto pieceOf = [&](size_t i) { return (startPiece + i) % pieces; };
    std::vector<uint8_t> pieceDone(pieces, 0);
    size_t searched = 0;
    bool firstSaid = !request.firstMatch;
    auto sayFirst = [&] { // under progressMutex
        while (!firstSaid && searched < pieces && pieceDone[pieceOf(searched)]) {
            const size_t p = pieceOf(searched++);
            // The start piece's rows before firstFrom would come last, after the wrap: not here.
            auto it = p == startPiece ? std::lower_bound(found[p].begin(), found[p].end(), request.firstFrom)
                                      : found[p].begin();
            if (it != found[p].end()) {
                firstSaid = true;
                request.firstMatch(*it);
            }
        }
    };
    auto matchesRow = [&](EventRef e, ReportWorker* worker, std::string& text) {
        const CpuColumns& c = store.stream(e.stream).columns;
        if ((!m.streams.empty() && m.streams[e.stream.value]) || (!m.types.empty() && m.types[c.eventType[e.index]]) ||
            (!m.pidPids.empty() && m.pidPids.count(c.pid[e.index])) ||
            (!m.taskPids.empty() && m.taskPids.count(c.pid[e.index])))
            return true;
        if (needsTime) {
            formatTime(c.timestamp[e.index], usecs, text);
            if (request.match(text)) return true;
        }
        if (wantsColumn(column, SearchColumn::Latency)) {
            text.clear();
            worker->latency(e, text);
            if (request.match(text)) return true;
        }
        if (wantsColumn(column, SearchColumn::Info)) {
            text.clear();
            worker->info(e, text);
            if (request.match(text)) return true;
        }
        return false;
    };
    auto work = [&](ReportWorker* worker) {
        std::string text;
        for (size_t i = nextPiece++; i < pieces && !cancelled(); i = nextPiece++) {
            const size_t p = pieceOf(i);
            const size_t first = p * pieceRows, last = std::min(tableRows, first + pieceRows);
            std::vector<size_t>& out = found[p];
            MergedOrder::Cursor cursor(store.order(), request.rows ? request.rows->select(first) : first);
            for (size_t k = first; k < last;) {
                if (!request.rows || request.rows->contains(cursor.row())) {
                    if ((k & 1023) == 0 && cancelled()) return;
                    if (matchesRow(cursor.event(), worker, text)) out.push_back(k);
                    ++k;
                }
                if (k < last) cursor.next(); // never past the last row: next() reads it
            }
            if (progress || request.firstMatch) {
                std::lock_guard lock(progressMutex); // counted under the lock: reports never go back
                pieceDone[p] = 1;
                sayFirst();
                ++donePieces;
                if (progress) progress(double(donePieces) / double(pieces));
            }
        }
    };
    std::vector<std::thread> pool;
    for (int i = 1; i < threads; ++i) pool.emplace_back(work, needsText ? workers[size_t(i)].get() : nullptr);
    work(needsText ? workers[0].get() : nullptr);
    for (auto& t : pool) t.join();
    if (cancelled()) return {};

    std::vector<size_t> matches;
    for (auto& piece : found) matches.insert(matches.end(), piece.begin(), piece.end());
    return matches;
}

long long findFrom(const std::vector<size_t>& matches, long long row, bool backwards)
{
    if (matches.empty()) return -1;
    if (!backwards) {
        if (row < 0) return static_cast<long long>(matches.front());
        auto it = std::lower_bound(matches.begin(), matches.end(), static_cast<size_t>(row));
        return static_cast<long long>(it == matches.end() ? matches.front() : *it);
    }
    if (row < 0) return static_cast<long long>(matches.back());
    auto it = std::upper_bound(matches.begin(), matches.end(), static_cast<size_t>(row));
    return static_cast<long long>(it == matches.begin() ? matches.back() : *(it - 1));
}

} // namespace ringside
