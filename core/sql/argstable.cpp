// SPDX-License-Identifier: GPL-2.0-or-later
#include "sql/argstable.h"

#include <traceevent/event-parse.h>

#include <algorithm>
#include <optional>

namespace ringside::sql {

namespace argrows {

using T = ColumnType;

enum ArgsColumn { kArgSetId, kFlatKey, kKey, kIntValue, kStringValue, kRealValue, kValueType, kDisplayValue };

class ArgsTable : public Table {
public:
    explicit ArgsTable(SqlContext& context)
        : Table("args", {{"arg_set_id", T::Integer},
                         {"flat_key", T::Text},
                         {"key", T::Text},
                         {"int_value", T::Integer},
                         {"string_value", T::Text},
                         {"real_value", T::Real},
                         {"value_type", T::Text},
                         {"display_value", T::Text}}),
          m_context(context)
    {}
    Plan plan(const std::vector<Constraint>& offered) const override
    {
        // An event's fields are a handful of rows; a range of events a share of them.
        Plan plan;
        plan.uses.assign(offered.size(), false);
        double rows = rowEstimate();
        for (size_t i = 0; i < offered.size(); ++i)
            if (offered[i].column == kArgSetId) {
                plan.uses[i] = true;
                rows = offered[i].op == Op::Eq ? std::min(rows, 8.0) : rows * 0.3;
            }
        plan.rows = std::max(1.0, rows);
        plan.cost = plan.rows * 2 + 10;
        return plan;
    }
    // About five fields an event.
    double rowEstimate() const override { return 5.0 * double(m_context.store().eventCount()); }
    std::unique_ptr<Cursor> open() const override;

private:
    friend class ArgsCursor;
    SqlContext& m_context;
};

class ArgsCursor : public Cursor {
public:
    explicit ArgsCursor(const ArgsTable& table) : m_context(table.m_context), m_store(m_context.store()) {}
    ~ArgsCursor() override { m_context.countRows(m_uncounted); }

    void begin(const std::vector<Bound>& bounds) override
    {
        const Range ids = rangeOf(bounds, kArgSetId);
        const int64_t events = int64_t(m_store.eventCount());
        m_row = std::max<int64_t>(ids.low, 0);
        m_end = ids.high < events ? ids.high + 1 : events;
        m_field = 0;
        m_fields = nullptr;
        // One event (a join's lookup) is read where it is; a range walks the order.
        m_walk.reset();
        if (m_row + 1 < m_end) m_walk.emplace(m_store.order(), size_t(m_row));
        settle();
    }
    bool atEnd() const override { return m_row >= m_end; }
    void next() override
    {
        ++m_field;
        settle();
    }
    int64_t rowId() override { return m_row * 1024 + int64_t(m_field); }
    void column(int column, Cell& out) override
    {
        const tep_format_field* field = (*m_fields)[m_field];
        switch (column) {
        case kArgSetId: return out.integer(m_row);
        case kFlatKey:
        case kKey: return out.text(field->name);
        default: break;
        }
        if (!m_read) {
            ValueCell cell;
            m_context.writeField(m_event, field, cell);
            m_value = std::move(cell.value);
            m_read = true;
        }
        const bool integer = m_value.kind == Value::Kind::Integer, text = m_value.kind == Value::Kind::Text;
        switch (column) {
        case kIntValue: return integer ? out.integer(m_value.integer) : out.null();
        case kStringValue: return text ? out.text(m_value.text) : out.null();
        case kRealValue: return m_value.kind == Value::Kind::Real ? out.real(m_value.real) : out.null();
        case kValueType:
            return m_value.kind == Value::Kind::Null ? out.null()
                                                     : out.text(integer ? "int"
                                                                : text  ? "string"
                                                                        : "real");
        case kDisplayValue: return m_value.kind == Value::Kind::Null ? out.null() : out.text(m_value.toString());
        default: return out.null();
        }
    }

private:
    // Moves to the current field of the current event, or to the next event with fields.
    void settle()
    {
        m_read = false;
        while (m_row < m_end) {
            if (!m_fields) {
                if (++m_uncounted == kRowsCountedEvery) m_context.countRows(m_uncounted), m_uncounted = 0;
                m_event = m_walk ? m_walk->event() : m_store.eventAt(size_t(m_row));
                m_fields = &m_context.fieldsOf(m_store.stream(m_event.stream).columns.eventType[m_event.index]);
                m_field = 0;
            }
            if (m_field < m_fields->size()) return;
            m_fields = nullptr;
            ++m_row;
            if (m_walk) m_walk->next();
        }
    }

    SqlContext& m_context;
    const EventStore& m_store;
    std::optional<MergedOrder::Cursor> m_walk;
    int64_t m_row = 0, m_end = 0;
    EventRef m_event;
    const std::vector<tep_format_field*>* m_fields = nullptr;
    size_t m_field = 0;
    bool m_read = false;
    Value m_value;
    uint64_t m_uncounted = 0;
};

std::unique_ptr<Cursor> ArgsTable::open() const
{
    return std::make_unique<ArgsCursor>(*this);
}

} // namespace argrows

std::unique_ptr<Table> makeArgsTable(SqlContext& context)
{
    return std::make_unique<argrows::ArgsTable>(context);
}

} // namespace ringside::sql
