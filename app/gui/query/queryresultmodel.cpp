// SPDX-License-Identifier: GPL-2.0-or-later
#include "query/queryresultmodel.h"

#include "timeline/timelinemath.h"

#include <QBrush>
#include <QLocale>
#include <QPalette>

#include <cstring>

namespace ringside {

int QueryResult::column(const char* name) const
{
    for (size_t i = 0; i < columns.size(); ++i)
        if (strcasecmp(columns[i].c_str(), name) == 0) return int(i);
    return -1;
}

QueryResultModel::Format QueryResultModel::formatOf(const std::string& column)
{
    const QString name = QString::fromStdString(column).toLower();
    if (name == "ts" || name == "ts_end" || name.endsWith("_ts") || name == "at") return Format::Time;
    if (name == "dur" || name.endsWith("_dur") || name == "latency" || name.endsWith("_ns")) return Format::Duration;
    // Ids and numbers that name things read as they are; amounts with separators.
    const bool names = name.endsWith("id") || name.endsWith("pid") || name == "cpu" || name.endsWith("_cpu") ||
                       name == "irq" || name.endsWith("prio") || name == "nr" || name == "ret" ||
                       name.startsWith("common_") || name == "depth" || name == "priority";
    return names ? Format::Plain : Format::Grouped;
}

void QueryResultModel::setResult(QueryResult result)
{
    beginResetModel();
    m_result = std::move(result);
    m_formats.clear();
    for (const std::string& column : m_result.columns) m_formats.push_back(formatOf(column));
    endResetModel();
}

int QueryResultModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_result.rows.size());
}

int QueryResultModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_result.columns.size());
}

QVariant QueryResultModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || size_t(index.row()) >= m_result.rows.size()) return {};
    const auto& row = m_result.rows[size_t(index.row())];
    if (size_t(index.column()) >= row.size()) return {};
    const sql::Value& v = row[size_t(index.column())];
    using K = sql::Value::Kind;
    switch (role) {
    case Qt::DisplayRole:
        switch (v.kind) {
        case K::Null: return QStringLiteral("NULL");
        case K::Integer: {
            const auto unit = m_nanoseconds ? timeline::ClockUnit::Nanoseconds : timeline::ClockUnit::Ticks;
            switch (m_formats[size_t(index.column())]) {
            case Format::Time:
                return v.integer >= 0 ? timeline::formatTimestamp(uint64_t(v.integer), 1, unit)
                                      : QString::number(v.integer);
            case Format::Duration: return timeline::formatDuration(v.integer, unit);
            case Format::Grouped: return QLocale().toString(qlonglong(v.integer));
            case Format::Plain: return QString::number(v.integer);
            }
            return {};
        }
        case K::Real: return QLocale().toString(v.real, 'g', 12);
        case K::Text: {
            QString text = QString::fromStdString(v.text);
            text.replace('\n', ' ');
            return text;
        }
        }
        return {};
    case Qt::ToolTipRole:
        if (v.kind == K::Integer && (m_formats[size_t(index.column())] == Format::Time ||
                                     m_formats[size_t(index.column())] == Format::Duration))
            return tr("%1 (raw value, as copied and exported)").arg(v.integer);
        return v.kind == K::Text && v.text.size() > 40 ? QString::fromStdString(v.text) : QVariant();
    case Qt::TextAlignmentRole:
        return v.kind == K::Integer || v.kind == K::Real ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    case Qt::ForegroundRole:
        return v.kind == K::Null ? QVariant(QPalette().brush(QPalette::PlaceholderText)) : QVariant();
    default: return {};
    }
}

QVariant QueryResultModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole) return {};
    if (orientation == Qt::Vertical) return section + 1;
    return size_t(section) < m_result.columns.size() ? QString::fromStdString(m_result.columns[size_t(section)])
                                                     : QVariant();
}

bool QueryResultModel::isNumeric(int column) const
{
    bool any = false;
    for (const auto& row : m_result.rows) {
        if (size_t(column) >= row.size()) return false;
        const auto kind = row[size_t(column)].kind;
        if (kind == sql::Value::Kind::Text) return false;
        any = any || kind != sql::Value::Kind::Null;
    }
    return any;
}

} // namespace ringside
