// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "sql/sqlcontext.h"
#include "sql/sqltable.h"

#include <memory>
#include <string>

namespace ringside::sql {

// Perfetto's `sched`: one row per sched_switch, the run it begins on its CPU until the CPU's
// next switch (id, ts, dur, ts_end, cpu, ucpu, utid, end_state, priority). As in Perfetto, a
// CPU's rows begin at its first switch, and the run after its last switch has dur -1 and no
// end_state; end_state is the ending switch's prev_state in the letters its format prints
// (R, R+, S, D, T, t, X, Z, P, I), priority the beginning switch's next_prio, and id the
// ftrace_event id of the switch that began the run. Null when the recording has no sched_switch.
std::unique_ptr<Table> makeSchedTable(SqlContext& context, std::string name);

} // namespace ringside::sql
