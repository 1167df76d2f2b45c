// SPDX-License-Identifier: GPL-2.0-or-later
#include "fuzzsupport.h"

#include "support/tracewriter.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace ringside::fuzz {

std::vector<std::pair<std::string, std::string>> sampleFormats()
{
    std::vector<std::pair<std::string, std::string>> out;
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(RINGSIDE_FUZZ_FORMATS))
        if (entry.path().extension() == ".format") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    for (const auto& path : files) {
        const std::string stem = path.stem().string(); // system--event
        std::ifstream in(path);
        std::stringstream text;
        text << in.rdbuf();
        out.emplace_back(stem.substr(0, stem.find("--")), text.str());
    }
    return out;
}

int formatId(const std::string& text)
{
    const size_t at = text.find("\nID: ");
    if (at == std::string::npos) return -1;
    int id = 0;
    for (size_t i = at + 5; i < text.size() && text[i] >= '0' && text[i] <= '9' && id < 65536; ++i)
        id = id * 10 + (text[i] - '0');
    return id < 65536 ? id : -1;
}

const std::string& sampleRecording()
{
    static const std::string path = [] {
        test::TraceWriter writer;
        writer.cpus.resize(2);
        int n = 0;
        for (const auto& [system, text] : sampleFormats()) {
            const int id = formatId(text);
            if (system == "ftrace")
                writer.ftraceFormats.push_back(text);
            else
                writer.formats.push_back({system, text});
            if (id < 0) continue;
            for (int i = 0; i < 3; ++i, ++n) {
                std::string fields(48 + 8 * i, '\0');
                for (size_t b = 0; b < fields.size(); ++b) fields[b] = static_cast<char>((b * 7 + n) & 0x7f);
                writer.cpus[n % 2].push_back(
                    {100, test::TraceWriter::payload(static_cast<uint16_t>(id), 1000 + n, fields)});
            }
        }
        writer.cmdlines = "1000 fuzz-task\n1001 other-task\n";
        static MemoryFile file("", 0);
        const std::string bytes = writer.write();
        // The file object's path names its descriptor; write through it.
        std::ofstream out(file.path(), std::ios::binary);
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        return file.path();
    }();
    return path;
}

} // namespace ringside::fuzz
