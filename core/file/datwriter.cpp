// SPDX-License-Identifier: GPL-2.0-or-later
#include "file/datwriter.h"

#include "file/fileoptions.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace ringside {

namespace {

template <typename T>
void put(std::string& out, T value)
{
    out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

void putString(std::string& out, const std::string& s)
{
    out += s;
    out += '\0';
}

void putOption(std::string& out, uint16_t id, const std::string& data)
{
    put<uint16_t>(out, id);
    put<uint32_t>(out, uint32_t(data.size()));
    out += data;
}

std::string u64Bytes(uint64_t value)
{
    std::string out;
    put<uint64_t>(out, value);
    return out;
}

// The metadata parts, laid out alike in both versions: inline in v6, one section each in v7.
std::string headerInfo(const CaptureMetadata& m)
{
    std::string out;
    putString(out, "header_page");
    put<uint64_t>(out, m.headerPage.size());
    out += m.headerPage;
    putString(out, "header_event");
    put<uint64_t>(out, m.headerEvent.size());
    out += m.headerEvent;
    return out;
}

std::string ftraceEvents(const CaptureMetadata& m)
{
    std::string out;
    put<uint32_t>(out, uint32_t(m.ftraceFormats.size()));
    for (const std::string& f : m.ftraceFormats) {
        put<uint64_t>(out, f.size());
        out += f;
    }
    return out;
}

std::string eventFormats(const CaptureMetadata& m)
{
    // Event systems in first-seen order, each with its formats.
    std::vector<std::string> systems;
    for (const auto& f : m.eventFormats)
        if (std::find(systems.begin(), systems.end(), f.system) == systems.end()) systems.push_back(f.system);
    std::string out;
    put<uint32_t>(out, uint32_t(systems.size()));
    for (const std::string& system : systems) {
        putString(out, system);
        uint32_t count = 0;
        for (const auto& f : m.eventFormats) count += f.system == system;
        put<uint32_t>(out, count);
        for (const auto& f : m.eventFormats) {
            if (f.system != system) continue;
            put<uint64_t>(out, f.text.size());
            out += f.text;
        }
    }
    return out;
}

template <typename Size>
std::string sized(const std::string& data)
{
    std::string out;
    put<Size>(out, Size(data.size()));
    return out + data;
}

// The options both versions carry, each in its own way around them.
std::string commonOptions(const CaptureMetadata& m, const std::string& writer)
{
    std::string out;
    if (!m.traceClock.empty()) putOption(out, OptTraceClock, m.traceClock + '\0');
    for (size_t cpu = 0; cpu < m.cpuStats.size(); ++cpu)
        putOption(out, OptCpuStat, "CPU: " + std::to_string(cpu) + "\n" + m.cpuStats[cpu] + '\0');
    if (!m.uname.empty()) putOption(out, OptUname, m.uname + '\0');
    if (!m.traceId.empty()) putOption(out, OptTraceId, m.traceId);
    std::string count;
    put<uint32_t>(count, uint32_t(m.cpus));
    putOption(out, OptCpuCount, count);
    putOption(out, OptVersion, writer + '\0');
    return out;
}

std::string fileStart(const CaptureMetadata& m, const char* version)
{
    std::string out("\x17\x08\x44tracing", 10);
    putString(out, version);
    put<uint8_t>(out, m.bigEndian ? 1 : 0);
    put<uint8_t>(out, uint8_t(m.longSize));
    put<uint32_t>(out, m.pageSize);
    return out;
}

// A file written at its end, with earlier places filled in later.
class Output {
public:
    explicit Output(int fd) : m_fd(fd) {}

    uint64_t pos() const { return m_pos; }
    const std::string& error() const { return m_error; }

    bool append(const void* data, size_t size)
    {
        const char* p = static_cast<const char*>(data);
        while (size > 0) {
            const ssize_t n = ::write(m_fd, p, size);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) return fail(std::strerror(n < 0 ? errno : EIO));
            p += n;
            size -= size_t(n);
            m_pos += uint64_t(n);
        }
        return true;
    }
    bool append(const std::string& s) { return append(s.data(), s.size()); }

    bool padTo(uint64_t alignment)
    {
        const uint64_t target = (m_pos + alignment - 1) / alignment * alignment;
        return append(std::string(target - m_pos, '\0'));
    }

    bool patch(uint64_t at, const std::string& bytes)
    {
        if (::pwrite(m_fd, bytes.data(), bytes.size(), off_t(at)) != ssize_t(bytes.size()))
            return fail(std::strerror(errno));
        return true;
    }

    bool copyFrom(int fd, uint64_t offset, uint64_t size)
    {
        // In the kernel where it can (no copy through this process), else through a buffer.
        while (size > 0) {
            off_t in = off_t(offset), out = off_t(m_pos);
            const ssize_t n = ::copy_file_range(fd, &in, m_fd, &out, size_t(std::min<uint64_t>(size, 1u << 30)), 0);
            if (n <= 0) break;
            offset += uint64_t(n);
            size -= uint64_t(n);
            m_pos += uint64_t(n);
        }
        if (::lseek(m_fd, off_t(m_pos), SEEK_SET) < 0) return fail(std::strerror(errno));
        std::vector<char> buffer(1 << 20);
        while (size > 0) {
            const ssize_t n =
                ::pread(fd, buffer.data(), size_t(std::min<uint64_t>(size, buffer.size())), off_t(offset));
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) return fail(n < 0 ? std::strerror(errno) : "the data ended early");
            if (!append(buffer.data(), size_t(n))) return false;
            offset += uint64_t(n);
            size -= uint64_t(n);
        }
        return true;
    }

private:
    bool fail(const std::string& why)
    {
        if (m_error.empty()) m_error = why;
        return false;
    }

    int m_fd;
    uint64_t m_pos = 0;
    std::string m_error;
};

class RawSink : public CpuDataSink {
public:
    explicit RawSink(Output& out) : m_out(out) {}
    bool write(const void* data, size_t size, std::string* error) override
    {
        return m_out.append(data, size) || (*error = m_out.error(), false);
    }
    bool copyFrom(int fd, uint64_t offset, uint64_t size, std::string* error) override
    {
        return m_out.copyFrom(fd, offset, size) || (*error = m_out.error(), false);
    }

private:
    Output& m_out;
};

// v7 compressed trace data: a chunk count, then each chunk's compressed and page-aligned
// uncompressed sizes before its bytes. A CPU without pages writes nothing at all.
class ChunkSink : public CpuDataSink {
public:
    ChunkSink(Output& out, Codec codec, size_t chunkBytes) : m_out(out), m_codec(codec), m_chunkBytes(chunkBytes)
    {
        m_pending.reserve(chunkBytes);
    }

    bool write(const void* data, size_t size, std::string* error) override
    {
        const char* p = static_cast<const char*>(data);
        while (size > 0) {
            const size_t n = std::min(size, m_chunkBytes - m_pending.size());
            m_pending.append(p, n);
            p += n;
            size -= n;
            if (m_pending.size() == m_chunkBytes && !flush(error)) return false;
        }
        return true;
    }

    bool finish(std::string* error)
    {
        if (!m_pending.empty() && !flush(error)) return false;
        if (m_chunks == 0) return true;
        std::string count;
        put<uint32_t>(count, m_chunks);
        return m_out.patch(m_countAt, count) || (*error = m_out.error(), false);
    }

private:
    bool flush(std::string* error)
    {
        if (m_chunks == 0) {
            m_countAt = m_out.pos();
            if (!m_out.append(std::string(4, '\0'))) return *error = m_out.error(), false;
        }
        if (!compressBlock(m_codec, reinterpret_cast<const uint8_t*>(m_pending.data()), m_pending.size(), &m_compressed,
                           error))
            return false;
        std::string sizes;
        put<uint32_t>(sizes, uint32_t(m_compressed.size()));
        put<uint32_t>(sizes, uint32_t(m_pending.size()));
        if (!m_out.append(sizes) || !m_out.append(m_compressed)) return *error = m_out.error(), false;
        ++m_chunks;
        m_pending.clear();
        return true;
    }

    Output& m_out;
    Codec m_codec;
    size_t m_chunkBytes;
    std::string m_pending, m_compressed;
    uint32_t m_chunks = 0;
    uint64_t m_countAt = 0;
};

struct CpuPlace {
    uint64_t offset = 0, size = 0;
};

// Each CPU's data at a page-aligned offset, as both versions place it.
bool writeCpus(Output& out, const CaptureMetadata& m, const CpuDataWriter& writeCpu, Codec codec,
               std::vector<CpuPlace>* places, std::string* error)
{
    places->assign(size_t(m.cpus), {});
    for (size_t cpu = 0; cpu < places->size(); ++cpu) {
        if (!out.padTo(m.pageSize)) return *error = out.error(), false;
        const uint64_t start = out.pos();
        if (codec == Codec::None) {
            RawSink sink(out);
            if (!writeCpu(cpu, sink, error)) return false;
        } else {
            ChunkSink sink(out, codec, 10 * size_t(m.pageSize));
            if (!writeCpu(cpu, sink, error) || !sink.finish(error)) return false;
        }
        (*places)[cpu] = {start, out.pos() - start};
    }
    return true;
}

bool writeV6(Output& out, const CaptureMetadata& m, const CpuDataWriter& writeCpu, const std::string& writer,
             std::string* error)
{
    std::string head = fileStart(m, "6");
    head += headerInfo(m);
    head += ftraceEvents(m);
    head += eventFormats(m);
    head += sized<uint32_t>(m.kallsyms);
    head += sized<uint32_t>(m.printkFormats);
    head += sized<uint64_t>(m.cmdlines);
    put<uint32_t>(head, uint32_t(m.cpus));
    head.append("options  \0", 10);
    head += commonOptions(m, writer);
    put<uint16_t>(head, OptDone);
    head.append("flyrecord\0", 10);
    // The flyrecord table (offset and size per CPU) is filled in once the data is written.
    const uint64_t tableAt = head.size();
    head += std::string(16 * size_t(m.cpus), '\0');
    std::vector<CpuPlace> places;
    if (!out.append(head) || !writeCpus(out, m, writeCpu, Codec::None, &places, error))
        return error->empty() ? (*error = out.error(), false) : false;
    std::string table;
    for (const CpuPlace& place : places) {
        put<uint64_t>(table, place.offset);
        put<uint64_t>(table, place.size);
    }
    return out.patch(tableAt, table) || (*error = out.error(), false);
}

// v7: the metadata sections, the trace data's section, then the one options section that
// locates them all (the header points at it once it is written), and the strings section
// holding the sections' descriptions.
class V7Writer {
public:
    V7Writer(Output& out, const CaptureMetadata& m, Codec codec) : m_out(out), m_meta(m), m_codec(codec) {}

    bool write(const CpuDataWriter& writeCpu, const std::string& writer, std::string* error)
    {
        std::string head = fileStart(m_meta, "7");
        putString(head, codecName(m_codec));
        putString(head, codecVersion(m_codec));
        const uint64_t optionsAt = head.size();
        put<uint64_t>(head, 0);
        if (!m_out.append(head)) return *error = m_out.error(), false;

        std::string options;
        const std::pair<uint16_t, const char*> parts[] = {
            {OptHeaderInfo, "headers"},
            {OptFtraceEvents, "ftrace events format"},
            {OptEventFormats, "events format"},
            {OptKallsyms, "kallsyms"},
            {OptPrintk, "printk"},
            {OptCmdlines, "command lines"},
        };
        for (const auto& [id, description] : parts) {
            uint64_t at = 0;
            if (!section(id, description, metadataPart(id), m_codec != Codec::None, &at, error)) return false;
            putOption(options, id, u64Bytes(at));
        }
        options += commonOptions(m_meta, writer);

        uint64_t bufferAt = 0;
        std::vector<CpuPlace> places;
        if (!bufferSection(writeCpu, &bufferAt, &places, error)) return false;
        std::string buffer = u64Bytes(bufferAt);
        putString(buffer, "");
        putString(buffer, m_meta.clockName().empty() ? "local" : m_meta.clockName());
        put<uint32_t>(buffer, m_meta.pageSize);
        put<uint32_t>(buffer, uint32_t(places.size()));
        for (size_t cpu = 0; cpu < places.size(); ++cpu) {
            put<uint32_t>(buffer, uint32_t(cpu));
            put<uint64_t>(buffer, places[cpu].offset);
            put<uint64_t>(buffer, places[cpu].size);
        }
        putOption(options, OptBuffer, buffer);
        putOption(options, OptDone, u64Bytes(0));

        uint64_t at = 0;
        if (!section(OptDone, "options", options, false, &at, error)) return false;
        if (!m_out.patch(optionsAt, u64Bytes(at))) return *error = m_out.error(), false;
        const std::string strings = m_strings; // its own description is its last string
        return section(OptStrings, "strings", strings + "strings" + '\0', m_codec != Codec::None, &at, error);
    }

private:
    std::string metadataPart(uint16_t id) const
    {
        switch (id) {
        case OptHeaderInfo: return headerInfo(m_meta);
        case OptFtraceEvents: return ftraceEvents(m_meta);
        case OptEventFormats: return eventFormats(m_meta);
        case OptKallsyms: return sized<uint32_t>(m_meta.kallsyms);
        case OptPrintk: return sized<uint32_t>(m_meta.printkFormats);
        case OptCmdlines: return sized<uint64_t>(m_meta.cmdlines);
        default: return {};
        }
    }

    uint32_t stringId(const std::string& s)
    {
        const uint32_t id = uint32_t(m_strings.size());
        putString(m_strings, s);
        return id;
    }

    std::string sectionHeader(uint16_t id, bool compressed, const std::string& description, uint64_t size)
    {
        std::string header;
        put<uint16_t>(header, id);
        put<uint16_t>(header, compressed ? 1 : 0);
        put<uint32_t>(header, stringId(description));
        put<uint64_t>(header, size);
        return header;
    }

    bool section(uint16_t id, const std::string& description, const std::string& payload, bool compress, uint64_t* at,
                 std::string* error)
    {
        *at = m_out.pos();
        std::string body;
        if (compress) {
            std::string compressed;
            if (!compressBlock(m_codec, reinterpret_cast<const uint8_t*>(payload.data()), payload.size(), &compressed,
                               error))
                return false;
            put<uint32_t>(body, uint32_t(compressed.size()));
            put<uint32_t>(body, uint32_t(payload.size()));
            body += compressed;
        }
        const std::string& data = compress ? body : payload;
        if (!m_out.append(sectionHeader(id, compress, description, data.size())) || !m_out.append(data))
            return *error = m_out.error(), false;
        return true;
    }

    bool bufferSection(const CpuDataWriter& writeCpu, uint64_t* at, std::vector<CpuPlace>* places, std::string* error)
    {
        *at = m_out.pos();
        const bool compressed = m_codec != Codec::None;
        if (!m_out.append(sectionHeader(OptBuffer, compressed, "buffer flyrecord", 0)))
            return *error = m_out.error(), false;
        const uint64_t dataStart = m_out.pos();
        if (!writeCpus(m_out, m_meta, writeCpu, m_codec, places, error))
            return error->empty() ? (*error = m_out.error(), false) : false;
        // The section's size, known now: from its header's end to the last CPU's data.
        return m_out.patch(*at + 8, u64Bytes(m_out.pos() - dataStart)) || (*error = m_out.error(), false);
    }

    Output& m_out;
    const CaptureMetadata& m_meta;
    Codec m_codec;
    std::string m_strings;
};

} // namespace

std::string DatFormat::name() const
{
    if (version == 6) return "v6";
    return "v7, " + std::string(codec == Codec::None ? "uncompressed" : codecName(codec));
}

bool CpuDataSink::copyFrom(int fd, uint64_t offset, uint64_t size, std::string* error)
{
    std::vector<char> buffer(1 << 20);
    while (size > 0) {
        const ssize_t n = ::pread(fd, buffer.data(), size_t(std::min<uint64_t>(size, buffer.size())), off_t(offset));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return *error = n < 0 ? std::strerror(errno) : "the data ended early", false;
        if (!write(buffer.data(), size_t(n), error)) return false;
        offset += uint64_t(n);
        size -= uint64_t(n);
    }
    return true;
}

bool writeDat(const std::string& path, const CaptureMetadata& metadata, const CpuDataWriter& writeCpu,
              const std::string& writer, DatFormat format, std::string* error)
{
    if (format.version != 6 && format.version != 7)
        return *error = path + ": file version " + std::to_string(format.version) + " is not written (6 or 7)", false;
    if (format.version == 6 && format.codec != Codec::None)
        return *error = path + ": a version 6 file is not compressed", false;
    if (format.codec == Codec::Zlib) return *error = path + ": zlib compression is not written (zstd or none)", false;
    const std::string part = path + ".part";
    const int fd = ::open(part.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return *error = part + ": " + std::strerror(errno), false;
    Output out(fd);
    std::string why;
    bool written = format.version == 6 ? writeV6(out, metadata, writeCpu, writer, &why)
                                       : V7Writer(out, metadata, format.codec).write(writeCpu, writer, &why);
    if (::close(fd) != 0 && written) written = false, why = std::strerror(errno);
    if (written && std::rename(part.c_str(), path.c_str()) != 0) written = false, why = std::strerror(errno);
    if (!written) {
        std::remove(part.c_str());
        *error = path + ": " + why;
    }
    return written;
}

bool writeDat(const std::string& path, const CaptureMetadata& metadata, const std::vector<std::string>& cpuDataFiles,
              const std::string& writer, DatFormat format, std::string* error)
{
    if (cpuDataFiles.size() != size_t(metadata.cpus))
        return *error = "one data file per CPU is needed (" + std::to_string(metadata.cpus) + ")", false;
    return writeDat(
        path, metadata,
        [&](size_t cpu, CpuDataSink& out, std::string* why) {
            const int fd = ::open(cpuDataFiles[cpu].c_str(), O_RDONLY | O_CLOEXEC);
            if (fd < 0) return *why = cpuDataFiles[cpu] + ": " + std::strerror(errno), false;
            const off_t size = ::lseek(fd, 0, SEEK_END);
            const bool copied = size >= 0 && out.copyFrom(fd, 0, uint64_t(size), why);
            ::close(fd);
            if (!copied && why->empty()) *why = cpuDataFiles[cpu] + ": " + std::strerror(errno);
            return copied;
        },
        writer, format, error);
}

} // namespace ringside
