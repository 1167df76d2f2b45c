// SPDX-License-Identifier: GPL-2.0-or-later
#include "calltree/calltreemodel.h"

#include <QBrush>
#include <QColor>

#include <algorithm>

namespace ringside {

void CallTreeModel::setTree(std::shared_ptr<const CallTree> tree, std::shared_ptr<const std::vector<std::string>> names)
{
    beginResetModel();
    m_tree = std::move(tree);
    m_names = std::move(names);
    m_sorted.clear();
    m_row.clear();
    m_onlyHere.clear();
    endResetModel();
}

void CallTreeModel::compareWith(std::shared_ptr<const CallTree> other)
{
    m_onlyHere.clear();
    if (m_tree && other) {
        // Nodes in creation order: a parent before its children. Each node's match in `other`
        // is the child of its parent's match with the same function and context.
        constexpr uint32_t kNone = ~uint32_t(0);
        std::vector<uint32_t> match(m_tree->size(), kNone);
        m_onlyHere.assign(m_tree->size(), false);
        match[0] = 0;
        for (uint32_t n = 1; n < m_tree->size(); ++n) {
            const CallTree::Node& node = m_tree->node(n);
            const uint32_t parent = match[node.parent];
            if (parent != kNone)
                for (uint32_t c : other->node(parent).children)
                    if (other->node(c).function == node.function && other->node(c).context == node.context) {
                        match[n] = c;
                        break;
                    }
            m_onlyHere[n] = match[n] == kNone;
        }
    }
    if (rowCount() > 0) emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

bool CallTreeModel::less(uint32_t a, uint32_t b) const
{
    const CallTree::Node &x = m_tree->node(a), &y = m_tree->node(b);
    auto key = [&](const CallTree::Node& n) -> double {
        switch (m_sortColumn) {
        case Calls: return double(n.cost.calls);
        case Self: return double(n.cost.self);
        case Average: return double(n.cost.average());
        case Min: return n.cost.returned() ? double(n.cost.min) : 0;
        case Max: return double(n.cost.max);
        case Returns: return double(n.cost.errors);
        default: return double(n.cost.total);
        }
    };
    if (m_sortColumn == Function) {
        const int c = nodeText(x, *m_names).compare(nodeText(y, *m_names));
        if (c != 0) return m_sortOrder == Qt::AscendingOrder ? c < 0 : c > 0;
    } else if (key(x) != key(y)) {
        return m_sortOrder == Qt::AscendingOrder ? key(x) < key(y) : key(x) > key(y);
    }
    return a < b;
}

const std::vector<uint32_t>& CallTreeModel::children(uint32_t node) const
{
    auto it = m_sorted.find(node);
    if (it != m_sorted.end()) return it->second;
    std::vector<uint32_t> sorted = m_tree->node(node).children;
    std::sort(sorted.begin(), sorted.end(), [this](uint32_t a, uint32_t b) { return less(a, b); });
    for (size_t r = 0; r < sorted.size(); ++r) m_row[sorted[r]] = int(r);
    return m_sorted.emplace(node, std::move(sorted)).first->second;
}

QModelIndex CallTreeModel::index(int row, int column, const QModelIndex& parent) const
{
    if (!m_tree || row < 0 || column < 0 || column >= ColumnCount) return {};
    const auto& list = children(nodeOf(parent));
    if (size_t(row) >= list.size()) return {};
    return createIndex(row, column, quintptr(list[size_t(row)]));
}

QModelIndex CallTreeModel::parent(const QModelIndex& child) const
{
    if (!m_tree || !child.isValid()) return {};
    const uint32_t p = m_tree->node(nodeOf(child)).parent;
    return p == 0 ? QModelIndex() : indexOf(p);
}

QModelIndex CallTreeModel::indexOf(uint32_t node) const
{
    if (!m_tree || node == 0 || node >= m_tree->size()) return {};
    children(m_tree->node(node).parent); // sorts the siblings and records their rows
    return createIndex(m_row.at(node), 0, quintptr(node));
}

int CallTreeModel::rowCount(const QModelIndex& parent) const
{
    if (!m_tree || parent.column() > 0) return 0;
    return int(m_tree->node(nodeOf(parent)).children.size());
}

QVariant CallTreeModel::data(const QModelIndex& index, int role) const
{
    if (!m_tree || !index.isValid()) return {};
    const uint32_t n = nodeOf(index);
    const CallTree::Node& node = m_tree->node(n);
    const CallCost& c = node.cost;
    if (role == NodeRole) return n;
    if (role == Qt::ForegroundRole && c.errors > 0 && (index.column() == Function || index.column() == Returns))
        return QBrush(QColor(0xc0, 0x1c, 0x28));
    if (role == Qt::BackgroundRole && onlyHere(n)) return QBrush(QColor(0xfc, 0xef, 0xb4));
    if (role == Qt::TextAlignmentRole && index.column() != Function && index.column() != Returns)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole) {
        QString tip = QString("<b>%1</b><br>%2 calls").arg(nodeText(node, *m_names).toHtmlEscaped()).arg(c.calls);
        if (c.open) tip += tr(", %1 without exit").arg(c.open);
        tip += tr("<br>total %1, self %2").arg(formatDuration(c.total), formatDuration(c.self));
        if (c.returned())
            tip += tr("<br>average %1, min %2, max %3")
                       .arg(formatDuration(c.average()), formatDuration(c.min), formatDuration(c.max));
        if (!c.returns.empty()) tip += tr("<br>returned %1").arg(formatReturns(c).toHtmlEscaped());
        if (onlyHere(n)) tip += tr("<br><i>not called in the other system call</i>");
        return tip;
    }
    if (role != Qt::DisplayRole) return {};
    const uint64_t all = m_tree->root().cost.total;
    switch (index.column()) {
    case Function: return nodeText(node, *m_names);
    case Calls: return c.open ? QString("%1 (%2 open)").arg(c.calls).arg(c.open) : QString::number(c.calls);
    case Total: return formatDuration(c.total);
    case Self: return formatDuration(c.self);
    case Average: return c.returned() ? formatDuration(c.average()) : QString("-");
    case Min: return c.returned() ? formatDuration(c.min) : QString("-");
    case Max: return c.returned() ? formatDuration(c.max) : QString("-");
    case Share: return all ? QString::number(100.0 * double(c.total) / double(all), 'f', 1) + " %" : QString("-");
    case Returns: return formatReturns(c);
    default: return {};
    }
}

QVariant CallTreeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    static const char* const names[] = {"Function", "Calls", "Total", "Self",   "Average",
                                        "Min",      "Max",   "Share", "Returns"};
    return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

void CallTreeModel::sort(int column, Qt::SortOrder order)
{
    if (column == m_sortColumn && order == m_sortOrder) return;
    emit layoutAboutToBeChanged();
    const QModelIndexList before = persistentIndexList();
    std::vector<uint32_t> nodes;
    for (const QModelIndex& i : before) nodes.push_back(nodeOf(i));
    m_sortColumn = column;
    m_sortOrder = order;
    m_sorted.clear();
    m_row.clear();
    QModelIndexList after;
    for (size_t k = 0; k < nodes.size(); ++k) {
        const QModelIndex i = indexOf(nodes[k]);
        after << (i.isValid() ? i.siblingAtColumn(before[int(k)].column()) : QModelIndex());
    }
    changePersistentIndexList(before, after);
    emit layoutChanged();
}

uint32_t CallTreeModel::find(const QString& text, uint32_t after) const
{
    if (!m_tree || text.isEmpty()) return 0;
    // Depth-first in display order, starting after `after`, wrapping around once.
    std::vector<uint32_t> order;
    std::vector<uint32_t> todo{0};
    while (!todo.empty()) {
        const uint32_t n = todo.back();
        todo.pop_back();
        if (n != 0) order.push_back(n);
        const auto& list = children(n);
        for (auto it = list.rbegin(); it != list.rend(); ++it) todo.push_back(*it);
    }
    const auto start = std::find(order.begin(), order.end(), after);
    const size_t first = start == order.end() ? 0 : size_t(start - order.begin()) + 1;
    for (size_t k = 0; k < order.size(); ++k) {
        const uint32_t n = order[(first + k) % order.size()];
        if (nodeText(m_tree->node(n), *m_names).contains(text, Qt::CaseInsensitive)) return n;
    }
    return 0;
}

} // namespace ringside
