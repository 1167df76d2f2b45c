// SPDX-License-Identifier: GPL-2.0-or-later
#include "file/datfileparser.h"

#include "capture/capturemetadata.h"
#include "file/cutdata.h"
#include "file/fileoptions.h"
#include "file/kallsyms.h"
#include "file/metadatacheck.h"
#include "file/metadatastep.h"
#include "util/bytereader.h"

#include <traceevent/event-parse.h>

#include <cstring>
#include <deque>
#include <map>
#include <set>
#include <utility>

namespace ringside {

namespace {
constexpr uint8_t kMagic[] = {0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g'};
constexpr size_t kMostCpusFound = 4096; // when the file does not say how many CPUs it has

} // namespace

// Reads the file top to bottom. v6 keeps its metadata inline, v7 in sections located by
// options; both feed the same payload decoders below.
class DatFileParser {
public:
    // With `metadataOnly`, stops before the CPU data; with `types`, parses only the formats of
    // those event ids (and the ftrace system's). For DatFile::newTep.
    // `knownUnsafe`: the steps an earlier open of the same file found unsafe; without it, the
    // steps are checked in a child process.
    DatFileParser(DatFile& out, const DatFile::OpenOptions& options, bool metadataOnly = false,
                  const std::vector<bool>* types = nullptr, const std::vector<size_t>* knownUnsafe = nullptr)
        : m_out(out), m_options(options), m_info(out.m_info), m_metadataOnly(metadataOnly), m_types(types),
          m_knownUnsafe(knownUnsafe)
    {}

    bool parse()
    {
        const MappedFile& file = *m_out.m_file;
        // An empty file is what a recording left when its writer never got going: say so,
        // as a cut header is not a foreign file.
        if (file.size() == 0) return fail("empty file (0 bytes): nothing was recorded into it");
        if (file.size() < sizeof(kMagic) && std::memcmp(file.data(), kMagic, file.size()) == 0)
            return fail("truncated file header (" + std::to_string(file.size()) + " bytes)");
        if (file.size() < sizeof(kMagic) || std::memcmp(file.data(), kMagic, sizeof(kMagic)) != 0)
            return fail("not a trace-cmd data file (bad magic)");
        m_reader = ByteReader(file.data(), file.size(), false);
        m_reader.skip(sizeof(kMagic));
        std::string version = m_reader.cstring();
        if (m_reader.failed()) return fail("truncated file header");
        m_info.version = std::atoi(version.c_str());
        if (m_info.version != 6 && m_info.version != 7)
            return fail("unsupported file version '" + version + "' (Ringside reads 6 and 7)");
        uint8_t endian = static_cast<uint8_t>(m_reader.readUInt(1));
        uint8_t longSize = static_cast<uint8_t>(m_reader.readUInt(1));
        if (m_reader.failed()) return fail("truncated file header");
        if (endian > 1) return fail("invalid endianness flag " + std::to_string(endian));
        if (longSize != 4 && longSize != 8) return fail("invalid long size " + std::to_string(longSize));
        m_info.bigEndian = endian == 1;
        m_info.userLongSize = longSize;
        m_reader = ByteReader(file.data(), file.size(), m_info.bigEndian);
        m_reader.seek(sizeof(kMagic) + version.size() + 3);
        m_info.pageSize = m_reader.u32();
        if (m_reader.failed()) return fail("truncated file header");
        if (m_info.pageSize < 1024 || m_info.pageSize > (1u << 24) || (m_info.pageSize & (m_info.pageSize - 1)))
            return fail("invalid page size " + std::to_string(m_info.pageSize));

        setupTep();
        bool ok = m_info.version >= 7 ? parseV7() : parseV6();
        if (!ok) return false;
        finishBuffers();
        return true;
    }

    std::string error() const { return m_error; }

private:
    bool fail(const std::string& what)
    {
        if (m_error.empty()) m_error = m_out.m_file->path() + ": " + what;
        return false;
    }

    void setupTep()
    {
        tep_handle* tep = tep_alloc();
        m_out.m_tep = tep;
        if (m_options.beforePlugins) m_options.beforePlugins(tep);
        if (m_options.loadPlugins) m_out.m_plugins = tep_load_plugins(tep);
        tep_set_file_bigendian(tep, m_info.bigEndian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
        tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
        tep_set_long_size(tep, m_info.userLongSize);
        tep_set_page_size(tep, static_cast<int>(m_info.pageSize));
    }

    // ---- v7: sections ------------------------------------------------------------------

    bool parseV7()
    {
        std::string name = m_reader.cstring();
        m_info.codecVersion = m_reader.cstring();
        uint64_t optionsOffset = m_reader.u64();
        if (m_reader.failed()) return fail("truncated file header");
        if (!codecFromName(name, &m_info.codec)) return fail("unsupported compression '" + name + "'");

        std::set<uint64_t> seen;
        uint64_t optionsEnd = 0; // where the last options read end
        while (optionsOffset != 0) {
            if (!seen.insert(optionsOffset).second) return fail("options sections form a loop");
            if (!wholeSectionAt(optionsOffset)) {
                const bool begun = optionsOffset + kSectionHeaderSize <= m_out.m_file->size();
                m_cut = "the file ends at " + std::to_string(m_out.m_file->size()) + " bytes, " +
                        (begun ? "inside" : "before") + " its options at offset " + std::to_string(optionsOffset) +
                        " (cut, or its writer stopped)";
                if (seen.size() == 1) return fail(m_cut + ": it holds no events");
                m_cutFrom = optionsEnd;
                break;
            }
            std::string payload;
            uint16_t id = 0;
            if (!readSection(optionsOffset, &id, &payload, &optionsEnd)) return false;
            if (id != OptDone) return fail("expected an options section at offset " + std::to_string(optionsOffset));
            if (!parseOptions(payload, true, &optionsOffset)) return false;
        }
        // Metadata sections in the order trace-cmd reads them.
        for (uint16_t id : {OptHeaderInfo, OptFtraceEvents, OptEventFormats, OptKallsyms, OptPrintk, OptCmdlines}) {
            auto it = m_sections.find(id);
            if (it == m_sections.end()) {
                if (id == OptHeaderInfo) return fail("no header info section");
                continue;
            }
            std::string& payload = m_payloads.emplace_back(); // steps point into it
            uint16_t got = 0;
            if (!readSection(it->second, &got, &payload)) return false;
            ByteReader r(reinterpret_cast<const uint8_t*>(payload.data()), payload.size(), m_info.bigEndian);
            if (!parseMetadata(id, r)) return false;
        }
        if (!applyMetadata()) return false;
        if (m_metadataOnly) return true;
        if (m_cut.empty()) m_cutFrom = optionsEnd; // a writer that stopped left data its options do not name
        if (!findUnlistedBuffer()) return false;
        for (auto& buffer : m_out.m_buffers)
            if (!buffer.latency && !readV7BufferData(buffer)) return false;
        return true;
    }

    bool wholeSectionAt(uint64_t offset) const
    {
        ByteReader r = m_reader;
        if (!r.seek(offset) || r.remaining() < kSectionHeaderSize) return false;
        r.skip(8);
        return r.u64() <= r.remaining();
    }

    // Trace data no option read describes, after the last options read: trace-cmd writes each
    // buffer's data, then the options that say where it is, and links those from the options
    // before only once they are written. So a file cut there, or whose writer stopped, has data
    // no option names: it is found by walking it. False (failed) if that leaves no event.
    bool findUnlistedBuffer()
    {
        const std::string name = nextBufferName();
        const size_t maxCpus = m_info.cpuCount > 0 ? size_t(m_info.cpuCount) : kMostCpusFound;
        std::optional<FoundCpuData> found = findCpuData(m_reader, m_cutFrom, m_info, maxCpus);
        for (const auto& [known, offset] : m_bufferOffsets)
            if (found && found->sectionOffset == offset) found.reset(); // described by an option read
        const std::string why = !m_cut.empty()
                                    ? m_cut + ": the data offsets of " +
                                          (name.empty() ? "its CPUs" : "buffer '" + name + "'") + " were in them"
                                    : "the file's options end at offset " + std::to_string(m_cutFrom) +
                                          " without the data offsets of " +
                                          (name.empty() ? "its CPUs" : "buffer '" + name + "'") +
                                          " (its writer stopped before writing them)";
        if (!found || found->cpus.empty()) {
            if (!found && m_cut.empty()) return true; // a whole file
            const std::string none =
                !found ? "no trace data follows the last options read (offset " + std::to_string(m_cutFrom) + ")"
                       : "the trace data at offset " + std::to_string(found->sectionOffset) +
                             " has nothing whole before the cut (" + found->lastCut + ")";
            if (m_bufferOffsets.empty()) return fail(why + ", and " + none);
            m_out.m_diagnostics.warn("truncated", why + "; the events of the buffers named are read");
            return true;
        }
        BufferInfo buffer;
        buffer.name = name;
        buffer.clock = m_info.traceClock;
        buffer.pageSize = m_info.pageSize;
        bool guessed = false;
        const auto stats = m_stats.find(name);
        const std::vector<int> ids =
            cpuIdsOfFound(found->cpus.size(), !found->lastCut.empty(), m_info.cpuCount,
                          stats == m_stats.end() ? std::vector<CpuStats>() : stats->second, &guessed);
        if (!found->lastCut.empty()) found->cpus.back().cut = true;
        for (size_t i = 0; i < ids.size(); ++i) {
            found->cpus[i].cpu = ids[i];
            buffer.cpus.push_back(found->cpus[i]);
        }
        std::string what = why + ", so the trace data at offset " + std::to_string(found->sectionOffset) +
                           " was walked: " + std::to_string(ids.size()) +
                           (m_info.cpuCount > 0 ? " of " + std::to_string(m_info.cpuCount) : std::string()) +
                           " CPUs' data found" + (found->lastCut.empty() ? "" : " before the file ends");
        if (guessed)
            what += "; taken as CPUs 0 to " + std::to_string(ids.size() - 1) +
                    " in file order (which CPUs recorded nothing is not known)";
        else if (m_info.cpuCount > 0 && ids.size() < size_t(m_info.cpuCount) && found->lastCut.empty())
            what += "; the CPU statistics name the CPUs with events: the data of those after CPU " +
                    std::to_string(ids.back()) + " is not in the file";
        m_out.m_diagnostics.warn("truncated", what);
        if (!found->lastCut.empty())
            m_out.m_diagnostics.warn("truncated",
                                     bufferLabel(buffer) + "CPU " + std::to_string(ids.back()) + ": " + found->lastCut);
        if (name.empty())
            m_out.m_buffers.insert(m_out.m_buffers.begin(), std::move(buffer));
        else
            m_out.m_buffers.push_back(std::move(buffer));
        return true;
    }

    // The first buffer the CPU statistics name (in the order written, as the data is) that no
    // BUFFER option read has described.
    std::string nextBufferName() const
    {
        for (const std::string& name : m_statsOrder)
            if (std::none_of(m_out.m_buffers.begin(), m_out.m_buffers.end(),
                             [&](const BufferInfo& b) { return b.name == name; }))
                return name;
        return m_out.m_buffers.empty() ? std::string() : "instance " + std::to_string(m_out.m_buffers.size());
    }

    bool readSection(uint64_t offset, uint16_t* id, std::string* payload, uint64_t* end = nullptr)
    {
        ByteReader r = m_reader;
        if (!r.seek(offset) || r.remaining() < kSectionHeaderSize)
            return fail("section at offset " + std::to_string(offset) + " is past the end of the file");
        *id = r.u16();
        uint16_t flags = r.u16();
        r.u32(); // description string id
        uint64_t size = r.u64();
        if (size > r.remaining()) return fail("section at offset " + std::to_string(offset) + " is truncated");
        if (end) *end = r.pos() + size;
        if (!(flags & 1)) {
            payload->assign(reinterpret_cast<const char*>(r.here()), size);
            return true;
        }
        uint32_t zsize = r.u32();
        uint32_t rawSize = r.u32();
        if (r.failed() || zsize > r.remaining() || rawSize > (1u << 30))
            return fail("compressed section at offset " + std::to_string(offset) + " is truncated");
        payload->resize(rawSize);
        std::string reason;
        if (!decompressBlock(m_info.codec, r.here(), zsize, reinterpret_cast<uint8_t*>(payload->data()), rawSize,
                             &reason))
            return fail("cannot decompress section at offset " + std::to_string(offset) + ": " + reason);
        return true;
    }

    bool readV7BufferData(BufferInfo& buffer)
    {
        auto it = m_bufferOffsets.find(buffer.name);
        if (it == m_bufferOffsets.end()) return true;
        ByteReader r = m_reader;
        bool compressed = false;
        if (r.seek(it->second) && r.remaining() >= kSectionHeaderSize) {
            r.u16();
            compressed = (r.u16() & 1) != 0;
        } else {
            m_out.m_diagnostics.warn("truncated",
                                     "buffer '" + buffer.name + "': data section is past the end of the file");
            buffer.cpus.clear();
            return true;
        }
        for (auto& cpu : buffer.cpus) {
            cpu.compressed = compressed && m_info.codec != Codec::None && cpu.fileSize > 0;
            if (cpu.compressed)
                readChunks(buffer, cpu);
            else
                clampToFile(buffer, cpu);
        }
        return true;
    }

    void readChunks(const BufferInfo& buffer, CpuDataInfo& cpu)
    {
        ByteReader r = m_reader;
        std::string where = bufferLabel(buffer) + "CPU " + std::to_string(cpu.cpu);
        if (!r.seek(cpu.fileOffset)) {
            m_out.m_diagnostics.warn("truncated", where + ": data is past the end of the file");
            return;
        }
        uint32_t count = r.u32();
        uint64_t stream = 0;
        for (uint32_t i = 0; i < count && !r.failed(); ++i) {
            CompressedChunk chunk;
            chunk.compressedSize = r.u32();
            chunk.size = r.u32();
            chunk.fileOffset = r.pos();
            chunk.streamOffset = stream;
            if (r.failed() || !r.skip(chunk.compressedSize) || chunk.size > (1u << 28)) {
                cpu.cut = true;
                m_out.m_diagnostics.warn("truncated", where + ": compressed data ends after " + std::to_string(i) +
                                                          " of " + std::to_string(count) + " chunks");
                break;
            }
            stream += chunk.size;
            cpu.chunks.push_back(chunk);
        }
        cpu.streamSize = stream;
    }

    void clampToFile(const BufferInfo& buffer, CpuDataInfo& cpu)
    {
        uint64_t fileSize = m_out.m_file->size();
        const std::string where = bufferLabel(buffer) + "CPU " + std::to_string(cpu.cpu);
        if (cpu.fileOffset > fileSize) {
            m_out.m_diagnostics.warn("truncated", where + ": data starts at offset " + std::to_string(cpu.fileOffset) +
                                                      ", past the end of the file (" + std::to_string(fileSize) +
                                                      " bytes)");
            cpu.fileSize = 0;
            cpu.cut = true;
        } else if (cpu.fileSize > fileSize - cpu.fileOffset) {
            const uint64_t have = fileSize - cpu.fileOffset;
            m_out.m_diagnostics.warn("truncated", where + ": data needs " + std::to_string(cpu.fileSize) +
                                                      " bytes, the file has " + std::to_string(have));
            cpu.fileSize = have;
            cpu.cut = true;
        }
        cpu.streamSize = cpu.fileSize;
    }

    static std::string bufferLabel(const BufferInfo& buffer)
    {
        return buffer.name.empty() ? std::string() : "buffer '" + buffer.name + "' ";
    }

    // ---- v6: inline metadata -------------------------------------------------------------

    bool parseV6()
    {
        for (uint16_t id : {OptHeaderInfo, OptFtraceEvents, OptEventFormats, OptKallsyms, OptPrintk, OptCmdlines})
            if (!parseMetadata(id, m_reader)) return false;
        if (!applyMetadata()) return false;
        uint32_t cpus = m_reader.u32();
        if (m_reader.failed()) return fail("truncated after the saved command lines");
        if (cpus > 65536) return fail("implausible CPU count " + std::to_string(cpus));
        m_info.cpuCount = static_cast<int>(cpus);
        tep_set_cpus(m_out.m_tep, m_info.cpuCount);

        BufferInfo top;
        top.pageSize = m_info.pageSize;
        std::string kind;
        if (!readV6DataKind(m_reader, &kind)) return false;
        if (kind == "latency") {
            top.latency = true;
            m_out.m_buffers.insert(m_out.m_buffers.begin(), top);
            return true;
        }
        if (!readV6CpuTable(m_reader, m_info.cpuCount, top)) return false;
        if (m_hasTraceClockOption) {
            // v6 keeps the trace_clock file after the CPU table.
            ByteReader r = m_reader;
            uint64_t size = r.u64();
            std::string_view text = r.bytes(size);
            if (!r.failed()) {
                std::string clock = selectedClock(text);
                if (!clock.empty()) applyClock(clock);
            }
        }
        m_out.m_buffers.insert(m_out.m_buffers.begin(), std::move(top));
        for (size_t i = 1; i < m_out.m_buffers.size(); ++i) {
            BufferInfo& buffer = m_out.m_buffers[i];
            ByteReader r = m_reader;
            std::string instanceKind;
            if (!r.seek(m_bufferOffsets[buffer.name]) || !readV6DataKind(r, &instanceKind) ||
                instanceKind != "flyrecord" || !readV6CpuTable(r, m_info.cpuCount, buffer)) {
                m_out.m_diagnostics.warn("bad-buffer",
                                         "buffer '" + buffer.name + "': its CPU table cannot be read; buffer skipped");
                m_error.clear();
                buffer.cpus.clear();
            }
        }
        return true;
    }

    // Reads "options  \0" (and the options after it) up to "flyrecord\0" or "latency  \0".
    bool readV6DataKind(ByteReader& r, std::string* kind)
    {
        for (int round = 0; round < 2; ++round) {
            std::string_view tag = r.bytes(10);
            if (r.failed()) return fail("truncated before the trace data");
            if (tag == std::string_view("options  \0", 10)) {
                size_t start = r.pos();
                std::string_view rest(reinterpret_cast<const char*>(r.here()), r.remaining());
                uint64_t unused = 0;
                size_t consumed = 0;
                if (!parseOptions(rest, false, &unused, &consumed)) return false;
                r.seek(start + consumed);
                continue;
            }
            if (tag == std::string_view("flyrecord\0", 10)) return *kind = "flyrecord", true;
            if (tag == std::string_view("latency  \0", 10)) return *kind = "latency", true;
            return fail("unknown trace data type");
        }
        return fail("unknown trace data type");
    }

    bool readV6CpuTable(ByteReader& r, int cpus, BufferInfo& buffer)
    {
        for (int cpu = 0; cpu < cpus; ++cpu) {
            CpuDataInfo data;
            data.cpu = cpu;
            data.fileOffset = r.u64();
            data.fileSize = r.u64();
            if (r.failed()) return fail("truncated CPU table");
            clampToFile(buffer, data);
            buffer.cpus.push_back(data);
        }
        return true;
    }

    // ---- options -------------------------------------------------------------------------

    bool parseOptions(std::string_view payload, bool sectioned, uint64_t* nextOptions, size_t* consumed = nullptr)
    {
        ByteReader r(reinterpret_cast<const uint8_t*>(payload.data()), payload.size(), m_info.bigEndian);
        *nextOptions = 0;
        while (true) {
            uint16_t id = r.u16();
            if (r.failed()) return sectioned ? fail("options section is truncated") : fail("options are truncated");
            if (!sectioned && id == OptDone) break;
            uint32_t size = r.u32();
            std::string_view data = r.bytes(size);
            if (r.failed()) return fail("option " + std::to_string(id) + " is truncated");
            if (id == OptDone) {
                ByteReader d(reinterpret_cast<const uint8_t*>(data.data()), data.size(), m_info.bigEndian);
                *nextOptions = d.u64();
                break;
            }
            handleOption(id, data);
        }
        if (consumed) *consumed = r.pos();
        return true;
    }

    void handleOption(uint16_t id, std::string_view data)
    {
        ByteReader r(reinterpret_cast<const uint8_t*>(data.data()), data.size(), m_info.bigEndian);
        switch (id) {
        case OptDate: m_info.tsOffset += std::strtoll(optionString(data).c_str(), nullptr, 0) * 1000; break;
        case OptOffset: m_info.tsOffset += std::strtoll(optionString(data).c_str(), nullptr, 0); break;
        case OptCpuStat: {
            CpuStats stats;
            if (!parseCpuStat(data, &m_statsBuffer, &stats)) break;
            if (!m_stats.count(m_statsBuffer)) m_statsOrder.push_back(m_statsBuffer);
            m_stats[m_statsBuffer].push_back(std::move(stats));
            break;
        }
        case OptBuffer:
        case OptBufferText: handleBufferOption(id, r); break;
        case OptTraceClock: {
            m_hasTraceClockOption = true;
            std::string clock = selectedClock(data);
            if (!clock.empty()) applyClock(clock);
            break;
        }
        case OptUname: m_info.uname = optionString(data); break;
        case OptVersion: m_info.tracerVersion = optionString(data); break;
        case OptCpuCount:
            m_info.cpuCount = static_cast<int>(r.u32());
            if (!r.failed()) tep_set_cpus(m_out.m_tep, m_info.cpuCount);
            break;
        case OptTraceId:
            if (data.size() >= 8) m_info.traceId = r.u64();
            break;
        case OptTimeShift: {
            TimeShift shift;
            if (data.size() >= 16 && parseTimeShift(data, m_info.bigEndian, &shift))
                m_info.timeShift = std::move(shift);
            else
                m_out.m_diagnostics.warn("bad-option", "TIME_SHIFT option is malformed; guest "
                                                       "times are not corrected");
            break;
        }
        case OptGuest: {
            GuestInfo guest;
            if (parseGuest(data, m_info.bigEndian, &guest)) m_info.guests.push_back(guest);
            break;
        }
        case OptTsc2Nsec:
            if (data.size() >= 16) {
                Tsc2Nsec t;
                t.mult = r.u32();
                t.shift = r.u32();
                t.offset = r.u64();
                m_info.tsc2nsec = t;
                m_info.timesInUsecs = true;
            }
            break;
        case OptHeaderInfo:
        case OptFtraceEvents:
        case OptEventFormats:
        case OptKallsyms:
        case OptPrintk:
        case OptCmdlines:
            if (data.size() >= 8) m_sections[id] = r.u64();
            break;
        default: break; // HOOK, PROCMAPS, STRINGS and unknown options carry nothing we show yet
        }
    }

    void applyClock(const std::string& clock)
    {
        m_info.traceClock = clock;
        if (!m_info.tsc2nsec) m_info.timesInUsecs = clockCountsNanoseconds(clock);
    }

    void handleBufferOption(uint16_t id, ByteReader& r)
    {
        uint64_t offset = r.u64();
        BufferInfo buffer;
        buffer.name = r.cstring();
        buffer.pageSize = m_info.pageSize;
        if (r.failed()) {
            m_out.m_diagnostics.warn("bad-option", "a BUFFER option is malformed; buffer skipped");
            return;
        }
        if (m_info.version >= 7) {
            buffer.clock = r.cstring();
            if (id == OptBufferText) {
                buffer.latency = true;
            } else {
                buffer.pageSize = r.u32();
                uint32_t cpus = r.u32();
                for (uint32_t i = 0; i < cpus && !r.failed(); ++i) {
                    CpuDataInfo cpu;
                    cpu.cpu = static_cast<int>(r.u32());
                    cpu.fileOffset = r.u64();
                    cpu.fileSize = r.u64();
                    if (!r.failed()) buffer.cpus.push_back(cpu);
                }
                if (r.failed() || buffer.pageSize < 1024 || buffer.pageSize > (1u << 24)) {
                    m_out.m_diagnostics.warn("bad-option",
                                             "BUFFER option of '" + buffer.name + "' is malformed; buffer skipped");
                    return;
                }
                std::stable_sort(buffer.cpus.begin(), buffer.cpus.end(),
                                 [](const auto& a, const auto& b) { return a.cpu < b.cpu; });
            }
            if (buffer.name.empty() && m_info.traceClock.empty()) m_info.traceClock = buffer.clock;
        }
        m_bufferOffsets[buffer.name] = offset;
        if (buffer.name.empty())
            m_out.m_buffers.insert(m_out.m_buffers.begin(), std::move(buffer));
        else
            m_out.m_buffers.push_back(std::move(buffer));
    }

    void finishBuffers()
    {
        for (auto& buffer : m_out.m_buffers) {
            auto it = m_stats.find(buffer.name);
            if (it != m_stats.end()) buffer.stats = it->second;
        }
    }

    // ---- metadata payloads ---------------------------------------------------------------

    // Reads one metadata payload; what goes to libtraceevent is queued as steps (applyMetadata).
    bool parseMetadata(uint16_t id, ByteReader& r)
    {
        tep_handle* tep = m_out.m_tep;
        switch (id) {
        case OptHeaderInfo: {
            if (r.bytes(12) != std::string_view("header_page\0", 12)) return fail("header_page is missing");
            std::string_view page = r.bytes(r.u64());
            if (r.bytes(13) != std::string_view("header_event\0", 13)) return fail("header_event is missing");
            r.bytes(r.u64());
            if (r.failed()) return fail("header info is truncated");
            // Copied: libtraceevent takes it as a writable buffer.
            queueStep(MetadataStep::Kind::HeaderPage, m_payloads.emplace_back(page));
            return true;
        }
        case OptFtraceEvents: {
            uint32_t count = r.u32();
            for (uint32_t i = 0; i < count && !r.failed(); ++i) {
                std::string_view format = r.bytes(r.u64());
                if (!r.failed()) queueFormat(format, "ftrace", false);
            }
            return r.failed() ? fail("ftrace event formats are truncated") : true;
        }
        case OptEventFormats: {
            uint32_t systems = r.u32();
            for (uint32_t s = 0; s < systems && !r.failed(); ++s) {
                std::string system = r.cstring();
                uint32_t count = r.u32();
                for (uint32_t i = 0; i < count && !r.failed(); ++i) {
                    std::string_view format = r.bytes(r.u64());
                    if (!r.failed()) queueFormat(format, system);
                }
            }
            return r.failed() ? fail("event formats are truncated") : true;
        }
        case OptKallsyms:
        case OptPrintk: {
            std::string text(r.bytes(r.u32()));
            if (r.failed()) return fail(id == OptKallsyms ? "kallsyms are truncated" : "printk formats are truncated");
            if (text.empty()) return true;
            if (id == OptKallsyms && m_options.deferKallsyms)
                m_out.m_deferredKallsyms = std::move(text);
            else if (id == OptKallsyms)
                registerKallsyms(tep, text);
            else
                queueStep(MetadataStep::Kind::PrintkFormats, m_payloads.emplace_back(std::move(text)));
            return true;
        }
        case OptCmdlines: {
            std::string text(r.bytes(r.u64()));
            if (r.failed()) return fail("saved command lines are truncated");
            if (!text.empty()) queueStep(MetadataStep::Kind::SavedCmdlines, m_payloads.emplace_back(std::move(text)));
            return true;
        }
        }
        return true;
    }

    // Whether the format's "ID: n" line names a wanted event (always, without a mask).
    bool wanted(std::string_view format) const
    {
        if (!m_types) return true;
        const std::optional<size_t> id = formatId(format);
        return !id || *id >= m_types->size() || (*m_types)[*id];
    }

    // Whether the format waits for parseDeferredFormats; if not, its id counts as parsed.
    bool deferred(std::string_view format, const std::string& system)
    {
        if (!m_options.deferFormats || m_metadataOnly) return false;
        const std::optional<size_t> id = formatId(format);
        if (!id || *id > 0xffff) return false; // libtraceevent decides what such a format is
        if (m_options.eagerFormat && m_options.eagerFormat(system, formatName(format))) {
            m_out.m_parsedTypes[*id] = true;
            return false;
        }
        return true;
    }

    void queueStep(MetadataStep::Kind kind, std::string_view text, std::string system = {})
    {
        m_steps.push_back({kind, text, std::move(system), m_nextOrdinal++});
    }

    // `filtered`: subject to newTep's event mask (the ftrace system's formats never are).
    void queueFormat(std::string_view format, const std::string& system, bool filtered = true)
    {
        if (filtered && deferred(format, system)) {
            m_out.m_deferredFormats.push_back({system, std::string(format), m_nextOrdinal++, *formatId(format)});
            return;
        }
        if (!filtered || wanted(format))
            queueStep(MetadataStep::Kind::Format, format, system);
        else
            ++m_nextOrdinal;
    }

    // Hands the queued metadata to libtraceevent: the steps a child process survived (or, for
    // newTep, those the open found safe).
    bool applyMetadata()
    {
        bool ok = true;
        if (m_knownUnsafe || !m_options.checkMetadata) {
            static const std::vector<size_t> none;
            if (!m_knownUnsafe) m_knownUnsafe = &none;
            for (const MetadataStep& step : m_steps)
                if (std::find(m_knownUnsafe->begin(), m_knownUnsafe->end(), step.ordinal) == m_knownUnsafe->end())
                    apply(step);
        } else {
            ok = probeAndApply();
        }
        m_steps.clear();
        tep_handle* tep = m_out.m_tep;
        m_info.kernelLongSize = tep_get_header_page_size(tep);
        if (m_info.kernelLongSize != 4 && m_info.kernelLongSize != 8) m_info.kernelLongSize = m_info.userLongSize;
        return ok;
    }

    void apply(const MetadataStep& step)
    {
        if (applyStep(m_out.m_tep, step, m_info.userLongSize)) return;
        if (step.kind == MetadataStep::Kind::Format) ++m_info.formatParseFailures;
        if (step.kind == MetadataStep::Kind::HeaderPage && !m_metadataOnly)
            m_out.m_diagnostics.warn("bad-header-page", "header_page cannot be parsed");
    }

    bool probeAndApply()
    {
        const MetadataLayout layout{m_info.bigEndian, m_info.userLongSize, m_info.pageSize};
        const ProbeVerdict verdict =
            probeAndApplySteps(m_out.m_unsafeMetadata, m_out.m_diagnostics, m_steps, layout,
                               m_options.forkMetadataProbe, [&](const MetadataStep& step) { apply(step); });
        if (verdict == ProbeVerdict::GaveUp)
            return fail("the event formats are damaged beyond use: more than " + std::to_string(kMaxUnsafeSteps) +
                        " of them crash libtraceevent, or no process could be started to check the rest");
        return true;
    }

    DatFile& m_out;
    const DatFile::OpenOptions& m_options;
    FileInfo& m_info;
    ByteReader m_reader;
    std::string m_error;
    std::map<uint16_t, uint64_t> m_sections;
    std::map<std::string, uint64_t> m_bufferOffsets;
    std::map<std::string, std::vector<CpuStats>> m_stats;
    std::string m_statsBuffer;
    std::vector<std::string> m_statsOrder; // the buffers the statistics name, in the file's order
    std::string m_cut;                     // what the file lost at its end, if it was cut
    uint64_t m_cutFrom = 0;                // where the options read end
    bool m_hasTraceClockOption = false;
    bool m_metadataOnly = false;
    const std::vector<bool>* m_types = nullptr;
    const std::vector<size_t>* m_knownUnsafe = nullptr;
    std::deque<std::string> m_payloads; // metadata the queued steps point into
    std::vector<MetadataStep> m_steps;
    size_t m_nextOrdinal = 0;
};

bool parseDatFile(DatFile& out, const DatFile::OpenOptions& options, std::string* error, bool metadataOnly,
                  const std::vector<bool>* types, const std::vector<size_t>* knownUnsafe)
{
    DatFileParser parser(out, options, metadataOnly, types, knownUnsafe);
    if (parser.parse()) return true;
    if (error) *error = parser.error();
    return false;
}

} // namespace ringside
