// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <cstddef>

namespace ringside {

// The first index in [begin, end) for which `isBefore(index)` is false, where it is true up to
// some index and false from there on (a sorted column searched for a value): a binary search
// over positions, for columns that are not iterator ranges (blocks, times in two parts).
template <typename IsBefore>
size_t firstIndexNotBefore(size_t begin, size_t end, IsBefore isBefore)
{
    while (begin < end) {
        const size_t mid = begin + (end - begin) / 2;
        if (isBefore(mid))
            begin = mid + 1;
        else
            end = mid;
    }
    return begin;
}

} // namespace ringside
