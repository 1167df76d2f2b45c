// SPDX-License-Identifier: GPL-2.0-or-later
// A plugin that throws on its third record: it is stopped and reported, the load goes on.
#include "plugin/plugin.h"

#include <stdexcept>

namespace {

class Throwing : public ringside::Plugin {
public:
    std::string name() const override { return "throwing"; }
    std::string description() const override { return "throws on its third sched_switch"; }
    std::vector<ringside::EventRequest> requests() const override
    {
        return {{"sched", "sched_switch", {"prev_pid"}, false}};
    }
    void consume(const ringside::ConsumedRecord&) override
    {
        if (++m_seen == 3) throw std::runtime_error("third record refused");
    }
    std::string nothingToShow() const override { return {}; }

private:
    int m_seen = 0;
};

} // namespace

RINGSIDE_PLUGIN(Throwing)
