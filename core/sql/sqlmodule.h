// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "sql/sqltable.h"

#include <sqlite3.h>

#include <atomic>
#include <cstdint>
#include <string>

namespace ringside::sql {

// The tables the module finds by name when SQLite connects to them.
class TableRegistry {
public:
    virtual ~TableRegistry() = default;
    virtual const Table* find(const std::string& name) const = 0;
    // Rows every table has yielded so far (scanned or looked up): what a query really reads,
    // for its progress. Counted by the cursors a batch at a time.
    uint64_t rowsYielded() const { return m_rowsYielded.load(std::memory_order_relaxed); }
    void countYielded(uint64_t rows) const { m_rowsYielded.fetch_add(rows, std::memory_order_relaxed); }

private:
    mutable std::atomic<uint64_t> m_rowsYielded{0};
};

// `name` as an SQL identifier in double quotes, quotes inside doubled.
std::string quotedIdentifier(const std::string& name);

// Registers module "ringside" (CREATE VIRTUAL TABLE name USING ringside) with `db`.
int registerModule(sqlite3* db, const TableRegistry& tables);
// Whether this thread is declaring a table's columns to SQLite (connecting it): SQLite asks the
// authorizer for that CREATE TABLE too when it connects a table again (after a schema reset).
bool declaringTable();
// Runs a module's method so that no exception crosses into SQLite: the statement fails with
// the reason (out of memory as SQLITE_NOMEM). failedCall handles the exception being caught.
int failedCall(sqlite3_vtab* vtab);
template <typename F>
int guarded(sqlite3_vtab* vtab, F f)
{
    try {
        f();
        return 0; // SQLITE_OK
    } catch (...) {
        return failedCall(vtab);
    }
}
// sqlite3_declare_vtab with declaringTable() true meanwhile: what a module's xConnect calls.
int declareTable(sqlite3* db, const std::string& schema);

// The methods of a read-only virtual table, as every module here has them; made into SQLite's
// module by readOnlyModule().
struct ReadOnlyMethods {
    int (*connect)(sqlite3*, void*, int, const char* const*, sqlite3_vtab**, char**);
    int (*bestIndex)(sqlite3_vtab*, sqlite3_index_info*);
    int (*disconnect)(sqlite3_vtab*);
    int (*open)(sqlite3_vtab*, sqlite3_vtab_cursor**);
    int (*close)(sqlite3_vtab_cursor*);
    int (*filter)(sqlite3_vtab_cursor*, int, const char*, int, sqlite3_value**);
    int (*next)(sqlite3_vtab_cursor*);
    int (*eof)(sqlite3_vtab_cursor*);
    int (*column)(sqlite3_vtab_cursor*, sqlite3_context*, int);
    int (*rowId)(sqlite3_vtab_cursor*, sqlite3_int64*);
    // A table-valued function: named in FROM, never created.
    bool eponymousOnly = false;
};
sqlite3_module readOnlyModule(const ReadOnlyMethods& methods);

} // namespace ringside::sql
