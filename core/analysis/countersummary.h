// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "analysis/tracktables.h"

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace ringside {

// One owner's counter values (a step function: each value holds until the next) summarised so
// that a time range's lowest, highest and time-weighted mean cost a binary search and a walk
// of blocks, not of values: per block of kBlock values its lowest and highest, and the
// integral of the value over time up to the block's first value. What a counter row reads per
// pixel column and per frame over millions of values. Grows with its lane (update()).
class CounterSummary {
public:
    static constexpr size_t kBlock = 64;

    // Takes in the values the lane gained since the last update.
    void update(const GrowingList<CounterRow>& lane);
    size_t rows() const { return m_rows; }
    size_t memoryBytes() const
    {
        return m_min.capacity() * sizeof(int64_t) * 2 + m_integral.capacity() * sizeof(long double) + sizeof *this;
    }
    // Every value's lowest and highest (0, 0 when none).
    int64_t lowest() const { return m_lowest; }
    int64_t highest() const { return m_highest; }

    struct Stats {
        bool any = false; // a value was in force somewhere in the range
        int64_t min = 0, max = 0;
        double mean = 0;    // weighted by how long each value held within the range
        size_t changes = 0; // values that begin in the range
    };
    // Over [from, to): the value in force at `from` and those that begin before `to`; the last
    // holds until `to` (the caller ends a range at the data's end).
    Stats over(const GrowingList<CounterRow>& lane, uint64_t from, uint64_t to) const;
    // The lowest and highest of values [first, last) (first < last <= rows()).
    std::pair<int64_t, int64_t> extremes(const GrowingList<CounterRow>& lane, size_t first, size_t last) const;
    // The index of the value in force at t, or rows() when none yet.
    size_t valueAt(const GrowingList<CounterRow>& lane, uint64_t t) const;

private:
    // The integral of the value from the first value's time to t (t at or after it).
    long double integralTo(const GrowingList<CounterRow>& lane, uint64_t t) const;

    size_t m_rows = 0;
    int64_t m_lowest = 0, m_highest = 0;
    std::vector<int64_t> m_min, m_max;   // per block
    std::vector<long double> m_integral; // per block: up to its first value's time
};

} // namespace ringside
