// SPDX-License-Identifier: GPL-2.0-or-later
#include "decode/parserstate.h"

#include <traceevent/event-parse.h>

#include <string_view>

namespace ringside {

std::unique_lock<std::mutex> lockTraceEventParser()
{
    static std::mutex parser;
    return std::unique_lock<std::mutex>(parser);
}

void clearTraceEventParserLeftovers()
{
    // Each `REC->a` clears one flag (the flags' flag first, then the symbols' one), finding
    // the field it names; a scratch handle keeps the format out of every real one. The print
    // format is only read after both field sections: the common fields, a blank line, the rest.
    static constexpr std::string_view kClearing = "name: clear_leftovers\n"
                                                  "ID: 1\n"
                                                  "format:\n"
                                                  "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
                                                  "\n"
                                                  "\tfield:int a;\toffset:4;\tsize:4;\tsigned:1;\n"
                                                  "\n"
                                                  "print fmt: \"%d %d\", REC->a, REC->a\n";
    tep_handle* scratch = tep_alloc();
    if (!scratch) return;
    tep_parse_event(scratch, kClearing.data(), kClearing.size(), "ringside");
    tep_free(scratch);
}

} // namespace ringside
