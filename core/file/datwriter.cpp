// SPDX-License-Identifier: GPL-2.0-or-later
#include "file/datwriter.h"

#include "file/fileoptions.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <unistd.h>

namespace ringside {

namespace {

struct FileCloser {
    void operator()(FILE* f) const
    {
        if (f) std::fclose(f);
    }
};
using File = std::unique_ptr<FILE, FileCloser>;

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

// Everything before the CPU data, ending with the flyrecord table's place.
std::string headerPart(const CaptureMetadata& m, const std::string& writer)
{
    std::string out("\x17\x08\x44tracing", 10);
    putString(out, "6");
    put<uint8_t>(out, m.bigEndian ? 1 : 0);
    put<uint8_t>(out, uint8_t(m.longSize));
    put<uint32_t>(out, m.pageSize);
    putString(out, "header_page");
    put<uint64_t>(out, m.headerPage.size());
    out += m.headerPage;
    putString(out, "header_event");
    put<uint64_t>(out, m.headerEvent.size());
    out += m.headerEvent;
    put<uint32_t>(out, uint32_t(m.ftraceFormats.size()));
    for (const std::string& f : m.ftraceFormats) {
        put<uint64_t>(out, f.size());
        out += f;
    }
    // Event systems in first-seen order, each with its formats.
    std::vector<std::string> systems;
    for (const auto& f : m.eventFormats)
        if (std::find(systems.begin(), systems.end(), f.system) == systems.end()) systems.push_back(f.system);
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
    put<uint32_t>(out, uint32_t(m.kallsyms.size()));
    out += m.kallsyms;
    put<uint32_t>(out, uint32_t(m.printkFormats.size()));
    out += m.printkFormats;
    put<uint64_t>(out, m.cmdlines.size());
    out += m.cmdlines;
    put<uint32_t>(out, uint32_t(m.cpus));
    out.append("options  \0", 10);
    if (!m.traceClock.empty()) putOption(out, OptTraceClock, m.traceClock + '\0');
    for (size_t cpu = 0; cpu < m.cpuStats.size(); ++cpu)
        putOption(out, OptCpuStat, "CPU: " + std::to_string(cpu) + "\n" + m.cpuStats[cpu] + '\0');
    if (!m.uname.empty()) putOption(out, OptUname, m.uname + '\0');
    std::string count;
    put<uint32_t>(count, uint32_t(m.cpus));
    putOption(out, OptCpuCount, count);
    putOption(out, OptVersion, writer + '\0');
    put<uint16_t>(out, OptDone);
    out.append("flyrecord\0", 10);
    return out;
}

bool copyFile(const std::string& from, FILE* out, uint64_t* copied, std::string* error)
{
    *copied = 0;
    File in(std::fopen(from.c_str(), "rb"));
    if (!in) return *error = from + ": " + std::strerror(errno), false;
    // In the kernel where it can (no copy through this process), else through a buffer.
    if (std::fflush(out) == 0) {
        const int inFd = ::fileno(in.get()), outFd = ::fileno(out);
        off_t outAt = ::lseek(outFd, 0, SEEK_CUR);
        for (;;) {
            const ssize_t n = ::copy_file_range(inFd, nullptr, outFd, &outAt, size_t(1) << 30, 0);
            if (n <= 0) break;
            *copied += uint64_t(n);
        }
        ::lseek(outFd, outAt, SEEK_SET);
        ::lseek(inFd, off_t(*copied), SEEK_SET);
    }
    std::vector<char> buffer(1 << 20);
    for (;;) {
        const size_t n = std::fread(buffer.data(), 1, buffer.size(), in.get());
        if (n == 0) break;
        if (std::fwrite(buffer.data(), 1, n, out) != n) return *error = std::strerror(errno), false;
        *copied += n;
    }
    if (std::ferror(in.get())) return *error = from + ": read error", false;
    return true;
}

} // namespace

bool writeDatV6(const std::string& path, const CaptureMetadata& metadata, const std::vector<std::string>& cpuDataFiles,
                const std::string& writer, std::string* error)
{
    if (cpuDataFiles.size() != size_t(metadata.cpus))
        return *error = "one data file per CPU is needed (" + std::to_string(metadata.cpus) + ")", false;
    return writeDatV6(
        path, metadata,
        [&](size_t cpu, FILE* out, std::string* why) {
            uint64_t copied = 0;
            return copyFile(cpuDataFiles[cpu], out, &copied, why);
        },
        writer, error);
}

bool writeDatV6(const std::string& path, const CaptureMetadata& metadata, const CpuDataWriter& writeCpu,
                const std::string& writer, std::string* error)
{
    const std::string part = path + ".part";
    File out(std::fopen(part.c_str(), "wb"));
    if (!out) return *error = part + ": " + std::strerror(errno), false;
    auto failed = [&](const std::string& why) {
        out.reset();
        std::remove(part.c_str());
        *error = path + ": " + why;
        return false;
    };
    const std::string header = headerPart(metadata, writer);
    // The flyrecord table (offset and size per CPU) follows, then the data, page-aligned.
    const uint64_t tableEnd = header.size() + 16 * uint64_t(metadata.cpus);
    const uint64_t dataStart = (tableEnd + metadata.pageSize - 1) / metadata.pageSize * metadata.pageSize;
    if (std::fwrite(header.data(), 1, header.size(), out.get()) != header.size()) return failed(std::strerror(errno));
    std::vector<uint64_t> sizes(size_t(metadata.cpus));
    const std::string table(16 * size_t(metadata.cpus) + (dataStart - tableEnd), '\0');
    if (std::fwrite(table.data(), 1, table.size(), out.get()) != table.size()) return failed(std::strerror(errno));
    for (size_t cpu = 0; cpu < sizes.size(); ++cpu) {
        std::string why;
        // Positions from the descriptor: the data may have been copied past the stream's buffer.
        if (std::fflush(out.get()) != 0) return failed(std::strerror(errno));
        const off_t before = ::lseek(::fileno(out.get()), 0, SEEK_CUR);
        if (!writeCpu(cpu, out.get(), &why)) return failed(why);
        if (std::fflush(out.get()) != 0) return failed(std::strerror(errno));
        sizes[cpu] = uint64_t(::lseek(::fileno(out.get()), 0, SEEK_CUR) - before);
    }
    // Now the table, where it was left open.
    std::string filled;
    uint64_t offset = dataStart;
    for (uint64_t size : sizes) {
        put<uint64_t>(filled, offset);
        put<uint64_t>(filled, size);
        offset += size;
    }
    if (std::fseek(out.get(), long(header.size()), SEEK_SET) != 0 ||
        std::fwrite(filled.data(), 1, filled.size(), out.get()) != filled.size() || std::fflush(out.get()) != 0)
        return failed(std::strerror(errno));
    if (std::fclose(out.release()) != 0) return failed(std::strerror(errno));
    if (std::rename(part.c_str(), path.c_str()) != 0) return failed(std::strerror(errno));
    return true;
}

} // namespace ringside
