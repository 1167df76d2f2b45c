// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "store/eventstore.h"

#include <memory>

#include <cstdint>
#include <string>
#include <vector>

namespace ringside {

class ReportWorker;
class Trace;

// One field of a decoded event, ready to show.
struct FieldValue {
    std::string name;
    std::string type;   // as the format declares it, e.g. "pid_t", "char[16]"
    std::string value;  // decimal for numbers, text for strings, bytes for arrays
    std::string hex;    // numbers only
    std::string symbol; // function name when the number is a kernel text address
    bool common = false;
};

// Decodes events on demand for views (table, details pane, tooltips): names, the info text
// and latency flags exactly as `trace-cmd report` shows them, and every field. Each call takes
// the trace's tep handle (Trace::tep) for as long as it decodes; one thread uses a formatter.
// Pages are read forward by a ReportWorker, so consecutive rows (a table page) cost one page
// walk. Threads that format many events use a ReportWorker each instead.
class EventFormatter {
public:
    explicit EventFormatter(const Trace& trace);
    ~EventFormatter();

    std::string eventName(uint16_t type) const;  // "sched_switch"
    std::string systemName(uint16_t type) const; // "sched"
    std::string comm(int32_t pid) const;
    std::string info(EventRef e);    // the text after "event_name:" in the report
    std::string latency(EventRef e); // "d..2." as trace-cmd report -l prints it
    std::string reportLine(EventRef e);
    std::vector<FieldValue> fields(EventRef e);
    std::string formatText(uint16_t type) const; // the format file, rebuilt from the parsed one

private:
    ReportWorker& worker();

    const Trace& m_trace;
    std::unique_ptr<ReportWorker> m_worker; // on the trace's handle; created on first use
};

} // namespace ringside
