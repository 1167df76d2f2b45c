// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "sql/sqlcontext.h"
#include "sql/sqltable.h"

#include <memory>
#include <string>

namespace ringside {
class Plugin;
struct StatsTable;
} // namespace ringside

namespace ringside::sql {

// A plugin's statistics table `index` (shaped as `shape`) as an SQL table: typed columns; a
// task as its utid, an event as its time and id (`<key>` and `<key>_id`, the id read by an
// index made on first use); counts per name as "ENOENT 3, EAGAIN 1".
std::unique_ptr<Table> makeStatsTable(SqlContext& context, const Plugin& plugin, size_t index, std::string name,
                                      const StatsTable& shape);

} // namespace ringside::sql
