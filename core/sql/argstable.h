// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "sql/sqlcontext.h"
#include "sql/sqltable.h"

#include <memory>

namespace ringside::sql {

// Perfetto's `args` over the events' fields: a row per field of each event (arg_set_id, the
// event's id, as ftrace_event.arg_set_id; flat_key and key, the field's name; int_value,
// string_value, real_value, value_type 'int', 'string' or 'real'; display_value), in event
// order then the format's field order. An event's rows are read by its arg_set_id without a
// scan, and a range of them as a range of the merged order; values are decoded from the record
// only for the rows and columns a query reads, as EXTRACT_ARG reads them.
std::unique_ptr<Table> makeArgsTable(SqlContext& context);

} // namespace ringside::sql
