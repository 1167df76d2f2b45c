// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "plugin/plugintables.h"

#include <string>

namespace ringside {

// A statistics cell as text ("E2BIG 3, ENOENT 1" for counts), for tables and the CLI.
std::string cellText(const StatsTable::Cell& cell);
// The cell as a JSON value ({"E2BIG": 3} for counts).
std::string cellJson(const StatsTable::Cell& cell);
// A JSON string literal.
std::string jsonQuoted(const std::string& text);
// The table as a JSON array of objects, one per row, keyed by the columns' keys.
std::string tableJson(const StatsTable& table);
// The table as aligned text: a header line of titles, then the rows.
std::string tableText(const StatsTable& table);

} // namespace ringside
