// SPDX-License-Identifier: GPL-2.0-or-later
#include "sql/spanjoin.h"

#include "sql/sqlmodule.h"
#include "sql/sqltable.h"

#include <sqlite3.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace ringside::sql {

namespace spanrows {

enum class Kind { Inner, Left, Outer };

struct ModuleInfo {
    Kind kind;
    std::function<uint64_t()> end;
};

// One side as the module's argument names it: "sched PARTITIONED cpu".
struct Side {
    std::string table, partition;
    std::vector<std::string> columns; // besides ts, dur and the partition, in the table's order
};

Side parseSide(const std::string& argument)
{
    std::istringstream words(argument);
    std::vector<std::string> w;
    for (std::string word; words >> word;) w.push_back(word);
    Side side;
    if (w.size() == 1) {
        side.table = w[0];
    } else if (w.size() == 3 && sqlite3_stricmp(w[1].c_str(), "partitioned") == 0) {
        side.table = w[0], side.partition = w[2];
    } else {
        throw std::runtime_error("a SPAN_JOIN table is \"name\" or \"name PARTITIONED column\", not \"" + argument +
                                 "\"");
    }
    return side;
}

// The columns of a table or view, by preparing a statement that reads it.
std::vector<std::string> columnsOf(sqlite3* db, const std::string& table)
{
    sqlite3_stmt* stmt = nullptr;
    const std::string sql = "SELECT * FROM " + quotedIdentifier(table) + " LIMIT 0";
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
        const std::string why = sqlite3_errmsg(db);
        sqlite3_finalize(stmt);
        throw std::runtime_error("SPAN_JOIN cannot read " + table + ": " + why);
    }
    std::vector<std::string> names;
    for (int i = 0; i < sqlite3_column_count(stmt); ++i) names.push_back(sqlite3_column_name(stmt, i));
    sqlite3_finalize(stmt);
    return names;
}

Value valueOf(sqlite3_stmt* stmt, int i)
{
    Value v;
    switch (sqlite3_column_type(stmt, i)) {
    case SQLITE_INTEGER: v.kind = Value::Kind::Integer, v.integer = sqlite3_column_int64(stmt, i); break;
    case SQLITE_FLOAT: v.kind = Value::Kind::Real, v.real = sqlite3_column_double(stmt, i); break;
    case SQLITE_TEXT:
        v.kind = Value::Kind::Text;
        v.text.assign(reinterpret_cast<const char*>(sqlite3_column_text(stmt, i)),
                      size_t(sqlite3_column_bytes(stmt, i)));
        break;
    default: break;
    }
    return v;
}

// SQLite's order of the partition values (ORDER BY): NULL, numbers, text.
int compare(const Value& a, const Value& b)
{
    auto rank = [](const Value& v) { return v.kind == Value::Kind::Null ? 0 : v.kind == Value::Kind::Text ? 2 : 1; };
    if (rank(a) != rank(b)) return rank(a) < rank(b) ? -1 : 1;
    if (a.kind == Value::Kind::Text) return a.text.compare(b.text) < 0 ? -1 : a.text == b.text ? 0 : 1;
    const double x = a.kind == Value::Kind::Integer ? double(a.integer) : a.real;
    const double y = b.kind == Value::Kind::Integer ? double(b.integer) : b.real;
    if (a.kind == Value::Kind::Integer && b.kind == Value::Kind::Integer)
        return a.integer < b.integer ? -1 : a.integer == b.integer ? 0 : 1;
    return x < y ? -1 : x == y ? 0 : 1;
}

struct Interval {
    int64_t ts = 0, end = 0;
    std::vector<Value> cells;
};

struct SpanTable {
    sqlite3_vtab base{};
    sqlite3* db = nullptr;
    const ModuleInfo* module = nullptr;
    Side left, right;
    std::string partition; // the output's partition column, or empty
};

// Reads one side in partition order, a partition at a time.
class SideReader {
public:
    SideReader(sqlite3* db, const Side& side, std::function<uint64_t()> end) : m_partitioned(!side.partition.empty())
    {
        std::string sql = "SELECT ts, dur, " + (m_partitioned ? quotedIdentifier(side.partition) : std::string("NULL"));
        for (const std::string& c : side.columns) sql += ", " + quotedIdentifier(c);
        sql += " FROM " + quotedIdentifier(side.table) + " ORDER BY " +
               (m_partitioned ? quotedIdentifier(side.partition) + ", " : std::string()) + "ts";
        if (sqlite3_prepare_v2(db, sql.c_str(), -1, &m_stmt, nullptr) != SQLITE_OK)
            throw std::runtime_error("SPAN_JOIN cannot read " + side.table + ": " + sqlite3_errmsg(db));
        m_db = db;
        m_end = std::move(end);
        m_width = side.columns.size();
        step();
    }
    ~SideReader() { sqlite3_finalize(m_stmt); }
    SideReader(const SideReader&) = delete;
    SideReader& operator=(const SideReader&) = delete;

    bool done() const { return !m_pending; }
    const Value& partition() const { return m_pendingKey; }
    // The rows of the next partition (all of them for a side without one).
    std::vector<Interval> take()
    {
        std::vector<Interval> rows;
        const Value key = m_pendingKey;
        while (m_pending && (!m_partitioned || compare(m_pendingKey, key) == 0)) {
            rows.push_back(std::move(*m_pending));
            step();
        }
        return rows;
    }

private:
    void step()
    {
        m_pending.reset();
        for (;;) {
            const int rc = sqlite3_step(m_stmt);
            if (rc == SQLITE_DONE) return;
            if (rc != SQLITE_ROW) throw std::runtime_error(std::string("SPAN_JOIN: ") + sqlite3_errmsg(m_db));
            if (sqlite3_column_type(m_stmt, 0) == SQLITE_NULL || sqlite3_column_type(m_stmt, 1) == SQLITE_NULL)
                continue; // no time: in no stretch
            Interval row;
            row.ts = sqlite3_column_int64(m_stmt, 0);
            const int64_t dur = sqlite3_column_int64(m_stmt, 1);
            row.end = dur >= 0 ? row.ts + dur : std::max<int64_t>(row.ts, int64_t(m_end()));
            m_pendingKey = valueOf(m_stmt, 2);
            for (size_t c = 0; c < m_width; ++c) row.cells.push_back(valueOf(m_stmt, int(c) + 3));
            m_pending = std::move(row);
            return;
        }
    }

    sqlite3* m_db = nullptr;
    sqlite3_stmt* m_stmt = nullptr;
    bool m_partitioned;
    size_t m_width = 0;
    std::function<uint64_t()> m_end;
    std::optional<Interval> m_pending;
    Value m_pendingKey;
};

struct SpanCursor {
    sqlite3_vtab_cursor base{};
    std::unique_ptr<SideReader> left, right;
    std::vector<Interval> leftAll, rightAll; // a side without a partition, read once
    std::vector<std::vector<Value>> rows;    // the current partition's output
    size_t at = 0;
    int64_t rowid = 0;
};

// The stretches of one partition: each elementary stretch between the two sides' boundaries
// with the row of each side that holds there (if any), joined with its neighbour when both
// rows are the same.
void spans(Kind kind, const Value* key, const std::vector<Interval>& a, const std::vector<Interval>& b, size_t widthA,
           size_t widthB, std::vector<std::vector<Value>>& out)
{
    std::vector<int64_t> cuts;
    for (const auto* side : {&a, &b})
        for (const Interval& i : *side) cuts.push_back(i.ts), cuts.push_back(i.end);
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    size_t ia = 0, ib = 0;
    const size_t none = SIZE_MAX;
    size_t lastA = none, lastB = none;
    bool open = false;
    for (size_t k = 0; k + 1 < cuts.size(); ++k) {
        const int64_t from = cuts[k], to = cuts[k + 1];
        while (ia < a.size() && a[ia].end <= from) ++ia;
        while (ib < b.size() && b[ib].end <= from) ++ib;
        const size_t ra = ia < a.size() && a[ia].ts <= from ? ia : none;
        const size_t rb = ib < b.size() && b[ib].ts <= from ? ib : none;
        const bool wanted = kind == Kind::Inner  ? ra != none && rb != none
                            : kind == Kind::Left ? ra != none
                                                 : ra != none || rb != none;
        if (!wanted) {
            open = false;
            continue;
        }
        if (open && ra == lastA && rb == lastB && out.back()[0].integer + out.back()[1].integer == from) {
            out.back()[1].integer += to - from;
            continue;
        }
        std::vector<Value> row;
        Value ts, dur;
        ts.kind = dur.kind = Value::Kind::Integer;
        ts.integer = from, dur.integer = to - from;
        row.push_back(ts);
        row.push_back(dur);
        if (key) row.push_back(*key);
        for (size_t c = 0; c < widthA; ++c) row.push_back(ra != none ? a[ra].cells[c] : Value());
        for (size_t c = 0; c < widthB; ++c) row.push_back(rb != none ? b[rb].cells[c] : Value());
        out.push_back(std::move(row));
        lastA = ra, lastB = rb, open = true;
    }
}

// Fills the cursor's rows with the next partition that yields any; false when none is left.
bool nextPartition(const SpanTable& table, SpanCursor& c)
{
    const Kind kind = table.module->kind;
    const size_t widthA = table.left.columns.size(), widthB = table.right.columns.size();
    const bool partA = !table.left.partition.empty(), partB = !table.right.partition.empty();
    c.rows.clear();
    c.at = 0;
    while (c.rows.empty()) {
        if (partA && partB) {
            if (c.left->done() && c.right->done()) return false;
            int order = c.left->done() ? 1 : c.right->done() ? -1 : compare(c.left->partition(), c.right->partition());
            if (order == 0) {
                const Value key = c.left->partition();
                const auto a = c.left->take(), b = c.right->take();
                spans(kind, &key, a, b, widthA, widthB, c.rows);
            } else if (order < 0) {
                const Value key = c.left->partition();
                const auto a = c.left->take();
                if (kind != Kind::Inner) spans(kind, &key, a, {}, widthA, widthB, c.rows);
            } else {
                const Value key = c.right->partition();
                const auto b = c.right->take();
                if (kind == Kind::Outer) spans(kind, &key, {}, b, widthA, widthB, c.rows);
            }
        } else if (partA || partB) {
            SideReader& reader = partA ? *c.left : *c.right;
            if (reader.done()) return false;
            const Value key = reader.partition();
            const auto rows = reader.take();
            if (partA)
                spans(kind, &key, rows, c.rightAll, widthA, widthB, c.rows);
            else
                spans(kind, &key, c.leftAll, rows, widthA, widthB, c.rows);
        } else {
            if (c.left->done() && c.leftAll.empty() && c.rightAll.empty()) return false;
            spans(kind, nullptr, c.leftAll, c.rightAll, widthA, widthB, c.rows);
            c.leftAll.clear(), c.rightAll.clear();
            if (c.rows.empty()) return false;
        }
    }
    return true;
}

int connect(sqlite3* db, void* aux, int argc, const char* const* argv, sqlite3_vtab** out, char** error)
{
    try {
        if (argc != 5) throw std::runtime_error("SPAN_JOIN takes two tables: SPAN_JOIN(a PARTITIONED cpu, b)");
        auto table = std::make_unique<SpanTable>();
        table->db = db;
        table->module = static_cast<const ModuleInfo*>(aux);
        table->left = parseSide(argv[3]);
        table->right = parseSide(argv[4]);
        if (!table->left.partition.empty() && !table->right.partition.empty() &&
            table->left.partition != table->right.partition)
            throw std::runtime_error("SPAN_JOIN's tables are partitioned by different columns (" +
                                     table->left.partition + ", " + table->right.partition + ")");
        table->partition = !table->left.partition.empty() ? table->left.partition : table->right.partition;
        std::set<std::string> names = {"ts", "dur"};
        if (!table->partition.empty()) names.insert(table->partition);
        std::string schema = "CREATE TABLE x(ts INTEGER, dur INTEGER";
        if (!table->partition.empty()) schema += ", " + quotedIdentifier(table->partition);
        for (Side* side : {&table->left, &table->right}) {
            const std::vector<std::string> columns = columnsOf(db, side->table);
            const auto has = [&](const std::string& name) {
                return std::find(columns.begin(), columns.end(), name) != columns.end();
            };
            if (!has("ts") || !has("dur")) throw std::runtime_error("SPAN_JOIN: " + side->table + " has no ts and dur");
            if (!side->partition.empty() && !has(side->partition))
                throw std::runtime_error("SPAN_JOIN: " + side->table + " has no column " + side->partition);
            for (const std::string& name : columns) {
                if (name == "ts" || name == "dur" || name == side->partition) continue;
                if (name == table->partition)
                    throw std::runtime_error("SPAN_JOIN: " + side->table + " has a column " + name +
                                             " but is not partitioned by it");
                if (!names.insert(name).second)
                    throw std::runtime_error("SPAN_JOIN: both tables have a column " + name +
                                             " (select the columns you want in a CREATE TEMP VIEW first)");
                side->columns.push_back(name);
                schema += ", " + quotedIdentifier(name);
            }
        }
        schema += ")";
        const int declared = declareTable(db, schema);
        if (declared != SQLITE_OK) throw std::runtime_error(std::string("SPAN_JOIN: ") + sqlite3_errmsg(db));
        *out = &table.release()->base;
        return SQLITE_OK;
    } catch (const std::exception& e) {
        *error = sqlite3_mprintf("%s", e.what());
        return SQLITE_ERROR;
    }
}

int disconnect(sqlite3_vtab* vtab)
{
    delete reinterpret_cast<SpanTable*>(vtab);
    return SQLITE_OK;
}

int bestIndex(sqlite3_vtab*, sqlite3_index_info* info)
{
    info->estimatedCost = 1e6;
    return SQLITE_OK;
}

int openCursor(sqlite3_vtab*, sqlite3_vtab_cursor** out)
{
    *out = &(new SpanCursor)->base;
    return SQLITE_OK;
}

int closeCursor(sqlite3_vtab_cursor* cursor)
{
    delete reinterpret_cast<SpanCursor*>(cursor);
    return SQLITE_OK;
}

int filter(sqlite3_vtab_cursor* base, int, const char*, int, sqlite3_value**)
{
    auto* c = reinterpret_cast<SpanCursor*>(base);
    const auto& table = *reinterpret_cast<const SpanTable*>(base->pVtab);
    return guarded(base->pVtab, [&] {
        c->rows.clear();
        c->at = 0;
        c->rowid = 0;
        c->left = std::make_unique<SideReader>(table.db, table.left, table.module->end);
        c->right = std::make_unique<SideReader>(table.db, table.right, table.module->end);
        c->leftAll = table.left.partition.empty() ? c->left->take() : std::vector<Interval>();
        c->rightAll = table.right.partition.empty() ? c->right->take() : std::vector<Interval>();
        nextPartition(table, *c);
    });
}

int next(sqlite3_vtab_cursor* base)
{
    auto* c = reinterpret_cast<SpanCursor*>(base);
    const auto& table = *reinterpret_cast<const SpanTable*>(base->pVtab);
    return guarded(base->pVtab, [&] {
        ++c->rowid;
        if (++c->at >= c->rows.size()) nextPartition(table, *c);
    });
}

int eof(sqlite3_vtab_cursor* base)
{
    const auto* c = reinterpret_cast<SpanCursor*>(base);
    return c->at >= c->rows.size();
}

int column(sqlite3_vtab_cursor* base, sqlite3_context* context, int i)
{
    const auto* c = reinterpret_cast<SpanCursor*>(base);
    SqliteCell out(context);
    out.write(c->rows[c->at][size_t(i)]);
    return SQLITE_OK;
}

int rowId(sqlite3_vtab_cursor* base, sqlite3_int64* out)
{
    *out = reinterpret_cast<SpanCursor*>(base)->rowid;
    return SQLITE_OK;
}

const sqlite3_module kModule =
    readOnlyModule({connect, bestIndex, disconnect, openCursor, closeCursor, filter, next, eof, column, rowId});

} // namespace spanrows

int registerSpanJoin(sqlite3* db, std::function<uint64_t()> end)
{
    using spanrows::Kind, spanrows::ModuleInfo;
    int rc = SQLITE_OK;
    for (const auto& [name, kind] : {std::pair{"span_join", Kind::Inner}, std::pair{"span_left_join", Kind::Left},
                                     std::pair{"span_outer_join", Kind::Outer}}) {
        auto* info = new ModuleInfo{kind, end};
        const int added = sqlite3_create_module_v2(db, name, &spanrows::kModule, info,
                                                   [](void* p) { delete static_cast<ModuleInfo*>(p); });
        if (added != SQLITE_OK) rc = added;
    }
    return rc;
}

} // namespace ringside::sql
