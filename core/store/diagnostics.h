// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ringside {

// One thing that went wrong or was unusual while reading a recording. Bad data is counted
// and travels with the trace (the "trace health" view), it is not fatal.
struct Diagnostic {
    enum class Severity { Info, Warning, Error };
    Severity severity = Severity::Warning;
    std::string code;    // stable identifier, e.g. "corrupt-page"
    std::string message; // readable, names the buffer/CPU where it applies
    uint64_t count = 1;
};

class Diagnostics {
public:
    void add(Diagnostic::Severity severity, std::string code, std::string message, uint64_t count = 1)
    {
        m_items.push_back({severity, std::move(code), std::move(message), count});
    }
    void warn(std::string code, std::string message, uint64_t count = 1)
    {
        add(Diagnostic::Severity::Warning, std::move(code), std::move(message), count);
    }
    void append(const Diagnostics& other) { m_items.insert(m_items.end(), other.m_items.begin(), other.m_items.end()); }
    const std::vector<Diagnostic>& items() const { return m_items; }
    bool empty() const { return m_items.empty(); }

private:
    std::vector<Diagnostic> m_items;
};

const char* severityName(Diagnostic::Severity severity);

} // namespace ringside
