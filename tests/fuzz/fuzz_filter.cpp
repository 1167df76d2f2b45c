// SPDX-License-Identifier: GPL-2.0-or-later
// The filter syntax checker, and what it lets through to libtraceevent's filter parser
// (which crashes on some malformed expressions): compiled and evaluated over a recording
// with real kernel formats.
#include "fuzzsupport.h"

#include "query/eventfilter.h"

#include <traceevent/event-parse.h>

#include <cstdlib>

using namespace ringside;

namespace {
std::unique_ptr<Trace> g_trace;
}

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
    tep_set_loglevel(TEP_LOG_NONE);
    auto trace = Trace::open(fuzz::sampleRecording());
    if (!trace) std::abort();
    g_trace = std::move(trace.value());
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    auto expression = FilterExpression::compile(*g_trace, text);
    if (!expression) return 0;
    FilterSpec spec;
    spec.expression = text;
    applyFilter(g_trace->store(), spec, expression.value().get());
    return 0;
}
