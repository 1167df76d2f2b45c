// SPDX-License-Identifier: GPL-2.0-or-later
// The text paths on whatever a damaged recording holds: the whole dump (as `ringside-cli dump`
// prints it, function_graph folding and indentation included) and every row as the table's
// columns, the details pane and a tooltip format it. A value read from the file (a depth, an
// array's length, a string's) must never drive a loop unbounded: libFuzzer's -timeout turns a
// hang into a failure. (The merged dump of several recordings prints through the same
// ReportWorker; its own handles cost each input seconds here, so tst_mergedreport covers it.)
#include "fuzzsupport.h"

#include "decode/reportprinter.h"

#include <traceevent/event-parse.h>

#include <cstdio>

namespace {
FILE* g_null = nullptr;
}

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
    tep_set_loglevel(TEP_LOG_NONE);
    g_null = std::fopen("/dev/null", "w");
    return g_null ? 0 : 1;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    ringside::fuzz::MemoryFile file(data, size);
    ringside::LoadOptions options;
    options.threads = 1;
    auto trace = ringside::Trace::open(file.path(), options);
    if (!trace) return 0;
    ringside::ReportPrinter(**trace).dump(g_null, 1);
    ringside::fuzz::formatRows(**trace, 4096);
    return 0;
}
