// SPDX-License-Identifier: GPL-2.0-or-later
#include "file/kallsyms.h"

#include <traceevent/event-parse.h>

#include <string>

namespace ringside {

namespace {

int hexDigit(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

bool isSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

} // namespace

size_t registerKallsyms(tep_handle* tep, std::string_view text)
{
    size_t registered = 0;
    std::string name, module;
    size_t pos = 0;
    while (pos < text.size()) {
        size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = text.substr(pos, end - pos);
        pos = end + 1;
        if (line.empty()) continue; // strtok skips empty lines

        size_t i = 0;
        while (i < line.size() && isSpace(line[i])) ++i;
        unsigned long long addr = 0;
        int digits = 0;
        for (; i < line.size() && digits < 16 && hexDigit(line[i]) >= 0; ++i, ++digits)
            addr = (addr << 4) | static_cast<unsigned>(hexDigit(line[i]));
        if (digits == 0) break;
        while (i < line.size() && isSpace(line[i])) ++i;
        if (i >= line.size()) break;
        const char type = line[i++];
        while (i < line.size() && isSpace(line[i])) ++i;
        const size_t nameStart = i;
        while (i < line.size() && !isSpace(line[i])) ++i;
        if (i == nameStart) break;
        name.assign(line.substr(nameStart, i - nameStart));
        const char* mod = nullptr;
        if (i + 1 < line.size() && line[i] == '\t' && line[i + 1] == '[') {
            size_t modStart = i + 2, modEnd = modStart;
            while (modEnd < line.size() && !isSpace(line[modEnd])) ++modEnd;
            if (modEnd > modStart) {
                module.assign(line.substr(modStart, modEnd - modStart - 1)); // drop ']'
                mod = module.c_str();
            }
        }
        if (name[0] != '$' && type != 'A' && type != 'a') {
            tep_register_function(tep, name.data(), addr, const_cast<char*>(mod));
            ++registered;
        }
    }
    return registered;
}

} // namespace ringside
