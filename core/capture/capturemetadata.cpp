// SPDX-License-Identifier: GPL-2.0-or-later
#include "capture/capturemetadata.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <sys/utsname.h>

namespace ringside {

namespace {

void putNumber(std::string& out, uint64_t value)
{
    out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

void putText(std::string& out, const std::string& text)
{
    putNumber(out, text.size());
    out += text;
}

// Reads back what putNumber and putText wrote; false once the bytes run out.
struct Reader {
    std::string_view bytes;
    bool ok = true;
    uint64_t number()
    {
        uint64_t value = 0;
        if (bytes.size() < sizeof value) return ok = false, 0;
        std::memcpy(&value, bytes.data(), sizeof value);
        bytes.remove_prefix(sizeof value);
        return value;
    }
    std::string text()
    {
        const uint64_t size = number();
        if (!ok || size > bytes.size()) return ok = false, std::string();
        std::string value(bytes.substr(0, size));
        bytes.remove_prefix(size);
        return value;
    }
};

constexpr uint64_t kMagic = 0x31617465646d7372; // "rsmdeta1", so a stray message is not taken for one

} // namespace

std::string CaptureMetadata::serialize() const
{
    std::string out;
    putNumber(out, kMagic);
    putNumber(out, pageSize);
    putNumber(out, uint64_t(longSize));
    putNumber(out, bigEndian);
    putNumber(out, uint64_t(cpus));
    putText(out, headerPage);
    putText(out, headerEvent);
    putNumber(out, ftraceFormats.size());
    for (const std::string& f : ftraceFormats) putText(out, f);
    putNumber(out, eventFormats.size());
    for (const EventFormat& f : eventFormats) putText(out, f.system), putText(out, f.text);
    putText(out, kallsyms);
    putText(out, printkFormats);
    putText(out, traceClock);
    putText(out, uname);
    putText(out, cmdlines);
    putNumber(out, cpuStats.size());
    for (const std::string& s : cpuStats) putText(out, s);
    putText(out, traceId);
    return out;
}

Result<CaptureMetadata> CaptureMetadata::parse(std::string_view bytes)
{
    Reader r{bytes};
    if (r.number() != kMagic) return Error{"not capture metadata"};
    CaptureMetadata m;
    m.pageSize = uint32_t(r.number());
    m.longSize = int(r.number());
    m.bigEndian = r.number() != 0;
    m.cpus = int(r.number());
    m.headerPage = r.text();
    m.headerEvent = r.text();
    for (uint64_t n = r.number(); r.ok && n > 0; --n) m.ftraceFormats.push_back(r.text());
    for (uint64_t n = r.number(); r.ok && n > 0; --n) {
        EventFormat f;
        f.system = r.text();
        f.text = r.text();
        m.eventFormats.push_back(std::move(f));
    }
    m.kallsyms = r.text();
    m.printkFormats = r.text();
    m.traceClock = r.text();
    m.uname = r.text();
    m.cmdlines = r.text();
    for (uint64_t n = r.number(); r.ok && n > 0; --n) m.cpuStats.push_back(r.text());
    m.traceId = r.text();
    if (!r.ok) return Error{"capture metadata cut short"};
    if (m.pageSize < 64 || m.pageSize > (1u << 20) || m.cpus <= 0 || m.cpus > 8192 ||
        (m.longSize != 4 && m.longSize != 8))
        return Error{"capture metadata out of range"};
    return m;
}

std::map<int32_t, std::string> parseCmdlines(const std::string& cmdlines)
{
    std::map<int32_t, std::string> names;
    size_t start = 0;
    while (start < cmdlines.size()) {
        const size_t end = std::min(cmdlines.find('\n', start), cmdlines.size());
        const std::string line = cmdlines.substr(start, end - start);
        start = end + 1;
        const size_t space = line.find(' ');
        const int32_t pid = int32_t(std::atoi(line.c_str()));
        if (space != std::string::npos && pid > 0) names[pid] = line.substr(space + 1);
    }
    return names;
}

std::string CaptureMetadata::localUname()
{
    utsname name{};
    if (::uname(&name) != 0) return {};
    return std::string(name.sysname) + " " + name.nodename + " " + name.release + " " + name.machine;
}

std::string CaptureMetadata::clockName() const
{
    const size_t open = traceClock.find('['), close = traceClock.find(']');
    if (open == std::string::npos || close == std::string::npos || close < open) return "local";
    return traceClock.substr(open + 1, close - open - 1);
}

} // namespace ringside
