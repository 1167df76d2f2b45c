// SPDX-License-Identifier: GPL-2.0-or-later
// The whole reader on an arbitrary file: header, options and sections (v6 and v7, compressed
// or not), the metadata handed to libtraceevent (through the child-process check), the CPU
// data, and the decoding of the first rows.
#include "fuzzsupport.h"

#include <traceevent/event-parse.h>

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
    tep_set_loglevel(TEP_LOG_NONE);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    ringside::fuzz::MemoryFile file(data, size);
    ringside::LoadOptions options;
    options.threads = 1;
    auto trace = ringside::Trace::open(file.path(), options);
    if (trace) ringside::fuzz::formatRows(**trace, 256);
    return 0;
}
