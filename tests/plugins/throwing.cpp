// SPDX-License-Identifier: GPL-2.0-or-later
// A plugin that throws: it is stopped and reported, the load and the other analyses go on.
// How it throws is $RINGSIDE_TEST_THROW's, read when it is made:
//   consume (or unset)   a std::runtime_error on its third sched_switch
//   bad_alloc            a std::bad_alloc there (memory that cannot be had)
//   other                an int there: no std::exception at all
//   statistics           a std::runtime_error from its statistics
//   statistics-other     an int from its statistics
//   recording            a std::runtime_error when it is given the recording
//   make                 a std::runtime_error while it is made (the catalog says so)
#include "plugin/plugin.h"

#include <cstdlib>
#include <new>
#include <stdexcept>
#include <string>

namespace {

std::string how()
{
    const char* env = std::getenv("RINGSIDE_TEST_THROW");
    return env && *env ? env : "consume";
}

class Throwing : public ringside::Plugin {
public:
    Throwing() : m_how(how())
    {
        if (m_how == "make") throw std::runtime_error("refused to be made");
    }
    std::string name() const override { return "throwing"; }
    std::string description() const override { return "throws on purpose (" + m_how + ")"; }
    std::vector<ringside::EventRequest> requests() const override
    {
        return {{"sched", "sched_switch", {"prev_pid"}, false}};
    }
    void setRecording(const ringside::RecordingInfo&) override
    {
        if (m_how == "recording") throw std::runtime_error("recording refused");
    }
    void consume(const ringside::ConsumedRecord&) override
    {
        if (++m_seen != 3) return;
        if (m_how == "consume") throw std::runtime_error("third record refused");
        if (m_how == "bad_alloc") throw std::bad_alloc();
        if (m_how == "other") throw 42;
    }
    std::string nothingToShow() const override { return {}; }
    std::vector<ringside::StatsTable> statistics() const override
    {
        if (m_how == "statistics") throw std::runtime_error("no statistics today");
        if (m_how == "statistics-other") throw 7;
        ringside::StatsTable table{"switches", "Switches seen", {}, false};
        table.column("switches", "Switches", ringside::StatsTable::Kind::Number).numbers.push_back(m_seen);
        return {table};
    }

private:
    std::string m_how;
    int m_seen = 0;
};

} // namespace

RINGSIDE_PLUGIN(Throwing)
