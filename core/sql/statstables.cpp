// SPDX-License-Identifier: GPL-2.0-or-later
#include "sql/statstables.h"

#include "sql/analysistables.h"
#include "trace.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <optional>

namespace ringside::sql {

namespace statsrows {

using T = ColumnType;
// A plugin's statistics table: typed columns; a task as its utid, an event as its time and
// id (`<key>` and `<key>_id`), counts per name as "ENOENT 3, EAGAIN 1".
std::vector<Column> statsColumns(const StatsTable& table)
{
    std::vector<Column> columns;
    for (const StatsTable::Column& c : table.columns) {
        using K = StatsTable::Kind;
        const bool texts = c.kind == K::Text || c.kind == K::Label || c.kind == K::Counts;
        // A task is its utid, to join with thread.
        const std::string name = c.kind != K::Task ? identifier(c.key)
                                 : c.key == "task" ? "utid"
                                                   : identifier(c.key) + "_utid";
        columns.push_back({name, c.kind == K::Real ? T::Real : texts ? T::Text : T::Integer});
        if (c.kind == K::Event) columns.push_back({identifier(c.key) + "_id", T::Integer});
    }
    return columns;
}

// A plugin's statistics table, a chunk of rows at a time (524k failures on 25.65M events were
// made into cells all at once), and only the columns the statement reads (an event's time and
// row are looked up in the store).
// `listed`: only these rows, in this order (an `_id` column's lookup).
class StatsSource : public RowSource {
public:
    StatsSource(const EventStore& store, std::shared_ptr<const std::vector<StatsTable>> tables, size_t index,
                std::optional<std::vector<uint32_t>> listed = std::nullopt)
        : m_store(store), m_tables(std::move(tables)), m_index(index), m_listed(std::move(listed))
    {}
    void useColumns(uint64_t columns) override { m_used = columns; }
    bool fill(std::vector<Value>& cells, size_t rows) override
    {
        if (!m_tables || m_index >= m_tables->size()) return false;
        const StatsTable& table = (*m_tables)[m_index];
        const size_t count = m_listed ? m_listed->size() : table.rows();
        const size_t end = std::min(count, m_row + rows);
        for (; m_row < end; ++m_row) {
            const size_t row = m_listed ? (*m_listed)[m_row] : m_row;
            int column = 0;
            for (const StatsTable::Column& c : table.columns) add(cells, c, row, column);
        }
        return m_row < count;
    }

private:
    bool used(int column) const { return columnUsed(m_used, column); }
    void add(std::vector<Value>& cells, const StatsTable::Column& c, size_t row, int& column)
    {
        using K = StatsTable::Kind;
        const bool known = c.kind != K::Real && c.kind != K::Text && c.kind != K::Counts && row < c.numbers.size() &&
                           c.numbers[row] != StatsTable::kUnknown;
        if (c.kind == K::Event) {
            const bool wanted = used(column) || used(column + 1);
            const EventRef e = known && wanted ? StatsTable::eventOf(c.numbers[row]) : EventRef();
            const bool stored = e.valid() && e.stream.value < m_store.streamCount() &&
                                e.index < m_store.stream(e.stream).columns.size();
            cells.push_back(stored && used(column) ? Value::ofInteger(int64_t(m_store.timestamp(e))) : Value());
            cells.push_back(stored && used(column + 1) ? Value::ofInteger(int64_t(m_store.rowOf(e))) : Value());
            column += 2;
            return;
        }
        if (!used(column++)) {
            cells.push_back(Value());
            return;
        }
        switch (c.kind) {
        case K::Real: cells.push_back(row < c.reals.size() ? Value::ofReal(c.reals[row]) : Value()); break;
        case K::Text: cells.push_back(row < c.texts.size() ? Value::ofText(c.texts[row]) : Value()); break;
        case K::Label: cells.push_back(known ? Value::ofText(StatsTable::labelOf(c, row)) : Value()); break;
        case K::Counts: {
            std::string counts;
            if (row < c.counts.size())
                for (const auto& [what, n] : c.counts[row])
                    counts += (counts.empty() ? "" : ", ") + what + " " + std::to_string(n);
            cells.push_back(Value::ofText(counts));
            break;
        }
        default: cells.push_back(known ? Value::ofInteger(c.numbers[row]) : Value()); break;
        }
    }

    const EventStore& m_store;
    std::shared_ptr<const std::vector<StatsTable>> m_tables;
    size_t m_index;
    std::optional<std::vector<uint32_t>> m_listed;
    size_t m_row = 0;
    uint64_t m_used = ~uint64_t(0);
};

// A statistics table's rows by the event id of one of its event columns (`at_id`), made on
// first use for the statistics it was asked of and kept while they are the plugin's: a join
// from the events to, say, the failures reads the failures of each event, not all of them.
class StatsIdIndex {
public:
    // The rows whose event column `column` (of the StatsTable) is the store's row `id`.
    std::vector<uint32_t> rowsWith(const EventStore& store,
                                   const std::shared_ptr<const std::vector<StatsTable>>& tables, size_t index,
                                   size_t column, int64_t id)
    {
        const std::lock_guard lock(m_lock);
        if (m_tables != tables) m_tables = tables, m_ids.clear();
        auto [it, added] = m_ids.try_emplace(column);
        std::vector<std::pair<int64_t, uint32_t>>& ids = it->second;
        if (added) {
            const StatsTable::Column& c = (*tables)[index].columns[column];
            for (size_t row = 0; row < c.numbers.size(); ++row) {
                if (c.numbers[row] == StatsTable::kUnknown) continue;
                const EventRef e = StatsTable::eventOf(c.numbers[row]);
                if (!e.valid() || e.stream.value >= store.streamCount() ||
                    e.index >= store.stream(e.stream).columns.size())
                    continue;
                ids.emplace_back(int64_t(store.rowOf(e)), uint32_t(row));
            }
            std::sort(ids.begin(), ids.end());
        }
        std::vector<uint32_t> rows;
        for (auto at = std::lower_bound(ids.begin(), ids.end(), std::pair<int64_t, uint32_t>(id, 0));
             at != ids.end() && at->first == id; ++at)
            rows.push_back(at->second);
        return rows;
    }

private:
    std::mutex m_lock;
    std::shared_ptr<const std::vector<StatsTable>> m_tables;           // the statistics the ids are of
    std::map<size_t, std::vector<std::pair<int64_t, uint32_t>>> m_ids; // by column: (row id, table row)
};

} // namespace statsrows

std::unique_ptr<Table> makeStatsTable(SqlContext& context, const Plugin& plugin, size_t index, std::string name,
                                      const StatsTable& shape)
{
    // The SQL columns of the events' ids (`<key>_id`), with their StatsTable columns.
    std::vector<int> idColumns;
    std::vector<std::pair<int, size_t>> ids;
    int column = 0;
    for (size_t c = 0; c < shape.columns.size(); ++c, ++column)
        if (shape.columns[c].kind == StatsTable::Kind::Event) {
            ids.emplace_back(++column, c);
            idColumns.push_back(column);
        }
    auto idIndex = std::make_shared<statsrows::StatsIdIndex>();
    return std::make_unique<SourceTable>(
        std::move(name), statsrows::statsColumns(shape),
        [&context, &plugin, index] {
            const auto tables = context.trace().statistics(plugin);
            return tables && index < tables->size() ? double((*tables)[index].rows()) : 0.0;
        },
        [&context, &plugin, index, ids, idIndex](const std::vector<Bound>& bounds) {
            auto tables = context.trace().statistics(plugin);
            for (const auto& [sqlColumn, statsColumn] : ids) {
                const Range id = rangeOf(bounds, sqlColumn);
                if (id.empty())
                    return std::make_unique<statsrows::StatsSource>(context.store(), tables, index,
                                                                    std::vector<uint32_t>());
                if (id.low != id.high || !tables || index >= tables->size() ||
                    statsColumn >= (*tables)[index].columns.size())
                    continue;
                std::vector<uint32_t> rows = idIndex->rowsWith(context.store(), tables, index, statsColumn, id.low);
                return std::make_unique<statsrows::StatsSource>(context.store(), std::move(tables), index,
                                                                std::move(rows));
            }
            return std::make_unique<statsrows::StatsSource>(context.store(), std::move(tables), index);
        },
        idColumns);
}

} // namespace ringside::sql
