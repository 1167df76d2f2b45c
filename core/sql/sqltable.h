// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

struct sqlite3_context;

namespace ringside::sql {

// The tables SQL sees over a recording, as the engine (RecordingSql) asks them: what columns
// they have, which parts of a WHERE clause they can answer themselves (a time range by binary
// search, a CPU, a task), and a cursor over their rows. Read-only; SQLite checks every
// constraint again, so a table that narrows its scan only has to keep every row that may match.
// Written without SQLite's types, so that a table reads as the store it walks.

enum class ColumnType : uint8_t { Integer, Real, Text };

struct Column {
    std::string name;
    ColumnType type = ColumnType::Integer;
};

// A comparison of a column with a value, as the query's WHERE clause has it.
enum class Op : uint8_t { Eq, Lt, Le, Gt, Ge };

struct Constraint {
    int column = 0;
    Op op = Op::Eq;
};

// A column the statement wants its rows ordered by.
struct OrderBy {
    int column = 0;
    bool descending = false;
};
// How the statement wants the rows ordered (sqlite3_vtab_distinct): Sorted in the order asked,
// or only Grouped (GROUP BY, DISTINCT: equal values next to each other, in any order).
enum class Ordering : uint8_t { Sorted, Grouped };

// What a table does with the constraints it is offered: those it narrows its scan by (in the
// order given), what the scan then costs and how many rows it yields; and, when it yields them
// in the order asked, the way it does (a table's own code, given back to its cursor).
struct Plan {
    std::vector<bool> uses;
    double cost = 0;
    double rows = 0;
    int order = 0;       // 0: rows in no order SQLite can use
    bool unique = false; // at most one row (an equality on the key)
};

// A constraint with its value, as the scan begins.
struct Bound {
    int column = 0;
    Op op = Op::Eq;
    int64_t value = 0;
};

// One value of a query's result, or of a table's cell kept for later.
struct Value {
    enum class Kind : uint8_t { Null, Integer, Real, Text };
    Kind kind = Kind::Null;
    int64_t integer = 0;
    double real = 0;
    std::string text;
    std::string toString() const;

    static Value ofInteger(int64_t v) { return {Kind::Integer, v, 0, {}}; }
    static Value ofReal(double v) { return {Kind::Real, 0, v, {}}; }
    static Value ofText(std::string v) { return {Kind::Text, 0, 0, std::move(v)}; }
};

// Where a cursor writes the value of one column of its row: SQLite's result, or a Value.
class Cell {
public:
    virtual ~Cell() = default;
    virtual void integer(int64_t value) = 0;
    virtual void real(double value) = 0;
    virtual void text(std::string_view value) = 0;
    // A text that stays as it is while the cursor lives (SQLite keeps a pointer to it until
    // the statement ends: never one the cursor frees or changes before).
    virtual void staticText(std::string_view value) { text(value); }
    virtual void null() = 0;
    void write(const Value& value);
};

class SqliteCell : public Cell {
public:
    explicit SqliteCell(sqlite3_context* context) : m_context(context) {}
    void integer(int64_t value) override;
    void real(double value) override;
    void text(std::string_view value) override;
    void staticText(std::string_view value) override;
    void null() override;

private:
    sqlite3_context* m_context;
};

class ValueCell : public Cell {
public:
    Value value;
    void integer(int64_t v) override { value.kind = Value::Kind::Integer, value.integer = v; }
    void real(double v) override { value.kind = Value::Kind::Real, value.real = v; }
    void text(std::string_view v) override { value.kind = Value::Kind::Text, value.text = v; }
    void null() override { value.kind = Value::Kind::Null; }
};

class Cursor {
public:
    virtual ~Cursor() = default;
    // The columns the statement reads (bit i for column i, bit 63 for 63 and beyond), set
    // before begin(): a cursor may leave the others out (a field decoded from its event).
    void useColumns(uint64_t columns) { m_used = columns; }
    bool used(int column) const;
    // The order its plan promised (Plan::order), set before begin().
    void orderRows(int order) { m_order = order; }
    // Starts the scan over the rows that may match `bounds` (those the plan used).
    virtual void begin(const std::vector<Bound>& bounds) = 0;
    virtual bool atEnd() const = 0;
    virtual void next() = 0;
    virtual void column(int column, Cell& out) = 0;
    virtual int64_t rowId() = 0;

protected:
    uint64_t m_used = ~uint64_t(0);
    int m_order = 0;
};

class Table {
public:
    Table(std::string name, std::vector<Column> columns) : m_name(std::move(name)), m_columns(std::move(columns)) {}
    virtual ~Table() = default;
    const std::string& name() const { return m_name; }
    const std::vector<Column>& columns() const { return m_columns; }
    int columnIndex(std::string_view name) const;

    // A full scan unless a table knows better.
    virtual Plan plan(const std::vector<Constraint>& offered) const;
    // The same with the order the statement wants its rows in: a table that yields them so
    // says how in Plan::order (SQLite then sorts nothing).
    virtual Plan orderedPlan(const std::vector<Constraint>& offered, const std::vector<OrderBy>& order,
                             Ordering ordering) const
    {
        (void)order, (void)ordering;
        return plan(offered);
    }
    // About how many rows a full scan yields, for the plans.
    virtual double rowEstimate() const = 0;
    virtual std::unique_ptr<Cursor> open() const = 0;

    // Rows its cursors have yielded so far, scanned or looked up (any thread reads it: a
    // query's progress table by table).
    uint64_t rowsYielded() const { return m_yielded.load(std::memory_order_relaxed); }
    void countYielded(uint64_t rows) const { m_yielded.fetch_add(rows, std::memory_order_relaxed); }

private:
    std::string m_name;
    std::vector<Column> m_columns;
    mutable std::atomic<uint64_t> m_yielded{0};
};

// Whether `column` is among `columns` (Cursor::useColumns's bits).
inline bool columnUsed(uint64_t columns, int column)
{
    return column >= 63 ? (columns >> 63) & 1 : (columns >> column) & 1;
}
inline bool Cursor::used(int column) const
{
    return columnUsed(m_used, column);
}

// The plan of a table that narrows its rows by some columns: equality on `pushed`, any
// comparison on `ranged`; an equality on `key` names one row, another leaves `eqFraction` of
// the `rows`, a range 0.3.
Plan narrowingPlan(const std::vector<Constraint>& offered, const std::vector<int>& pushed,
                   const std::vector<int>& ranged, int key, double rows, double eqFraction);

// The narrowest [low, high] the bounds on `column` allow (inclusive; Eq sets both).
struct Range {
    int64_t low = INT64_MIN, high = INT64_MAX;
    bool empty() const { return low > high; }
};
Range rangeOf(const std::vector<Bound>& bounds, int column);

} // namespace ringside::sql
