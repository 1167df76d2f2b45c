// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace ringside {

// Bounds-checked cursor over file bytes in the file's endianness. Every read past the end
// sets failed() and yields zero, so a truncated file is noticed once, where it is checked.
class ByteReader {
public:
    ByteReader() = default;
    ByteReader(const uint8_t* data, size_t size, bool bigEndian) : m_data(data), m_size(size), m_bigEndian(bigEndian) {}

    size_t pos() const { return m_pos; }
    size_t size() const { return m_size; }
    size_t remaining() const { return m_pos <= m_size ? m_size - m_pos : 0; }
    bool failed() const { return m_failed; }
    const uint8_t* data() const { return m_data; }
    const uint8_t* here() const { return m_data + m_pos; }

    bool seek(size_t pos)
    {
        if (pos > m_size) return fail();
        m_pos = pos;
        return true;
    }
    bool skip(size_t n) { return n <= remaining() ? (m_pos += n, true) : fail(); }

    uint64_t readUInt(int bytes)
    {
        if (static_cast<size_t>(bytes) > remaining()) return fail(), 0;
        uint64_t v = decode(m_data + m_pos, bytes, m_bigEndian);
        m_pos += bytes;
        return v;
    }
    uint16_t u16() { return static_cast<uint16_t>(readUInt(2)); }
    uint32_t u32() { return static_cast<uint32_t>(readUInt(4)); }
    uint64_t u64() { return readUInt(8); }

    // A NUL-terminated string; fails if no NUL is found before the end.
    std::string cstring()
    {
        const void* nul = std::memchr(m_data + m_pos, 0, remaining());
        if (!nul) return fail(), std::string();
        size_t len = static_cast<const uint8_t*>(nul) - (m_data + m_pos);
        std::string s(reinterpret_cast<const char*>(m_data + m_pos), len);
        m_pos += len + 1;
        return s;
    }

    // A view of the next n bytes, or an empty view (and failure) if they are not there.
    std::string_view bytes(size_t n)
    {
        if (n > remaining()) return fail(), std::string_view();
        std::string_view v(reinterpret_cast<const char*>(m_data + m_pos), n);
        m_pos += n;
        return v;
    }

    static uint64_t decode(const uint8_t* p, int bytes, bool bigEndian)
    {
        if (!bigEndian && std::endian::native == std::endian::little) {
            switch (bytes) {
            case 8: return load<uint64_t>(p);
            case 4: return load<uint32_t>(p);
            case 2: return load<uint16_t>(p);
            case 1: return p[0];
            default: break;
            }
        }
        uint64_t v = 0;
        if (bigEndian) {
            for (int i = 0; i < bytes; ++i) v = (v << 8) | p[i];
        } else {
            for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
        }
        return v;
    }

private:
    template <typename T>
    static uint64_t load(const uint8_t* p)
    {
        T v;
        std::memcpy(&v, p, sizeof v);
        return v;
    }
    bool fail()
    {
        m_failed = true;
        m_pos = m_size;
        return false;
    }

    const uint8_t* m_data = nullptr;
    size_t m_size = 0;
    size_t m_pos = 0;
    bool m_bigEndian = false;
    bool m_failed = false;
};

} // namespace ringside
