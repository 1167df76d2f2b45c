// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

struct tep_handle;
struct tep_event;
struct tep_record;

namespace ringside {

class RecordPeek;

// Deeper than any kernel's function_graph call stack can go (its shadow stack holds a page of
// words): a depth past it is a damaged record, printed as "[depth N]" even in a dump.
inline constexpr unsigned long long kDumpIndentLimit = 1024;

// Where the ftrace handlers find the look-ahead of the printer currently printing; one per
// tep handle, owned by the Trace.
struct FuncGraphContext {
    RecordPeek* peek = nullptr;
    tep_event* exitEvent = nullptr; // ftrace/funcgraph_exit, looked up once per handle
    // Calls deeper than this print "[depth N]" instead of their indentation: a damaged
    // record's depth can be ~2^31 (gigabytes of spaces, minutes of printing). Views set a
    // smaller one; a dump keeps trace-cmd's indentation up to kDumpIndentLimit.
    unsigned long long indentLimit = kDumpIndentLimit;
};

// Replaces libtraceevent's function plugin handler with Ringside's (no indentation): the
// plugin keeps its indentation state in globals, unsafe when several handles print at once.
void useOwnFunctionHandler(tep_handle* tep);

// Whether trace-cmd folds `next` (the record after `entry` in its buffer) into `entry`'s
// leaf line, so that `next` is not printed: `entry` is a funcgraph_entry and `next` its exit.
bool funcGraphFolds(tep_handle* tep, tep_record* entry, tep_record* next);

// Registers Ringside's printers for ftrace's function, funcgraph_entry and funcgraph_exit
// events, formatted as `trace-cmd report` prints them. Called before libtraceevent's plugins
// load, so that a plugin for the same event takes precedence, as in trace-cmd.
void registerFuncGraphHandlers(tep_handle* tep, FuncGraphContext* context);

} // namespace ringside
