// SPDX-License-Identifier: GPL-2.0-or-later
#include "timeline/countergroups.h"

namespace ringside {

QString CounterGroup::label() const
{
    if (tables.empty()) return {};
    const QString first = QString::fromStdString(tables.front()->spec().title);
    return tables.size() == 1 ? first : QStringLiteral("%1 +%2").arg(first).arg(tables.size() - 1);
}

std::vector<CounterGroup> counterGroups(const TraceSession& session, RowOwner kind, uint32_t owner, bool shareByUnit,
                                        bool withQueryTracks)
{
    std::vector<CounterGroup> groups;
    if (!session.trace) return groups;
    auto consider = [&](const TrackTable& t) {
        if (t.kind() != TrackTable::Kind::Counters || t.owner() != kind) return;
        const auto& table = static_cast<const CounterTable&>(t);
        if (!table.spec().drawn) return;
        const GrowingList<CounterRow>* rows = table.byOwner().of(owner);
        if (!rows || rows->empty()) return;
        const std::string& unit = table.spec().unit;
        for (CounterGroup& g : groups)
            if (shareByUnit && !unit.empty() && g.tables.front()->spec().unit == unit) {
                g.tables.push_back(&table);
                return;
            }
        groups.push_back({{&table}});
    };
    for (const Trace::Analysis& analysis : session.trace->analyses())
        if (analysis.tables)
            for (const auto& t : analysis.tables->tables()) consider(*t);
    if (withQueryTracks)
        for (const auto& tables : session.queryTracks)
            for (const auto& t : tables->tables()) consider(*t);
    return groups;
}

const TrackTable* queryTrackTable(const TraceSession& session, int index)
{
    const std::string key = "query_" + std::to_string(index);
    for (const auto& tables : session.queryTracks)
        if (const TrackTable* t = tables->find(key)) return t;
    return nullptr;
}

std::vector<const SliceTable*> ownRowSliceTables(const TraceSession& session, RowOwner kind, uint32_t owner)
{
    std::vector<const SliceTable*> out;
    if (!session.trace) return out;
    const EventStore& store = session.store();
    for (const Trace::Analysis& analysis : session.trace->analyses()) {
        if (!analysis.tables) continue;
        for (const auto& t : analysis.tables->tables()) {
            if (t->kind() != TrackTable::Kind::Slices || t->owner() != kind) continue;
            const auto& table = static_cast<const SliceTable&>(*t);
            if (!table.spec().ownRow) continue;
            // Rows the owner holds: its explicit ones, or a CPU's anchored at its stream.
            const GrowingList<SliceRow>* rows = table.explicitRows().of(owner);
            const bool anchored = kind == RowOwner::Cpu && owner < store.streamCount() &&
                                  table.anchored(StreamId(uint16_t(owner))) &&
                                  !table.anchored(StreamId(uint16_t(owner)))->empty();
            if ((rows && !rows->empty()) || anchored) out.push_back(&table);
        }
    }
    return out;
}

} // namespace ringside
