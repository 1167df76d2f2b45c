// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace ringside {

// The compression of a v7 file's sections and trace data, as named in its header.
enum class Codec { None, Zstd, Zlib };

// Maps the header's algorithm name ("none", "zstd", "zlib"); false for an unknown name.
bool codecFromName(const std::string& name, Codec* codec);
const char* codecName(Codec codec);

// Decompresses exactly one block. Returns false with a reason when the data is corrupt or
// does not expand to the declared size.
bool decompressBlock(Codec codec, const uint8_t* src, size_t srcSize, uint8_t* dst, size_t dstSize,
                     std::string* reason);

// The version written beside the algorithm's name in a v7 header ("" for none).
std::string codecVersion(Codec codec);

// Compresses one block into `out` (replacing it). Zstd only is written; zlib is read only.
bool compressBlock(Codec codec, const uint8_t* src, size_t srcSize, std::string* out, std::string* reason);

} // namespace ringside
