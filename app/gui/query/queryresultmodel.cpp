// SPDX-License-Identifier: GPL-2.0-or-later
#include "query/queryresultmodel.h"

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

void QueryResultModel::setResult(QueryResult result)
{
    beginResetModel();
    m_result = std::move(result);
    m_grouped.clear();
    for (const std::string& column : m_result.columns) {
        QString name = QString::fromStdString(column).toLower();
        const bool names = name == "ts" || name.endsWith("_ts") || name.endsWith("id") || name.endsWith("pid") ||
                           name == "cpu" || name.endsWith("_cpu") || name == "irq" || name.endsWith("prio") ||
                           name == "nr" || name == "ret" || name.startsWith("common_") || name == "depth";
        m_grouped.push_back(!names);
    }
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
        case K::Integer:
            // Times, ids and numbers that name things read as they are; amounts with separators.
            return m_grouped[size_t(index.column())] ? QLocale().toString(qlonglong(v.integer))
                                                     : QString::number(v.integer);
        case K::Real: return QLocale().toString(v.real, 'g', 12);
        case K::Text: {
            QString text = QString::fromStdString(v.text);
            text.replace('\n', ' ');
            return text;
        }
        }
        return {};
    case Qt::ToolTipRole: return v.kind == K::Text && v.text.size() > 40 ? QString::fromStdString(v.text) : QVariant();
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
