// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <QString>

namespace ringside {

// A plugin's caveat about its numbers (StatsTable::note), with the table that holds its
// evidence: shown in the plugin pane and the trace health pane, each a way to that table.
struct AnalysisNote {
    QString plugin;   // the plugin's name
    QString tableKey; // the table's key
    QString text;
};

} // namespace ringside
