// SPDX-License-Identifier: GPL-2.0-or-later
#include "export/exporttext.h"

namespace ringside {

std::string validUtf8(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    const auto* p = reinterpret_cast<const unsigned char*>(text.data());
    const auto* end = p + text.size();
    while (p < end) {
        const unsigned char c = *p;
        int length = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
        bool ok = length > 0 && end - p >= length;
        for (int i = 1; ok && i < length; ++i) ok = (p[i] & 0xc0) == 0x80;
        if (ok && length > 1) {
            // Overlong forms, surrogates and code points past U+10FFFF are not UTF-8 either.
            uint32_t cp = c & (0xff >> (length + 1));
            for (int i = 1; i < length; ++i) cp = (cp << 6) | (p[i] & 0x3f);
            static const uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
            ok = cp >= least[length] && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff);
        }
        if (ok) {
            out.append(reinterpret_cast<const char*>(p), size_t(length));
            p += length;
        } else {
            out += "\xef\xbf\xbd";
            ++p;
        }
    }
    return out;
}

} // namespace ringside
