// SPDX-License-Identifier: GPL-2.0-or-later
// The format and metadata path: an arbitrary event format (text up to the first NUL) in an
// otherwise valid recording, with records of that event made of the bytes after the NUL;
// checked in the child process, parsed, and decoded as a view decodes it.
#include "fuzzsupport.h"

#include "support/tracewriter.h"

#include <traceevent/event-parse.h>

#include <cstring>

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
    tep_set_loglevel(TEP_LOG_NONE);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const char* text = reinterpret_cast<const char*>(data);
    const size_t textSize = strnlen(text, size);
    const std::string format(text, textSize);
    const std::string fields = textSize < size ? std::string(text + textSize + 1, size - textSize - 1) : std::string();
    const int id = ringside::fuzz::formatId(format);

    ringside::test::TraceWriter writer;
    writer.formats.push_back({"fuzz", format});
    writer.cpus.resize(1);
    const uint16_t type = static_cast<uint16_t>(id < 0 ? 0 : id);
    writer.cpus[0].push_back({1, ringside::test::TraceWriter::payload(type, 1, fields)});
    writer.cpus[0].push_back({1, ringside::test::TraceWriter::payload(type, 2, fields.substr(0, fields.size() / 2))});
    const std::string bytes = writer.write();
    ringside::fuzz::MemoryFile file(bytes.data(), bytes.size());
    ringside::LoadOptions options;
    options.threads = 1;
    auto trace = ringside::Trace::open(file.path(), options);
    if (trace) {
        ringside::fuzz::formatRows(**trace, 16);
        ringside::EventFormatter(**trace).formatText(type);
    }
    return 0;
}
