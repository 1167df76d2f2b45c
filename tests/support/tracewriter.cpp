// SPDX-License-Identifier: GPL-2.0-or-later
#include "support/tracewriter.h"

#include <algorithm>
#include <cstring>

namespace ringside::test {

namespace {

constexpr uint32_t kPageSize = 4096;
constexpr size_t kPageHeader = 16; // u64 timestamp, u64 commit

const char kHeaderPage[] = "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
                           "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
                           "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
                           "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";
const char kHeaderEvent[] = "# compressed entry header\n\ttype_len    :    5 bits\n\ttime_delta  :   27 bits\n"
                            "\tarray       :   32 bits\n\n\tpadding     : type == 29\n\ttime_extend : type == 30\n"
                            "\ttime_stamp : type == 31\n\tdata max type_len  == 28\n";

void putString(std::string& out, const std::string& s)
{
    out += s;
    out += '\0';
}

// One CPU's records as ring-buffer pages.
std::string pages(const std::vector<TraceWriter::Record>& records, uint64_t firstTimestamp)
{
    std::string out;
    std::string page;
    bool missed = false;
    uint64_t time = firstTimestamp;
    auto flush = [&] {
        if (page.empty()) return;
        uint64_t commit = page.size() - kPageHeader;
        if (missed) commit |= uint64_t(1) << 31; // RB_MISSED_EVENTS, count not stored
        std::memcpy(page.data() + 8, &commit, 8);
        missed = false;
        page.resize(kPageSize, '\0');
        out += page;
        page.clear();
    };
    for (const TraceWriter::Record& r : records) {
        std::string body = r.payload;
        body.resize((body.size() + 3) / 4 * 4, '\0');
        const uint32_t words = static_cast<uint32_t>(body.size() / 4);
        // type_len holds up to 28 words; longer records put their length in the next word.
        const size_t size = 4 + (words <= 28 && words > 0 ? 0 : 4) + body.size();
        if (!page.empty() && (page.size() + size > kPageSize || r.lostBefore)) flush();
        if (page.empty()) {
            missed = r.lostBefore;
            put<uint64_t>(page, time);
            put<uint64_t>(page, 0);
            time += r.delta; // the page's timestamp is the first record's, minus its delta
        } else {
            time += r.delta;
        }
        const uint32_t delta = r.delta & ((1u << 27) - 1);
        if (words <= 28 && words > 0) {
            put<uint32_t>(page, words | (delta << 5));
        } else {
            put<uint32_t>(page, 0 | (delta << 5));
            put<uint32_t>(page, static_cast<uint32_t>(body.size() + 4));
        }
        page += body;
        if (page.size() > kPageSize) page.resize(kPageSize); // a record larger than a page is cut
    }
    flush();
    return out;
}

} // namespace

const char* TraceWriter::commonFields()
{
    return "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
           "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
           "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
           "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n";
}

TraceWriter::Format TraceWriter::schedSwitchFormat()
{
    return {"sched", std::string("name: sched_switch\nID: 372\nformat:\n") + commonFields() +
                         "\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
                         "\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
                         "\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
                         "\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
                         "\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
                         "\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
                         "\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"
                         "print fmt: \"prev_comm=%s prev_pid=%d prev_state=%d ==> next_comm=%s next_pid=%d\", "
                         "REC->prev_comm, REC->prev_pid, REC->prev_state, REC->next_comm, REC->next_pid\n"};
}

TraceWriter::Format TraceWriter::schedWakeupFormat()
{
    return {"sched", std::string("name: sched_wakeup\nID: 374\nformat:\n") + commonFields() +
                         "\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
                         "\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
                         "\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
                         "\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n\n"
                         "print fmt: \"comm=%s pid=%d target_cpu=%03d\", REC->comm, REC->pid, REC->target_cpu\n"};
}

std::string TraceWriter::comm(const std::string& name)
{
    std::string c = name.substr(0, 15);
    c.resize(16, '\0');
    return c;
}

std::string TraceWriter::schedSwitch(int32_t prev, const std::string& prevComm, int64_t prevState, int32_t next,
                                     const std::string& nextComm)
{
    std::string fields = comm(prevComm);
    put(fields, prev);
    put(fields, int32_t(120));
    put(fields, prevState);
    fields += comm(nextComm);
    put(fields, next);
    put(fields, int32_t(120));
    return payload(372, prev, fields);
}

std::string TraceWriter::schedWakeup(int32_t by, int32_t pid, const std::string& name, int32_t targetCpu)
{
    std::string fields = comm(name);
    put(fields, pid);
    put(fields, int32_t(120));
    put(fields, targetCpu);
    return payload(374, by, fields);
}

std::string TraceWriter::payload(uint16_t type, int32_t pid, const std::string& fields, uint8_t flags, uint8_t preempt)
{
    std::string out;
    put(out, type);
    put(out, flags);
    put(out, preempt);
    put(out, pid);
    return out + fields;
}

std::string TraceWriter::write() const
{
    std::string out("\x17\x08\x44tracing", 10);
    putString(out, "6");
    put<uint8_t>(out, 0); // little-endian
    put<uint8_t>(out, 8); // long size
    put<uint32_t>(out, kPageSize);
    putString(out, "header_page");
    put<uint64_t>(out, sizeof kHeaderPage - 1);
    out += kHeaderPage;
    putString(out, "header_event");
    put<uint64_t>(out, sizeof kHeaderEvent - 1);
    out += kHeaderEvent;
    put<uint32_t>(out, static_cast<uint32_t>(ftraceFormats.size()));
    for (const std::string& f : ftraceFormats) {
        put<uint64_t>(out, f.size());
        out += f;
    }
    // Event systems, each with its formats, in first-seen order.
    std::vector<std::string> systems;
    for (const Format& f : formats)
        if (std::find(systems.begin(), systems.end(), f.system) == systems.end()) systems.push_back(f.system);
    put<uint32_t>(out, static_cast<uint32_t>(systems.size()));
    for (const std::string& system : systems) {
        putString(out, system);
        uint32_t count = 0;
        for (const Format& f : formats) count += f.system == system;
        put<uint32_t>(out, count);
        for (const Format& f : formats) {
            if (f.system != system) continue;
            put<uint64_t>(out, f.text.size());
            out += f.text;
        }
    }
    put<uint32_t>(out, static_cast<uint32_t>(kallsyms.size()));
    out += kallsyms;
    put<uint32_t>(out, static_cast<uint32_t>(printkFormats.size()));
    out += printkFormats;
    put<uint64_t>(out, cmdlines.size());
    out += cmdlines;
    put<uint32_t>(out, static_cast<uint32_t>(cpus.size()));
    out.append("options  \0", 10);
    if (!uname.empty()) {
        put<uint16_t>(out, 5); // uname
        put<uint32_t>(out, static_cast<uint32_t>(uname.size() + 1));
        out.append(uname.c_str(), uname.size() + 1);
    }
    put<uint16_t>(out, 0); // the end of the options
    out.append("flyrecord\0", 10);
    std::vector<std::string> data;
    for (const auto& records : cpus) data.push_back(pages(records, firstTimestamp));
    const size_t tableEnd = out.size() + cpus.size() * 16;
    uint64_t offset = (tableEnd + kPageSize - 1) / kPageSize * kPageSize;
    for (const std::string& d : data) {
        put<uint64_t>(out, offset);
        put<uint64_t>(out, d.size());
        offset += d.size();
    }
    out.resize((tableEnd + kPageSize - 1) / kPageSize * kPageSize, '\0');
    for (const std::string& d : data) out += d;
    return out;
}

std::string tickRecording()
{
    TraceWriter writer;
    writer.formats.push_back({"test", std::string("name: tick\nID: 700\nformat:\n") + TraceWriter::commonFields() +
                                          "\tfield:int value;\toffset:8;\tsize:4;\tsigned:1;\n\n"
                                          "print fmt: \"value=%d\", REC->value\n"});
    writer.cmdlines = "42 ticker\n43 tocker\n";
    writer.cpus.resize(3);
    auto tick = [](int32_t pid, int32_t value) {
        return TraceWriter::payload(700, pid, std::string(reinterpret_cast<const char*>(&value), 4));
    };
    for (int32_t i = 0; i < 3000; ++i) writer.cpus[0].push_back({uint32_t(1'000'000 + i % 7), tick(42, i)});
    for (int32_t i = 0; i < 900; ++i)
        writer.cpus[1].push_back({uint32_t(3'000'000 + i % 5), tick(43, i), i == 300 || i == 600});
    return writer.write();
}

} // namespace ringside::test
