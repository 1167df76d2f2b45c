// SPDX-License-Identifier: GPL-2.0-or-later
#include "sql/recordingsql.h"

#include "latency/pairspec.h"
#include "sql/analysistables.h"
#include "sql/eventpairstable.h"
#include "sql/eventtables.h"
#include "sql/spanjoin.h"
#include "sql/sqlcontext.h"
#include "trace.h"

#include <sqlite3.h>
#include <traceevent/event-parse.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <string_view>

namespace ringside::sql {

namespace {

// Every event format the recording's file holds, parsed or not.
std::vector<std::string> formatNames(const Trace& trace)
{
    std::vector<std::string> names;
    {
        const TepAccess tep = trace.tep();
        if (tep_event** events = tep.get() ? tep_list_events(tep, TEP_EVENT_SORT_ID) : nullptr)
            for (; *events; ++events)
                if ((*events)->name) names.emplace_back((*events)->name);
    }
    const auto& unused = trace.file().formatsWithoutEvents();
    names.insert(names.end(), unused.begin(), unused.end());
    return names;
}

} // namespace

Result<std::unique_ptr<RecordingSql>> RecordingSql::open(const Trace& trace)
{
    const std::string& path = trace.file().path();
    std::string error;
    std::unique_ptr<ReportWorker> decoder = ReportWorker::create(trace, true, &error);
    if (!decoder) return Error{path + ": cannot decode its events for SQL: " + error};
    std::unique_ptr<RecordingSql> sql(new RecordingSql);
    sql->m_trace = &trace;
    sql->m_context = std::make_unique<SqlContext>(trace, std::move(decoder), sql->m_rowsRead);
    if (sqlite3_open_v2(":memory:", &sql->m_db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK)
        return Error{path + ": cannot make an SQL database: " +
                     (sql->m_db ? sqlite3_errmsg(sql->m_db) : std::string("out of memory"))};
    registerModule(sql->m_db, *sql);
    const EventStore* store = &trace.store();
    registerSpanJoin(sql->m_db, [store] { return store->lastTimestamp(); });
    registerEventPairs(sql->m_db, trace, &sql->m_interrupt);
    registerEventFunctions(sql->m_db, *sql->m_context);

    std::vector<std::string> names;
    for (auto& table : makeEventTables(*sql->m_context)) {
        names.push_back(table->name());
        const bool all = table->name() == "ftrace_event";
        sql->addTable(std::move(table), all ? "events" : "event type");
    }
    for (NamedTable& named : makeAnalysisTables(*sql->m_context, names))
        sql->addTable(std::move(named.table), std::move(named.kind));
    for (const TableInfo& info : sql->m_info) {
        const std::string create = "CREATE VIRTUAL TABLE " + quotedIdentifier(info.name) + " USING ringside";
        char* message = nullptr;
        if (sqlite3_exec(sql->m_db, create.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
            const std::string why = message ? message : "unknown error";
            sqlite3_free(message);
            return Error{path + ": cannot make SQL table " + info.name + ": " + why};
        }
    }
    // Perfetto's older name of ftrace_event, a view (its constraints reach the table).
    if (const TableInfo* events = sql->table("ftrace_event"); events && !sql->table("raw")) {
        char* message = nullptr;
        if (sqlite3_exec(sql->m_db, "CREATE VIEW raw AS SELECT * FROM ftrace_event", nullptr, nullptr, &message) !=
            SQLITE_OK) {
            const std::string why = message ? message : "unknown error";
            sqlite3_free(message);
            return Error{path + ": cannot make SQL view raw: " + why};
        }
        sql->m_info.push_back({"raw", "ftrace_event under Perfetto's older name", events->columns});
    }
    using T = ColumnType;
    const std::vector<Column> pairColumns = {{"ts", T::Integer},       {"dur", T::Integer},   {"end_ts", T::Integer},
                                             {"key", T::Text},         {"utid", T::Integer},  {"cpu", T::Integer},
                                             {"start_id", T::Integer}, {"end_id", T::Integer}};
    sql->m_info.push_back({"event_pairs",
                           "latency pairs: event_pairs('irq'), event_pairs(start, end, 'match', 'task,cpu,nesting')",
                           pairColumns});
    // A view per latency preset whose two events the recording has: latency_irq, latency_syscall...
    std::set<std::string> recorded;
    for (const Trace::EventFormatNames& f : trace.recordedFormats()) recorded.insert(f.system + "/" + f.name);
    for (const std::string& preset : presetPairNames()) {
        const PairSpec spec = *presetPair(preset);
        const std::string name = "latency_" + preset;
        if (!recorded.count(spec.from) || !recorded.count(spec.to) || sql->table(name)) continue;
        const std::string create = "CREATE VIEW " + name + " AS SELECT * FROM event_pairs('" + preset + "')";
        char* message = nullptr;
        if (sqlite3_exec(sql->m_db, create.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
            const std::string why = message ? message : "unknown error";
            sqlite3_free(message);
            return Error{path + ": cannot make SQL view " + name + ": " + why};
        }
        sql->m_info.push_back(
            {name, "the " + preset + " latency preset's pairs (event_pairs('" + preset + "'))", pairColumns});
    }
    // From here on a query reads the recording and writes temporary tables at most (a session
    // file received from someone else re-runs its queries): no ATTACH (nor VACUUM INTO, which
    // attaches its file), no schema of the main database, no new virtual tables, only the
    // pragmas that read.
    sqlite3_limit(sql->m_db, SQLITE_LIMIT_ATTACHED, 0);
    sqlite3_db_config(sql->m_db, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
    sqlite3_db_config(sql->m_db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, nullptr);
    sqlite3_set_authorizer(sql->m_db, &RecordingSql::authorize, sql.get());
    const std::set<std::string> present(names.begin(), names.end());
    for (std::string& name : formatNames(trace))
        if (!present.count(name)) sql->m_emptyEventTypes.push_back(std::move(name));
    std::sort(sql->m_emptyEventTypes.begin(), sql->m_emptyEventTypes.end());
    return sql;
}

std::string RecordingSql::latencyViewName(const std::string& analysis)
{
    std::string name = "latency_";
    bool gap = false;
    for (const char c : analysis) {
        if (std::isalnum(static_cast<unsigned char>(c))) {
            if (gap && name.back() != '_') name += '_';
            name += char(std::tolower(static_cast<unsigned char>(c)));
            gap = false;
        } else {
            gap = true;
        }
    }
    return name;
}

void RecordingSql::setLatencyViews(const std::vector<PairSpec>& analyses)
{
    if (analyses == m_latencyAnalyses) return;
    auto exec = [this](const std::string& statement) {
        return sqlite3_exec(m_db, statement.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK;
    };
    for (const std::string& view : m_latencyViews) {
        exec("DROP VIEW IF EXISTS temp." + view);
        m_info.erase(std::remove_if(m_info.begin(), m_info.end(), [&](const TableInfo& t) { return t.name == view; }),
                     m_info.end());
    }
    m_latencyViews.clear();
    m_latencyAnalyses = analyses;
    const TableInfo* pairs = table("event_pairs");
    for (const PairSpec& spec : analyses) {
        if (presetPair(spec.name) == spec) continue; // latency_<preset> already
        std::string name = latencyViewName(spec.name);
        for (int n = 2; table(name); ++n) name = latencyViewName(spec.name) + "_" + std::to_string(n);
        const std::string call = eventPairsCall(spec);
        // A view the recording cannot make (an event it lacks) is said when it is read.
        if (!exec("CREATE TEMP VIEW " + name + " AS SELECT * FROM " + call)) continue;
        m_latencyViews.push_back(name);
        m_info.push_back({name, "the window's latency analysis " + spec.name + " (" + call + ")",
                          pairs ? pairs->columns : std::vector<Column>()});
    }
}

void RecordingSql::setExtraTables(std::vector<std::shared_ptr<const AnalysisTables>> tables)
{
    m_context->setExtraTables(std::move(tables));
}

RecordingSql::~RecordingSql()
{
    sqlite3_close_v2(m_db);
}

void RecordingSql::addTable(std::unique_ptr<Table> table, std::string kind)
{
    m_info.push_back({table->name(), std::move(kind), table->columns()});
    m_tables.emplace(table->name(), std::move(table));
}

std::vector<std::pair<std::string_view, uint64_t>> RecordingSql::rowsYieldedByTable() const
{
    std::vector<std::pair<std::string_view, uint64_t>> counts;
    for (const auto& [name, table] : m_tables) counts.emplace_back(name, table->rowsYielded());
    return counts;
}

const Table* RecordingSql::find(const std::string& name) const
{
    auto it = m_tables.find(name);
    return it == m_tables.end() ? nullptr : it->second.get();
}

const TableInfo* RecordingSql::table(const std::string& name) const
{
    auto it = std::find_if(m_info.begin(), m_info.end(), [&](const TableInfo& t) { return t.name == name; });
    return it == m_info.end() ? nullptr : &*it;
}

std::string RecordingSql::schemaOf(const TableInfo& table)
{
    std::string out = "CREATE TABLE " + table.name + " (";
    for (size_t i = 0; i < table.columns.size(); ++i) {
        const Column& c = table.columns[i];
        out += (i ? ", " : "") + c.name +
               (c.type == ColumnType::Integer ? " INTEGER"
                : c.type == ColumnType::Real  ? " REAL"
                                              : " TEXT");
    }
    return out + "); -- " + table.kind;
}

bool RecordingSql::complete(const std::string& sql)
{
    return sqlite3_complete(sql.c_str()) != 0;
}

int RecordingSql::authorize(void* self, int action, const char* what, const char* detail, const char* database,
                            const char*)
{
    // A recording's table connected again (after a statement reset the schema): its columns,
    // declared by the module.
    if (declaringTable()) return SQLITE_OK;
    auto* sql = static_cast<RecordingSql*>(self);
    const std::string_view db = database ? database : "";
    auto refuse = [&](std::string why) {
        if (sql->m_refused.empty()) sql->m_refused = std::move(why);
        return SQLITE_DENY;
    };
    static constexpr const char* kSpanJoinModules[] = {"span_join", "span_left_join", "span_outer_join"};
    static const std::set<std::string_view> readingPragmas = {
        "table_info",  "table_xinfo", "table_list",    "index_list",     "index_info",      "index_xinfo",
        "pragma_list", "module_list", "function_list", "collation_list", "compile_options", "database_list"};
    switch (action) {
    case SQLITE_ATTACH:
    case SQLITE_DETACH:
        return refuse("ATTACH, DETACH and VACUUM INTO are refused: a query reads this recording and reaches no "
                      "other database or file");
    case SQLITE_CREATE_VTABLE:
    case SQLITE_DROP_VTABLE:
        // Perfetto's SPAN_JOIN tables (made of other tables, holding nothing of their own); a
        // DROP TABLE of one then deletes its rows, which are none.
        if (detail && std::any_of(std::begin(kSpanJoinModules), std::end(kSpanJoinModules),
                                  [&](const char* m) { return sqlite3_stricmp(detail, m) == 0; })) {
            if (action == SQLITE_DROP_VTABLE && what) sql->m_droppedSpanJoin = what;
            return SQLITE_OK;
        }
        return refuse("the recording's tables are fixed: no virtual table is made or dropped by a query, but "
                      "SPAN_JOIN, SPAN_LEFT_JOIN and SPAN_OUTER_JOIN");
    case SQLITE_PRAGMA:
        if (what && readingPragmas.count(what)) return SQLITE_OK;
        return refuse(std::string("PRAGMA ") + (what ? what : "") +
                      " is refused: only the pragmas that read the schema run (table_info, table_list, ...)");
    case SQLITE_FUNCTION:
        if (detail && std::string_view(detail) == "load_extension")
            return refuse("load_extension is refused: a query runs no code from a file");
        return SQLITE_OK;
    case SQLITE_CREATE_VIEW:
    case SQLITE_DROP_VIEW:
        // A view holds no rows and the main database is in memory: Perfetto's documented
        // queries make views (CREATE VIEW freq_view AS ...). Ringside's own (raw) stays.
        if (action == SQLITE_DROP_VIEW && what && sqlite3_stricmp(what, "raw") == 0 && db == "main")
            return refuse("the view raw is the recording's (Perfetto's name of ftrace_event): it is not dropped");
        if (action == SQLITE_DROP_VIEW && what) sql->m_droppedView = what;
        return SQLITE_OK;
    case SQLITE_CREATE_TABLE:
    case SQLITE_CREATE_INDEX:
    case SQLITE_CREATE_TRIGGER:
    case SQLITE_DROP_TABLE:
    case SQLITE_DROP_INDEX:
    case SQLITE_DROP_TRIGGER:
    case SQLITE_INSERT:
    case SQLITE_UPDATE:
    case SQLITE_DELETE:
        // The schema's own row of a statement that makes or drops something: that statement's
        // code (CREATE_VTABLE, CREATE_TABLE, ...) decides, and defensive mode keeps any other
        // write to the schema out.
        if (what && (std::string_view(what) == "sqlite_master" || std::string_view(what) == "sqlite_schema"))
            return SQLITE_OK;
        if (action == SQLITE_DELETE && what && db == "main" &&
            (what == sql->m_droppedSpanJoin || what == sql->m_droppedView))
            return SQLITE_OK;
        [[fallthrough]];
    case SQLITE_ALTER_TABLE:
    case SQLITE_REINDEX:
    case SQLITE_ANALYZE:
        if (db == "temp") return SQLITE_OK;
        return refuse("only temporary tables can be written (CREATE TEMP TABLE name AS SELECT ...): the "
                      "recording's tables are read-only");
    default: return SQLITE_OK;
    }
}

std::string RecordingSql::explain(const std::string& message) const
{
    // SQLite says "not authorized" for a statement, "authorization denied" for what one runs
    // (VACUUM INTO attaches its file as it runs).
    if (!m_refused.empty() && (message.find("not authorized") != std::string::npos ||
                               message.find("authorization denied") != std::string::npos))
        return m_refused;
    const std::string noTable = "no such table: ";
    if (message.rfind(noTable, 0) == 0) {
        std::string name = message.substr(noTable.size());
        if (const size_t dot = name.rfind('.'); dot != std::string::npos) name = name.substr(dot + 1);
        if (std::binary_search(m_emptyEventTypes.begin(), m_emptyEventTypes.end(), name))
            return message + " (" + m_trace->file().path() + " has the format of " + name +
                   " events but recorded none)";
        return message + " (" + m_trace->file().path() + " has no such event type or analysis; `.tables` lists " +
               std::to_string(m_info.size()) + " tables)";
    }
    return message;
}

namespace {

struct ProgressState {
    RecordingSql* sql = nullptr;
    const RecordingSql::Progress* progress = nullptr;
    const std::atomic<bool>* interrupt = nullptr;
    uint64_t rowsAtStart = 0, total = 0;
};

int onProgress(void* data)
{
    auto* state = static_cast<ProgressState*>(data);
    if (state->progress && *state->progress)
        (*state->progress)(state->sql->rowsYielded() - state->rowsAtStart, state->total);
    return state->interrupt->load(std::memory_order_relaxed) ? 1 : 0;
}

Value valueOf(sqlite3_stmt* statement, int column)
{
    Value v;
    switch (sqlite3_column_type(statement, column)) {
    case SQLITE_INTEGER: v.kind = Value::Kind::Integer, v.integer = sqlite3_column_int64(statement, column); break;
    case SQLITE_FLOAT: v.kind = Value::Kind::Real, v.real = sqlite3_column_double(statement, column); break;
    case SQLITE_NULL: break;
    default: {
        v.kind = Value::Kind::Text;
        const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(statement, column));
        v.text.assign(text ? text : "", size_t(sqlite3_column_bytes(statement, column)));
        break;
    }
    }
    return v;
}

} // namespace

RunOutcome RecordingSql::run(const std::string& sql, ResultSink& sink, const Progress& progress)
{
    m_interrupt.store(false, std::memory_order_relaxed);
    RunOutcome outcome;
    ProgressState state{this, &progress, &m_interrupt, rowsYielded(), m_trace->store().eventCount()};
    sqlite3_progress_handler(m_db, 20000, onProgress, &state);
    const char* begin = sql.c_str();
    const char* at = begin;
    auto fail = [&](int offsetInSql) {
        outcome.ok = false;
        outcome.interrupted = sqlite3_errcode(m_db) == SQLITE_INTERRUPT || m_interrupt.load();
        outcome.message = outcome.interrupted ? "interrupted" : explain(sqlite3_errmsg(m_db));
        outcome.offset = offsetInSql;
    };
    while (*at) {
        sqlite3_stmt* statement = nullptr;
        const char* tail = nullptr;
        m_refused.clear();
        if (sqlite3_prepare_v2(m_db, at, -1, &statement, &tail) != SQLITE_OK) {
            const int offset = sqlite3_error_offset(m_db);
            fail(offset >= 0 ? int(at - begin) + offset : -1);
            break;
        }
        const char* statementStart = at;
        at = tail;
        if (!statement) continue; // only whitespace or a comment was left
        std::vector<std::string> names;
        const int columns = sqlite3_column_count(statement);
        for (int c = 0; c < columns; ++c) names.emplace_back(sqlite3_column_name(statement, c));
        if (columns) sink.columns(names);
        int rc;
        std::vector<Value> row(static_cast<size_t>(columns));
        while ((rc = sqlite3_step(statement)) == SQLITE_ROW) {
            for (int c = 0; c < columns; ++c) row[size_t(c)] = valueOf(statement, c);
            if (!sink.row(row)) {
                rc = SQLITE_DONE;
                break;
            }
        }
        if (rc != SQLITE_DONE) {
            fail(int(statementStart - begin));
            sqlite3_finalize(statement);
            break;
        }
        sqlite3_finalize(statement);
        ++outcome.statements;
    }
    sqlite3_progress_handler(m_db, 0, nullptr, nullptr);
    return outcome;
}

} // namespace ringside::sql
