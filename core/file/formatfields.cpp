// SPDX-License-Identifier: GPL-2.0-or-later
#include "file/formatfields.h"

#include <charconv>

namespace ringside {

namespace {

// The integer after `key` in `line` ("offset:" -> 16), or false.
bool numberAfter(std::string_view line, std::string_view key, int& out)
{
    const size_t at = line.find(key);
    if (at == std::string_view::npos) return false;
    const char* begin = line.data() + at + key.size();
    return std::from_chars(begin, line.data() + line.size(), out).ec == std::errc();
}

bool isNameChar(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

} // namespace

std::vector<FormatField> formatFields(std::string_view format)
{
    std::vector<FormatField> fields;
    size_t pos = 0;
    while (pos < format.size()) {
        size_t end = format.find('\n', pos);
        if (end == std::string_view::npos) end = format.size();
        std::string_view line = format.substr(pos, end - pos);
        pos = end + 1;
        const size_t field = line.find("field:");
        if (field == std::string_view::npos) continue;
        const size_t semicolon = line.find(';', field);
        if (semicolon == std::string_view::npos) continue;
        std::string_view declaration = line.substr(field + 6, semicolon - field - 6);
        FormatField f;
        if (!numberAfter(line, "offset:", f.offset) || !numberAfter(line, "size:", f.size)) continue;
        int isSigned = 0;
        numberAfter(line, "signed:", isSigned);
        f.isSigned = isSigned != 0;
        // The name is the last identifier, before a trailing "[n]" ("__data_loc char[] name"
        // has its brackets before the name).
        size_t nameEnd = declaration.size();
        while (nameEnd > 0 && declaration[nameEnd - 1] == ' ') --nameEnd;
        f.isArray = declaration.find('[') != std::string_view::npos;
        if (nameEnd > 0 && declaration[nameEnd - 1] == ']') {
            const size_t bracket = declaration.rfind('[', nameEnd);
            if (bracket == std::string_view::npos) continue;
            nameEnd = bracket;
        }
        while (nameEnd > 0 && declaration[nameEnd - 1] == ' ') --nameEnd;
        size_t nameBegin = nameEnd;
        while (nameBegin > 0 && isNameChar(declaration[nameBegin - 1])) --nameBegin;
        if (nameBegin == nameEnd) continue;
        f.name = std::string(declaration.substr(nameBegin, nameEnd - nameBegin));
        f.type = std::string(declaration.substr(0, nameBegin)) + std::string(declaration.substr(nameEnd));
        while (!f.type.empty() && f.type.back() == ' ') f.type.pop_back();
        f.isDynamic = declaration.find("__data_loc") != std::string_view::npos ||
                      declaration.find("__rel_loc") != std::string_view::npos;
        fields.push_back(std::move(f));
    }
    return fields;
}

} // namespace ringside
