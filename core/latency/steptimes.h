// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ringside {

// Times of a CPU's records in 4 bytes each where 8 would be plain: each the step from the
// time before it; a step that does not fit (the first, one back in time, or 4.3 s and more)
// is kept whole aside. Read in order with a Reader, as LoadedPairs reads them: each once.
class StepTimes {
public:
    struct Reader {
        size_t whole = 0; // the next whole time
        uint64_t time = 0;
    };
    void reserve(size_t n) { m_steps.reserve(n); }
    size_t size() const { return m_steps.size(); }
    size_t capacity() const { return m_steps.capacity(); }
    bool empty() const { return m_steps.empty(); }
    void push_back(uint64_t time)
    {
        const uint64_t step = time - m_last; // one back in time wraps around: never fits
        if (m_steps.empty() || step >= kWhole) {
            m_steps.push_back(kWhole);
            m_whole.push_back(time);
        } else {
            m_steps.push_back(uint32_t(step));
        }
        m_last = time;
    }
    // Time i, read after time i - 1 (or first) with the same reader.
    uint64_t next(size_t i, Reader& r) const
    {
        const uint32_t step = m_steps[i];
        r.time = step == kWhole ? m_whole[r.whole++] : r.time + step;
        return r.time;
    }

    // Time i, read from the first (a reader placed at i).
    uint64_t seek(size_t i, Reader& r) const
    {
        r = {};
        for (size_t k = 0; k <= i; ++k) next(k, r);
        return r.time;
    }

private:
    static constexpr uint32_t kWhole = UINT32_MAX;
    std::vector<uint32_t> m_steps;
    std::vector<uint64_t> m_whole;
    uint64_t m_last = 0;
};

} // namespace ringside
