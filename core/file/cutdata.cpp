// SPDX-License-Identifier: GPL-2.0-or-later
#include "file/cutdata.h"

#include "file/fileoptions.h"
#include "file/ringpage.h"

#include <algorithm>
#include <numeric>

namespace ringside {

namespace {

constexpr int kMostSectionsBefore = 4; // strings sections between the options and the data
constexpr uint32_t kLargestChunk = 1u << 28;

uint64_t alignUp(uint64_t offset, uint64_t pageSize)
{
    return (offset + pageSize - 1) / pageSize * pageSize;
}

// One CPU's compressed data at `pos`: its chunks while they are whole and their sizes are
// those of page data. False if no chunk is there.
bool walkChunks(ByteReader r, uint64_t pos, uint32_t pageSize, CpuDataInfo* cpu, std::string* cut)
{
    r.seek(pos);
    const uint32_t count = r.u32();
    if (r.failed()) return false;
    cpu->fileOffset = pos;
    cpu->compressed = true;
    uint64_t stream = 0;
    for (uint32_t i = 0; count == 0 || i < count; ++i) {
        const size_t at = r.pos();
        CompressedChunk chunk;
        chunk.compressedSize = r.u32();
        chunk.size = r.u32();
        const bool plausible = !r.failed() && chunk.compressedSize > 0 && chunk.size > 0 &&
                               chunk.size % pageSize == 0 && chunk.size <= kLargestChunk;
        if (plausible && chunk.compressedSize <= r.remaining()) {
            chunk.fileOffset = r.pos();
            chunk.streamOffset = stream;
            r.skip(chunk.compressedSize);
            stream += chunk.size;
            cpu->chunks.push_back(chunk);
            continue;
        }
        r.seek(at);
        if (count == 0) {
            if (!cpu->chunks.empty())
                *cut = "its chunk count was never written (its writer stopped): " + std::to_string(i) +
                       " whole chunks are read";
        } else if (plausible || r.remaining() < 8) {
            *cut = "compressed data ends after " + std::to_string(i) + " of " + std::to_string(count) + " chunks";
        } else {
            *cut = "chunk " + std::to_string(i + 1) + " of " + std::to_string(count) + " is damaged";
        }
        break;
    }
    cpu->fileSize = r.pos() - pos;
    cpu->streamSize = stream;
    return !cpu->chunks.empty();
}

void walkCompressed(const ByteReader& file, uint64_t pos, const FileInfo& info, size_t maxCpus, FoundCpuData* found)
{
    while (found->cpus.size() < maxCpus && pos + 4 <= file.size()) {
        CpuDataInfo cpu;
        if (!walkChunks(file, pos, info.pageSize, &cpu, &found->lastCut)) break;
        pos = alignUp(cpu.fileOffset + cpu.fileSize, info.pageSize);
        found->cpus.push_back(std::move(cpu));
        if (!found->lastCut.empty()) break;
    }
}

// Whether a whole section of the kinds a writer puts after the data (options, strings) is at
// `pos`: what follows whole pages is then no cut page.
bool sectionAt(ByteReader r, uint64_t pos)
{
    if (!r.seek(pos) || r.remaining() < kSectionHeaderSize) return false;
    const uint16_t id = r.u16();
    r.skip(6);
    const uint64_t size = r.u64();
    return (id == OptDone || id == OptStrings) && size <= r.remaining();
}

// Whole pages from `pos`; a new CPU begins where the time goes back.
void walkPages(const ByteReader& file, uint64_t pos, const FileInfo& info, size_t maxCpus, FoundCpuData* found)
{
    uint64_t lastTime = 0;
    for (; pos + info.pageSize <= file.size(); pos += info.pageSize) {
        const uint8_t* page = file.data() + pos;
        if (!ringpage::headerIsSane(page, info.pageSize, info.kernelLongSize, info.bigEndian)) break;
        const uint64_t time = ringpage::timestamp(page, info.bigEndian);
        if (found->cpus.empty() || (time < lastTime && found->cpus.size() < maxCpus)) {
            CpuDataInfo cpu;
            cpu.fileOffset = pos;
            found->cpus.push_back(cpu);
        }
        CpuDataInfo& cpu = found->cpus.back();
        cpu.fileSize += info.pageSize;
        cpu.streamSize = cpu.fileSize;
        lastTime = time;
    }
    const uint64_t left = file.size() > pos ? file.size() - pos : 0;
    if (left > 0 && left < info.pageSize && !sectionAt(file, pos))
        found->lastCut =
            "its last page is cut (" + std::to_string(left) + " of " + std::to_string(info.pageSize) + " bytes)";
}

} // namespace

std::optional<FoundCpuData> findCpuData(const ByteReader& file, uint64_t from, const FileInfo& info, size_t maxCpus)
{
    ByteReader r = file;
    uint64_t at = from;
    for (int hop = 0;; ++hop) {
        if (hop > kMostSectionsBefore || !r.seek(at) || r.remaining() < kSectionHeaderSize) return std::nullopt;
        const uint16_t id = r.u16();
        const uint16_t flags = r.u16();
        r.u32(); // description
        const uint64_t size = r.u64();
        if (id == OptBuffer) {
            FoundCpuData found;
            found.sectionOffset = at;
            found.compressed = (flags & 1) && info.codec != Codec::None;
            const uint64_t data = alignUp(at + kSectionHeaderSize, info.pageSize);
            if (found.compressed)
                walkCompressed(file, data, info, maxCpus, &found);
            else
                walkPages(file, data, info, maxCpus, &found);
            return found;
        }
        if (id != OptStrings || size > r.remaining()) return std::nullopt;
        at += kSectionHeaderSize + size;
    }
}

std::vector<int> cpuIdsOfFound(size_t found, bool endsAtCut, int cpuCount, const std::vector<CpuStats>& stats,
                               bool* guessed)
{
    std::vector<int> ids(found);
    std::iota(ids.begin(), ids.end(), 0);
    *guessed = false;
    if (cpuCount > 0 && found == size_t(cpuCount)) return ids;
    std::vector<int> withEvents;
    for (const CpuStats& s : stats)
        if ((s.entries > 0 || s.readEvents > 0) && (cpuCount <= 0 || s.cpu < cpuCount)) withEvents.push_back(s.cpu);
    std::sort(withEvents.begin(), withEvents.end());
    withEvents.erase(std::unique(withEvents.begin(), withEvents.end()), withEvents.end());
    // CPUs are written in order: those found are the first that had events, the rest were
    // never written (or cut off).
    if (withEvents.size() >= found && !withEvents.empty()) {
        withEvents.resize(found);
        return withEvents;
    }
    *guessed = !endsAtCut;
    return ids;
}

} // namespace ringside
