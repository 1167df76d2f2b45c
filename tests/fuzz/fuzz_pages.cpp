// SPDX-License-Identifier: GPL-2.0-or-later
// The page parser and the live page stream: arbitrary bytes as the ring-buffer pages of two
// CPUs, fed page by page into in-memory page sources and a store that grows (as a live
// capture feeds them), decoded with a real recording's event formats.
#include "fuzzsupport.h"

#include "file/spoolpagesource.h"
#include "load/pageparser.h"
#include "load/storeappender.h"
#include "load/timestampconverter.h"

#include <traceevent/event-parse.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

using namespace ringside;

namespace {
std::string g_metadata; // a small recording whose formats decode the pages
}

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
    tep_set_loglevel(TEP_LOG_NONE);
    g_metadata = fuzz::sampleRecording();
    // Seeds: the sample's own pages, both CPUs interleaved as the target reads them.
    const std::filesystem::path seeds(RINGSIDE_FUZZ_PAGE_SEEDS);
    if (std::filesystem::exists(seeds) && std::filesystem::is_empty(seeds)) {
        auto file = DatFile::open(g_metadata);
        if (!file) std::abort();
        const auto& cpus = (*file)->buffers()[0].cpus;
        const uint8_t* base = (*file)->mapping()->data();
        const uint32_t pageSize = (*file)->info().pageSize;
        std::string pages;
        for (uint64_t at = 0;; at += pageSize) {
            bool any = false;
            for (const CpuDataInfo& cpu : cpus) {
                if (at >= cpu.fileSize) continue;
                pages.append(reinterpret_cast<const char*>(base + cpu.fileOffset + at), pageSize);
                any = true;
            }
            if (!any) break;
        }
        std::ofstream(seeds / "sample-pages", std::ios::binary).write(pages.data(), std::streamsize(pages.size()));
    }
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    EventStore* store = nullptr;
    auto trace = Trace::growing(g_metadata, &store, false); // the sample's formats are sound
    if (!trace) std::abort(); // the metadata recording is part of the setup, not the input
    const FileInfo& info = (*trace)->file().info();
    const uint32_t pageSize = info.pageSize;
    const Trace* t = trace->get();
    StoreAppender appender(*store, [t](int32_t pid) { return std::string(tep_data_comm_from_pid(t->tep(), pid)); });
    appender.addBuffer({"", info.traceClock, pageSize, {}, {}});
    appender.setLayout({info.kernelLongSize, info.bigEndian, 8});
    TimestampConverter converter(info);
    SpoolPageSource* sources[2];
    std::unique_ptr<PageParser> parsers[2];
    for (int cpu = 0; cpu < 2; ++cpu) {
        auto source = std::make_unique<SpoolPageSource>(pageSize);
        sources[cpu] = source.get();
        appender.addStream(0, cpu, std::move(source));
        parsers[cpu] =
            std::make_unique<PageParser>(info.kernelLongSize, info.bigEndian, CommonLayout(), converter, cpu);
    }
    std::vector<uint64_t> perType(65536);
    std::vector<uint8_t> page(pageSize + PageSource::kPadding);
    // Pages alternate between the CPUs; the last one is padded with zeros.
    for (size_t at = 0, n = 0; at < size; at += pageSize, ++n) {
        const size_t take = std::min<size_t>(pageSize, size - at);
        std::memset(page.data(), 0, page.size());
        std::memcpy(page.data(), data + at, take);
        const int cpu = static_cast<int>(n % 2);
        if (!PageParser::headerIsSane(page.data(), pageSize, info.kernelLongSize, info.bigEndian)) continue;
        sources[cpu]->append(page.data(), 1);
        CpuColumns segment;
        CpuLoadStats stats;
        parsers[cpu]->parse(page.data(), pageSize, segment, stats, perType.data());
        appender.append(StreamId(static_cast<uint16_t>(cpu)), std::move(segment));
        appender.publish(false);
    }
    appender.publish(true);
    fuzz::formatRows(**trace, 512);
    return 0;
}
