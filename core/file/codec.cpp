// SPDX-License-Identifier: GPL-2.0-or-later
#include "file/codec.h"

#include <zlib.h>
#include <zstd.h>

namespace ringside {

bool codecFromName(const std::string& name, Codec* codec)
{
    if (name == "none")
        *codec = Codec::None;
    else if (name == "zstd")
        *codec = Codec::Zstd;
    else if (name == "zlib")
        *codec = Codec::Zlib;
    else
        return false;
    return true;
}

const char* codecName(Codec codec)
{
    switch (codec) {
    case Codec::None: return "none";
    case Codec::Zstd: return "zstd";
    case Codec::Zlib: return "zlib";
    }
    return "?";
}

bool decompressBlock(Codec codec, const uint8_t* src, size_t srcSize, uint8_t* dst, size_t dstSize, std::string* reason)
{
    switch (codec) {
    case Codec::None:
        if (srcSize != dstSize) return *reason = "stored block size mismatch", false;
        std::copy(src, src + srcSize, dst);
        return true;
    case Codec::Zstd: {
        size_t n = ZSTD_decompress(dst, dstSize, src, srcSize);
        if (ZSTD_isError(n)) return *reason = std::string("zstd: ") + ZSTD_getErrorName(n), false;
        if (n != dstSize) return *reason = "zstd block shorter than declared", false;
        return true;
    }
    case Codec::Zlib: {
        uLongf n = dstSize;
        int rc = uncompress(dst, &n, src, srcSize);
        if (rc != Z_OK) return *reason = std::string("zlib: ") + (zError(rc) ? zError(rc) : "error"), false;
        if (n != dstSize) return *reason = "zlib block shorter than declared", false;
        return true;
    }
    }
    return false;
}

} // namespace ringside
