// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "store/cpucolumns.h"
#include "store/recordtap.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

// The registry's own: how its walks read the taps' records of a stream in order.
namespace ringside {

// One tap's records in one stream, taken in order. Each block is given back once read (unless
// another lane reads the tap too): the consumers' own memory then reuses pages already in hand
// (in virtual machines fresh pages are the dearest part of a load), and the peak stays lower.
class TapReader {
public:
    // Reads `column` from its `skip`-th record (those before were fed in earlier batches).
    explicit TapReader(TapColumn* column = nullptr, bool release = false, size_t skip = 0)
        : m_pieces(column ? &column->pieces : nullptr), m_release(release), m_skip(skip)
    {}
    const uint8_t* take()
    {
        if (m_at == m_end && !refill()) return nullptr;
        const uint8_t* record = m_at;
        m_at += m_stride;
        return record;
    }

private:
    // Releases the block read last and moves to the next one that holds records not read.
    bool refill()
    {
        if (m_reading && m_release) (*m_pieces)[m_piece].release(m_block - 1);
        m_reading = false;
        for (; m_pieces && m_piece < m_pieces->size(); ++m_piece, m_block = 0) {
            RecordBlocks& p = (*m_pieces)[m_piece];
            const auto& blocks = p.blocks();
            while (m_block < blocks.size()) {
                const RecordBlocks::Block& b = blocks[m_block++];
                if (m_skip >= b.count || !b.data) { // read before (released, or not)
                    m_skip -= std::min(m_skip, b.count);
                    continue;
                }
                m_stride = p.stride();
                m_at = b.data + m_skip * m_stride;
                m_end = b.data + b.count * m_stride;
                m_skip = 0;
                m_reading = true;
                return true;
            }
        }
        return false;
    }

    std::vector<RecordBlocks>* m_pieces;
    bool m_release = false;
    size_t m_skip = 0;
    size_t m_piece = 0, m_block = 0; // the next block to read
    bool m_reading = false;          // m_block - 1 of m_piece is being read
    const uint8_t* m_at = nullptr;
    const uint8_t* m_end = nullptr;
    size_t m_stride = 0;
};

// One stream's tapped records and lost-event markers in stream order, read lazily: the
// stream's event types say which tap each event went to, and each tap holds one record per
// event of its type. No sort, no merge of the taps, no list of every hit: the cost stays
// linear and the memory flat.
class StreamWalk {
public:
    static constexpr uint32_t kLostMarker = ~uint32_t(0);
    struct Hit {
        uint32_t index = 0; // the event's index in its stream
        uint32_t tap = 0;   // or kLostMarker
        const uint8_t* bytes = nullptr;
    };

    // Events [from, to) of `columns`; markers are the indexes of the events lost events precede.
    StreamWalk(const CpuColumns& columns, size_t from, size_t to, const std::vector<int32_t>& tapOfType,
               std::vector<uint32_t> markers)
        : m_shapes(&columns.shapes), m_tapOfCode(columns.shapes, TapOfShape{&tapOfType}), m_next(from), m_end(to),
          m_markers(std::move(markers))
    {}
    void addTap(uint32_t tap, TapColumn& column, bool release, size_t skip)
    {
        if (m_readers.size() <= tap) m_readers.resize(tap + 1u);
        m_readers[tap] = TapReader(&column, release, skip);
    }
    bool next(Hit& hit)
    {
        for (;;) {
            // A marker comes before the event it precedes.
            if (m_marker < m_markers.size() && m_markers[m_marker] <= m_next) {
                hit = {m_markers[m_marker++], kLostMarker, nullptr};
                return true;
            }
            if (m_next >= m_end) return false;
            // Up to the next marker, a block of event types at a time: most events are of
            // types no tap of this walk takes (a lane reads a few of many).
            const size_t stop = m_marker < m_markers.size() ? std::min<size_t>(m_end, m_markers[m_marker]) : m_end;
            if (m_next >= stop) continue;
            // The events' shapes are codes of their block's dictionary: a code's tap is worked
            // out once per block.
            const std::span<const uint16_t> codes = m_shapes->codes(m_next, stop);
            const size_t first = m_next;
            const size_t block = first >> DictionaryColumn<uint32_t>::kBlockBits;
            for (size_t i = 0; (i = m_tapOfCode.findMapped(block, codes, i)) < codes.size(); ++i) {
                const int32_t tap = m_tapOfCode(block, codes[i]);
                if (size_t(tap) >= m_readers.size()) continue;
                if (const uint8_t* bytes = m_readers[size_t(tap)].take()) {
                    m_next = first + i + 1;
                    hit = {uint32_t(first + i), uint32_t(tap), bytes};
                    return true;
                }
            }
            m_next = first + codes.size();
        }
    }

private:
    struct TapOfShape {
        const std::vector<int32_t>* tapOfType;
        int32_t operator()(uint32_t shape) const
        {
            const auto type = static_cast<uint16_t>(shape);
            return type < tapOfType->size() ? (*tapOfType)[type] : -1;
        }
    };

    const DictionaryColumn<uint32_t>* m_shapes;
    BlockCodeMap<uint32_t, TapOfShape> m_tapOfCode;
    size_t m_next, m_end;
    std::vector<uint32_t> m_markers;
    size_t m_marker = 0;
    std::vector<TapReader> m_readers; // per tap
};

} // namespace ringside
