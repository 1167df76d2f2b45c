// SPDX-License-Identifier: GPL-2.0-or-later
#include "file/datconvert.h"

#include "file/fileoptions.h"
#include "util/bytereader.h"
#include "util/mappedfile.h"

#include <bit>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace ringside {

namespace {

// Reads the v6 layout top to bottom (man 5 trace-cmd.dat.v6).
class V6Reader {
public:
    V6Reader(const MappedFile& file, DatV6Parts& parts)
        : m_r(file.data(), file.size(), false), m_path(file.path()), m_parts(parts), m_meta(parts.metadata)
    {}

    const std::string& error() const { return m_error; }

    bool read()
    {
        if (m_r.bytes(10) != std::string_view("\x17\x08\x44tracing", 10)) return fail("not a trace-cmd recording");
        if (m_r.cstring() != "6") return fail("not a version 6 recording");
        m_meta.bigEndian = uint8_t(m_r.readUInt(1)) != 0;
        if (m_meta.bigEndian != (std::endian::native == std::endian::big))
            return fail("written with the other byte order, which is not rewritten here");
        m_meta.longSize = uint8_t(m_r.readUInt(1));
        m_meta.pageSize = m_r.u32();
        if (m_r.cstring() != "header_page") return fail("no page header");
        m_meta.headerPage = sized(m_r.u64());
        if (m_r.cstring() != "header_event") return fail("no event header");
        m_meta.headerEvent = sized(m_r.u64());
        for (uint32_t n = m_r.u32(); n > 0 && !m_r.failed(); --n) m_meta.ftraceFormats.push_back(sized(m_r.u64()));
        for (uint32_t systems = m_r.u32(); systems > 0 && !m_r.failed(); --systems) {
            const std::string system = m_r.cstring();
            for (uint32_t n = m_r.u32(); n > 0 && !m_r.failed(); --n)
                m_meta.eventFormats.push_back({system, sized(m_r.u64())});
        }
        m_meta.kallsyms = sized(m_r.u32());
        m_meta.printkFormats = sized(m_r.u32());
        m_meta.cmdlines = sized(m_r.u64());
        m_meta.cpus = int(m_r.u32());
        if (m_r.failed()) return fail("the metadata is truncated");
        if (m_meta.cpus < 0 || m_meta.cpus > 4096) return fail("an implausible CPU count");
        for (;;) {
            const std::string_view section = m_r.bytes(10);
            if (section == std::string_view("options  \0", 10)) {
                if (!readOptions()) return false;
            } else if (section == std::string_view("flyrecord\0", 10)) {
                return readCpuTable();
            } else {
                return fail(m_r.failed() ? "the file ends before its trace data" : "no flyrecord data");
            }
        }
    }

private:
    std::string sized(uint64_t size) { return std::string(m_r.bytes(size_t(std::min<uint64_t>(size, SIZE_MAX)))); }

    bool readOptions()
    {
        for (;;) {
            const uint16_t id = m_r.u16();
            if (m_r.failed()) return fail("the options are truncated");
            if (id == OptDone) return true;
            const std::string_view data = m_r.bytes(m_r.u32());
            if (m_r.failed()) return fail("option " + std::to_string(id) + " is truncated");
            const std::string text(data.substr(0, data.find('\0')));
            switch (id) {
            case OptTraceClock: m_meta.traceClock = text; break;
            case OptUname: m_meta.uname = text; break;
            case OptTraceId: m_meta.traceId = std::string(data); break;
            case OptCpuStat: // "CPU: N\n" and the counters, as writeDat writes them back
                m_meta.cpuStats.push_back(text.substr(text.find('\n') == std::string::npos ? 0 : text.find('\n') + 1));
                break;
            case OptCpuCount:
            case OptVersion: break; // written anew
            default: return fail("carries option " + std::to_string(id) + ", which is not rewritten");
            }
        }
    }

    bool readCpuTable()
    {
        for (int cpu = 0; cpu < m_meta.cpus; ++cpu) {
            DatV6Parts::Range range;
            range.offset = m_r.u64();
            range.size = m_r.u64();
            if (m_r.failed()) return fail("the CPU table is truncated");
            if (range.offset > m_r.size() || range.size > m_r.size() - range.offset)
                return fail("CPU " + std::to_string(cpu) + "'s data is past the end of the file");
            m_parts.cpuData.push_back(range);
        }
        if (m_meta.cpuStats.size() != size_t(m_meta.cpus)) m_meta.cpuStats.clear(); // all or none, by CPU
        return true;
    }

    bool fail(const std::string& why)
    {
        m_error = m_path + ": " + why;
        return false;
    }

    ByteReader m_r;
    std::string m_path;
    DatV6Parts& m_parts;
    CaptureMetadata& m_meta;
    std::string m_error;
};

} // namespace

Result<DatV6Parts> readDatV6Parts(const std::string& path)
{
    auto file = MappedFile::open(path);
    if (!file) return file.error();
    DatV6Parts parts;
    V6Reader reader(**file, parts);
    if (!reader.read()) return Error{reader.error()};
    return parts;
}

bool convertDatV6(const std::string& from, const std::string& to, DatFormat format, const std::string& writer,
                  std::string* error, const WriteProgress& progress)
{
    auto parts = readDatV6Parts(from);
    if (!parts) return *error = parts.error().message, false;
    const int fd = ::open(from.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return *error = from + ": " + std::strerror(errno), false;
    uint64_t total = 0, done = 0;
    for (const auto& range : parts->cpuData) total += range.size;
    // In slices, for the word to stop and the progress (whole pages: a slice is 16 MiB).
    constexpr uint64_t kSlice = 16u << 20;
    const bool written = writeDat(
        to, parts->metadata,
        [&](size_t cpu, CpuDataSink& out, std::string* why) {
            const auto [offset, size] = parts->cpuData[cpu];
            for (uint64_t at = 0; at < size; at += kSlice) {
                if (progress.cancelled()) return *why = "cancelled", false;
                const uint64_t n = std::min(kSlice, size - at);
                if (!out.copyFrom(fd, offset + at, n, why)) return false;
                progress.reached(done += n, total);
            }
            return true;
        },
        writer, format, error);
    ::close(fd);
    return written;
}

} // namespace ringside
