// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "trace.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace ringside::test {

// How long a test waits for work it started (a load, a query, a job, a subprocess) before it
// calls it hung: far past what the work takes on a slow, loaded machine under a sanitizer, and
// under ctest's 600 s for the whole test. What a test checks never depends on how fast it went.
inline constexpr int kWorkWaitMs = 300000;

QString fixture(const QString& name);
std::string fixturePath(const QString& name);

// Writes `bytes` to `path` (replacing it); false if it cannot.
bool writeFile(const QString& path, std::string_view bytes);
inline bool writeFile(const QString& path, const QByteArray& bytes)
{
    return writeFile(path, std::string_view(bytes.constData(), size_t(bytes.size())));
}

// The trace-cmd format a file is in, as the writer names it ("v7, zstd", "v6"), read by
// the file reader; "unreadable: REASON" when it cannot open it.
std::string datFormatOf(const QString& path);

// Decompresses an .xz golden file with the xz tool (always present on Debian).
QByteArray readXz(const QString& path);

// The full `trace-cmd report`-style dump of a trace, as ringside-cli dump prints it.
QByteArray dump(const Trace& trace);

std::unique_ptr<Trace> openOrFail(const std::string& path);

// Every analysis's tables as text, a line per row in an order of their own (batches may add a
// table's rows in another order), tasks by pid and first event (ByPid: two loads that number
// tasks apart compare equal) or also by TaskId (ById), labels by their text; then each
// plugin's statistics.
enum class TaskNaming { ByPid, ById };
std::vector<std::string> analysesText(const Trace& trace, TaskNaming naming = TaskNaming::ByPid);

// Grows `store` (new, empty) with the top buffer of `file` the way a live capture does: page
// runs arrive one at a time, interleaved across CPUs, into in-memory page sources and through
// StoreAppender, and what can be
// ordered is published after each round; `afterRound(published)` runs after each publish.
// Returns false (with a QTest failure recorded) when a run cannot be read.
bool appendRunByRun(const DatFile& file, EventStore& store, const std::function<void(size_t published)>& afterRound,
                    uint64_t* lateEvents = nullptr);

// A program run to its end (or killed after `timeoutMs`): status -1 when it did not exit.
struct ProgramRun {
    int status = -1;
    QByteArray out, err;
};
ProgramRun runProgram(const QString& program, const QStringList& args, int timeoutMs = 120000);
inline ProgramRun runCli(const QStringList& args)
{
    return runProgram(RINGSIDE_CLI, args);
}

// The first line where two texts differ, for a readable failure message.
QString firstDifference(const QByteArray& expected, const QByteArray& actual);

} // namespace ringside::test
