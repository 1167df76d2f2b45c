// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "sql/analysistables.h"

#include "analysis/tracktables.h"

#include <memory>
#include <string>

namespace ringside::sql {

// An analysis's track tables whose rows an owner keeps (a task's utid, or a CPU): slices,
// instants, counters and flows (a flow has an owner at each end). Each reads only the owners
// a constraint on its owner column leaves: a few tasks' system calls are read in those tasks'
// runs of events, a task's flows through an index of the rows by owner made on first use.
// A slice table's rows carry their track's id (SliceTracks: `block` is the table's place there).
std::unique_ptr<Table> sliceTable(SqlContext& context, const SliceTable& table, std::string name, size_t block);
std::unique_ptr<Table> instantTable(SqlContext& context, const InstantTable& table, std::string name);
std::unique_ptr<Table> counterTable(SqlContext& context, const CounterTable& table, std::string name);
std::unique_ptr<Table> flowTable(SqlContext& context, const FlowTable& table, std::string name);

// The owner column of a track table: `utid` or `cpu`, and its value for an owner.
std::string ownerColumn(RowOwner owner);
Value ownerValue(const EventStore& store, RowOwner owner, uint32_t value);
// Whether a CPU owner is among the CPUs a constraint on `cpu` leaves (a task owner always is).
bool ownerWanted(const EventStore& store, RowOwner owner, uint32_t value, const Range& cpus);

} // namespace ringside::sql
