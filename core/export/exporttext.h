// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <charconv>
#include <cstdint>
#include <string>
#include <type_traits>
#include <string_view>

namespace ringside {

// Text an export writes: CSV cells (RFC 4180), JSON strings, numbers without allocation.

inline void appendCsvCell(std::string& out, std::string_view text)
{
    if (text.find_first_of(",\"\r\n") == std::string_view::npos) {
        out += text;
        return;
    }
    out += '"';
    for (char c : text) {
        if (c == '"') out += '"';
        out += c;
    }
    out += '"';
}

// Text that is not valid UTF-8 (a damaged comm, raw bytes) as JSON wants it: each stray byte
// becomes U+FFFD.
std::string validUtf8(std::string_view text);

inline void appendJsonString(std::string& out, std::string_view text)
{
    static const char* const hex = "0123456789abcdef";
    for (unsigned char c : text)
        if (c >= 0x80) {
            const std::string valid = validUtf8(text);
            if (valid != text) return appendJsonString(out, valid);
            break;
        }
    out += '"';
    for (unsigned char c : text) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
            if (c < 0x20) {
                out += "\\u00";
                out += hex[c >> 4];
                out += hex[c & 15];
            } else {
                out += char(c);
            }
        }
    }
    out += '"';
}

template <typename Number>
void appendNumber(std::string& out, Number value)
{
    char text[24];
    const auto end = std::to_chars(text, text + sizeof text, value).ptr;
    out.append(text, size_t(end - text));
}

// An integer as JSON: a number when every JSON reader holds it exactly (|value| <= 2^53, what a
// double holds), else its decimal digits as a string: pointers and counter-clock timestamps
// would be rounded.
template <typename Number>
void appendJsonInteger(std::string& out, Number value)
{
    constexpr uint64_t kExact = uint64_t(1) << 53;
    bool wide = false;
    if constexpr (std::is_signed_v<Number>)
        wide = value < 0 ? uint64_t(-(value + 1)) + 1 > kExact : uint64_t(value) > kExact;
    else
        wide = uint64_t(value) > kExact;
    if (wide) out += '"';
    appendNumber(out, value);
    if (wide) out += '"';
}

// Nanoseconds as seconds with nine decimals, exactly ("2156.000123456").
inline void appendSeconds(std::string& out, uint64_t ns)
{
    appendNumber(out, ns / 1000000000);
    char frac[10];
    uint64_t rest = ns % 1000000000;
    for (int i = 8; i >= 0; --i, rest /= 10) frac[i] = char('0' + rest % 10);
    out += '.';
    out.append(frac, 9);
}

} // namespace ringside
