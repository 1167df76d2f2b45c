// SPDX-License-Identifier: GPL-2.0-or-later
// The SQLite virtual table module that serves every Table: SQLite's C interface on one side,
// the tables' plans and cursors on the other.
#include "sql/sqlmodule.h"

#include "sql/sqlcontext.h"

#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

namespace ringside::sql {

void Cell::write(const Value& value)
{
    switch (value.kind) {
    case Value::Kind::Null: return null();
    case Value::Kind::Integer: return integer(value.integer);
    case Value::Kind::Real: return real(value.real);
    case Value::Kind::Text: return text(value.text);
    }
}

void SqliteCell::integer(int64_t value)
{
    sqlite3_result_int64(m_context, value);
}

void SqliteCell::real(double value)
{
    sqlite3_result_double(m_context, value);
}

void SqliteCell::text(std::string_view value)
{
    sqlite3_result_text64(m_context, value.data(), value.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
}

void SqliteCell::staticText(std::string_view value)
{
    sqlite3_result_text64(m_context, value.data(), value.size(), SQLITE_STATIC, SQLITE_UTF8);
}

void SqliteCell::null()
{
    sqlite3_result_null(m_context);
}

std::string Value::toString() const
{
    switch (kind) {
    case Kind::Null: return "";
    case Kind::Integer: return std::to_string(integer);
    case Kind::Real: {
        char buffer[32];
        std::snprintf(buffer, sizeof buffer, "%.15g", real);
        return buffer;
    }
    case Kind::Text: return text;
    }
    return "";
}

int Table::columnIndex(std::string_view name) const
{
    for (size_t i = 0; i < m_columns.size(); ++i)
        if (m_columns[i].name == name) return int(i);
    return -1;
}

Plan Table::plan(const std::vector<Constraint>& offered) const
{
    Plan plan;
    plan.uses.assign(offered.size(), false);
    plan.rows = std::max(1.0, rowEstimate());
    plan.cost = plan.rows * 2 + 10;
    return plan;
}

Plan narrowingPlan(const std::vector<Constraint>& offered, const std::vector<int>& pushed,
                   const std::vector<int>& ranged, int key, double rows, double eqFraction)
{
    Plan plan;
    plan.uses.assign(offered.size(), false);
    double fraction = 1;
    for (size_t i = 0; i < offered.size(); ++i) {
        const Constraint& c = offered[i];
        const bool isRanged = std::count(ranged.begin(), ranged.end(), c.column) > 0;
        const bool isPushed = std::count(pushed.begin(), pushed.end(), c.column) > 0;
        if (isRanged || (isPushed && c.op == Op::Eq)) {
            plan.uses[i] = true;
            fraction *= c.op == Op::Eq && c.column == key ? 0.0 : c.op == Op::Eq ? eqFraction : 0.3;
            if (c.op == Op::Eq && c.column == key) plan.unique = true;
        }
    }
    plan.rows = std::max(1.0, rows * fraction);
    plan.cost = plan.rows * 2 + 10;
    return plan;
}

Range rangeOf(const std::vector<Bound>& bounds, int column)
{
    Range r;
    for (const Bound& b : bounds) {
        if (b.column != column) continue;
        switch (b.op) {
        case Op::Eq: r.low = std::max(r.low, b.value), r.high = std::min(r.high, b.value); break;
        case Op::Gt: r.low = std::max(r.low, b.value == INT64_MAX ? b.value : b.value + 1); break;
        case Op::Ge: r.low = std::max(r.low, b.value); break;
        case Op::Lt: r.high = std::min(r.high, b.value == INT64_MIN ? b.value : b.value - 1); break;
        case Op::Le: r.high = std::min(r.high, b.value); break;
        }
    }
    return r;
}

namespace {

thread_local bool t_declaring = false;

struct VirtualTable {
    sqlite3_vtab base{};
    const Table* table = nullptr;
    const TableRegistry* registry = nullptr;
};

// A plan's idxStr as read: the constraints' columns and operators in argv order, the columns
// read, the order promised.
struct ParsedPlan {
    const char* idxStr = nullptr; // what it was read from (the statement's, alive while it runs)
    std::vector<std::pair<int, Op>> constraints;
    uint64_t columns = ~uint64_t(0);
    int order = 0;
};

struct VirtualCursor {
    sqlite3_vtab_cursor base{};
    std::unique_ptr<Cursor> cursor;
    const TableRegistry* registry = nullptr;
    const Table* table = nullptr;
    // A join's lookups filter millions of times with the same plan: read once, bounds reused.
    ParsedPlan plan;
    std::vector<Bound> bounds;
    uint64_t uncounted = 0; // rows yielded, handed to the registry and the table a batch at a time
    void count(uint64_t rows)
    {
        uncounted += rows;
        if (uncounted >= kRowsCountedEvery) flush();
    }
    void flush()
    {
        registry->countYielded(uncounted);
        table->countYielded(uncounted);
        uncounted = 0;
    }
    ~VirtualCursor()
    {
        if (uncounted) flush();
    }
};

int connect(sqlite3* db, void* aux, int argc, const char* const* argv, sqlite3_vtab** out, char** error)
{
    const auto& tables = *static_cast<const TableRegistry*>(aux);
    const Table* table = argc >= 3 ? tables.find(argv[2]) : nullptr;
    if (!table) {
        *error = sqlite3_mprintf("no table %s over this recording", argc >= 3 ? argv[2] : "?");
        return SQLITE_ERROR;
    }
    std::string schema = "CREATE TABLE x(";
    for (size_t i = 0; i < table->columns().size(); ++i) {
        const Column& c = table->columns()[i];
        schema += (i ? ", " : "") + quotedIdentifier(c.name) +
                  (c.type == ColumnType::Integer ? " INTEGER"
                   : c.type == ColumnType::Real  ? " REAL"
                                                 : " TEXT");
    }
    schema += ")";
    const int declared = declareTable(db, schema);
    if (declared != SQLITE_OK) return declared;
    auto* vtab = new VirtualTable;
    vtab->table = table;
    vtab->registry = &tables;
    *out = &vtab->base;
    return SQLITE_OK;
}

int disconnect(sqlite3_vtab* vtab)
{
    delete reinterpret_cast<VirtualTable*>(vtab);
    return SQLITE_OK;
}

bool opOf(unsigned char sqliteOp, Op& op)
{
    switch (sqliteOp) {
    case SQLITE_INDEX_CONSTRAINT_EQ: op = Op::Eq; return true;
    case SQLITE_INDEX_CONSTRAINT_LT: op = Op::Lt; return true;
    case SQLITE_INDEX_CONSTRAINT_LE: op = Op::Le; return true;
    case SQLITE_INDEX_CONSTRAINT_GT: op = Op::Gt; return true;
    case SQLITE_INDEX_CONSTRAINT_GE: op = Op::Ge; return true;
    default: return false;
    }
}

// The plan travels to xFilter in idxStr: "column:op," for each constraint, in argv order,
// then '|' and the columns the statement reads, in hex, then ';' and the order promised.
int bestIndex(sqlite3_vtab* vtab, sqlite3_index_info* info)
{
    const Table& table = *reinterpret_cast<VirtualTable*>(vtab)->table;
    return guarded(vtab, [&] {
        std::vector<Constraint> offered;
        std::vector<int> which;
        for (int i = 0; i < info->nConstraint; ++i) {
            const auto& c = info->aConstraint[i];
            Op op;
            if (!c.usable || c.iColumn < 0 || !opOf(c.op, op)) continue;
            offered.push_back({c.iColumn, op});
            which.push_back(i);
        }
        std::vector<OrderBy> order;
        for (int i = 0; i < info->nOrderBy; ++i)
            order.push_back({info->aOrderBy[i].iColumn, info->aOrderBy[i].desc != 0});
        // 1: GROUP BY, 2: DISTINCT; 3 (DISTINCT with ORDER BY) and 0 want the order itself.
        const int distinct = sqlite3_vtab_distinct(info);
        const Plan plan =
            table.orderedPlan(offered, order, distinct == 1 || distinct == 2 ? Ordering::Grouped : Ordering::Sorted);
        if (plan.order != 0 && !order.empty()) info->orderByConsumed = 1;
        std::string used;
        int argv = 0;
        for (size_t k = 0; k < offered.size(); ++k) {
            if (k >= plan.uses.size() || !plan.uses[k]) continue;
            info->aConstraintUsage[which[k]].argvIndex = ++argv;
            info->aConstraintUsage[which[k]].omit = 0; // SQLite checks again: a table may scan more
            used += std::to_string(offered[k].column) + ":" + std::to_string(int(offered[k].op)) + ",";
        }
        char columns[24];
        std::snprintf(columns, sizeof columns, "|%llx", static_cast<unsigned long long>(info->colUsed));
        used += columns;
        if (plan.order != 0 && !order.empty()) used += ";" + std::to_string(plan.order);
        info->idxStr = sqlite3_mprintf("%s", used.c_str());
        info->needToFreeIdxStr = 1;
        // SQLite charges no sort to a join whose outer loop is a virtual table scanned in no
        // order (it cannot tell), so two plans of equal loops, one sorting every row and one
        // not, tie (to its rounding): a scan in the order asked is given half the cost and
        // rows, so the tie goes to the plan that sorts nothing (11.6M system calls grouped by
        // their process's name: 2.9 s with the sort, 1.6 s without).
        const double share = info->orderByConsumed ? 0.5 : 1.0;
        info->estimatedCost = plan.cost * share;
        info->estimatedRows = sqlite3_int64(std::max(1.0, plan.rows * share));
        if (plan.unique) info->idxFlags |= SQLITE_INDEX_SCAN_UNIQUE;
    });
}

int openCursor(sqlite3_vtab* vtab, sqlite3_vtab_cursor** out)
{
    const Table& table = *reinterpret_cast<VirtualTable*>(vtab)->table;
    return guarded(vtab, [&] {
        auto* cursor = new VirtualCursor;
        cursor->cursor = table.open();
        cursor->registry = reinterpret_cast<VirtualTable*>(vtab)->registry;
        cursor->table = &table;
        *out = &cursor->base;
    });
}

int closeCursor(sqlite3_vtab_cursor* cursor)
{
    delete reinterpret_cast<VirtualCursor*>(cursor);
    return SQLITE_OK;
}

// A bound the scan may use: integers as they are; a real widened to the integers around it;
// anything else (a text, a NULL) narrows nothing.
bool boundOf(sqlite3_value* value, Op op, int64_t& out)
{
    const int type = sqlite3_value_numeric_type(value);
    if (type == SQLITE_INTEGER) return out = sqlite3_value_int64(value), true;
    if (type != SQLITE_FLOAT) return false;
    const double v = sqlite3_value_double(value);
    if (!std::isfinite(v) || std::fabs(v) > 9.0e18) return false;
    if (op == Op::Eq) return false;
    out = int64_t(op == Op::Lt || op == Op::Le ? std::ceil(v) : std::floor(v));
    return true;
}

ParsedPlan parsePlan(const char* idxStr)
{
    ParsedPlan plan;
    plan.idxStr = idxStr;
    const char* at = idxStr ? idxStr : "";
    char* end = nullptr;
    while (*at && *at != '|') {
        const long column = std::strtol(at, &end, 10);
        if (end == at || *end != ':') break;
        at = end + 1;
        const long op = std::strtol(at, &end, 10);
        if (end == at || *end != ',') break;
        at = end + 1;
        plan.constraints.emplace_back(int(column), Op(op));
    }
    const char* bar = std::strchr(at, '|');
    if (!bar) return plan;
    const unsigned long long columns = std::strtoull(bar + 1, &end, 16);
    if (end != bar + 1) plan.columns = uint64_t(columns);
    if (*end == ';') plan.order = int(std::strtol(end + 1, nullptr, 10));
    return plan;
}

int filter(sqlite3_vtab_cursor* base, int, const char* idxStr, int argc, sqlite3_value** argv)
{
    auto* cursor = reinterpret_cast<VirtualCursor*>(base);
    return guarded(base->pVtab, [&] {
        if (cursor->plan.idxStr != idxStr || !idxStr) cursor->plan = parsePlan(idxStr);
        std::vector<Bound>& bounds = cursor->bounds;
        bounds.clear();
        const auto& constraints = cursor->plan.constraints;
        for (int i = 0; i < argc && size_t(i) < constraints.size(); ++i) {
            Bound b{constraints[size_t(i)].first, constraints[size_t(i)].second, 0};
            // Lt/Le on a widened real keeps its integer above; Gt/Ge the one below.
            if (b.op == Op::Lt && sqlite3_value_numeric_type(argv[i]) == SQLITE_FLOAT) b.op = Op::Le;
            if (b.op == Op::Gt && sqlite3_value_numeric_type(argv[i]) == SQLITE_FLOAT) b.op = Op::Ge;
            if (boundOf(argv[i], b.op, b.value)) bounds.push_back(b);
        }
        cursor->cursor->useColumns(cursor->plan.columns);
        cursor->cursor->orderRows(cursor->plan.order);
        cursor->cursor->begin(bounds);
        if (!cursor->cursor->atEnd()) cursor->count(1);
    });
}

int next(sqlite3_vtab_cursor* base)
{
    auto* cursor = reinterpret_cast<VirtualCursor*>(base);
    return guarded(base->pVtab, [&] {
        cursor->cursor->next();
        if (!cursor->cursor->atEnd()) cursor->count(1);
    });
}

int eof(sqlite3_vtab_cursor* base)
{
    return reinterpret_cast<VirtualCursor*>(base)->cursor->atEnd();
}

int column(sqlite3_vtab_cursor* base, sqlite3_context* context, int i)
{
    auto* cursor = reinterpret_cast<VirtualCursor*>(base);
    return guarded(base->pVtab, [&] {
        SqliteCell out(context);
        cursor->cursor->column(i, out);
    });
}

int rowId(sqlite3_vtab_cursor* base, sqlite3_int64* out)
{
    *out = reinterpret_cast<VirtualCursor*>(base)->cursor->rowId();
    return SQLITE_OK;
}

const sqlite3_module kModule =
    readOnlyModule({connect, bestIndex, disconnect, openCursor, closeCursor, filter, next, eof, column, rowId});

} // namespace

sqlite3_module readOnlyModule(const ReadOnlyMethods& methods)
{
    sqlite3_module m{};
    m.iVersion = 1;
    m.xCreate = methods.eponymousOnly ? nullptr : methods.connect;
    m.xConnect = methods.connect;
    m.xBestIndex = methods.bestIndex;
    m.xDisconnect = methods.disconnect;
    m.xDestroy = methods.disconnect;
    m.xOpen = methods.open;
    m.xClose = methods.close;
    m.xFilter = methods.filter;
    m.xNext = methods.next;
    m.xEof = methods.eof;
    m.xColumn = methods.column;
    m.xRowid = methods.rowId;
    return m;
}

std::string quotedIdentifier(const std::string& name)
{
    std::string out = "\"";
    for (char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

bool declaringTable()
{
    return t_declaring;
}

int failedCall(sqlite3_vtab* vtab)
{
    try {
        throw;
    } catch (const std::bad_alloc&) {
        return SQLITE_NOMEM;
    } catch (const std::exception& e) {
        sqlite3_free(vtab->zErrMsg);
        vtab->zErrMsg = sqlite3_mprintf("%s", e.what());
    } catch (...) {
        sqlite3_free(vtab->zErrMsg);
        vtab->zErrMsg = sqlite3_mprintf("unknown error");
    }
    return SQLITE_ERROR;
}

int declareTable(sqlite3* db, const std::string& schema)
{
    t_declaring = true;
    const int declared = sqlite3_declare_vtab(db, schema.c_str());
    t_declaring = false;
    return declared;
}

int registerModule(sqlite3* db, const TableRegistry& tables)
{
    return sqlite3_create_module_v2(db, "ringside", &kModule, const_cast<TableRegistry*>(&tables), nullptr);
}

} // namespace ringside::sql
