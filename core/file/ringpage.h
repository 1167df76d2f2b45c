// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "util/bytereader.h"

#include <cstdint>

namespace ringside {

// The header every ring-buffer page starts with: the time of its first event (8 bytes), then
// the bytes of events it holds and two flags (one kernel long).
namespace ringpage {

constexpr uint64_t kCommitMask = (1u << 27) - 1;
constexpr uint64_t kMissingEvents = 1ull << 31;
constexpr uint64_t kMissingStored = 1ull << 30;

inline uint64_t timestamp(const uint8_t* page, bool bigEndian)
{
    return ByteReader::decode(page, 8, bigEndian);
}

// False if the header's sizes are impossible for a page of `pageSize` bytes.
inline bool headerIsSane(const uint8_t* page, uint32_t pageSize, int longSize, bool bigEndian)
{
    const uint64_t commit = ByteReader::decode(page + 8, longSize, bigEndian);
    const uint64_t size = commit & kCommitMask;
    const uint64_t dataSpace = pageSize - 8 - static_cast<uint64_t>(longSize);
    if (size > dataSpace) return false;
    return !((commit & kMissingEvents) && (commit & kMissingStored) &&
             size + static_cast<uint64_t>(longSize) > dataSpace);
}

} // namespace ringpage
} // namespace ringside
