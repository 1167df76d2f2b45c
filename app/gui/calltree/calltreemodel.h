// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "calls/calltree.h"
#include "timeline/timelinemath.h"

#include <QAbstractItemModel>

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace ringside {

// A duration as the call views show it ("12.345 ms"), as the timeline does.
inline QString formatDuration(uint64_t ns)
{
    return timeline::formatDuration(int64_t(ns));
}
inline QString formatReturns(const CallCost& cost)
{
    return QString::fromStdString(returnsText(cost));
}
inline QString nodeText(const CallTree::Node& node, const std::vector<std::string>& names)
{
    return QString::fromStdString(nodeLabel(node, names));
}

// A merged call tree (top-down or bottom-up) as a Qt item model: one row per node, children
// sorted by the chosen column (largest first by default), the root's children at the top.
// Nodes whose calls returned an error are drawn in red. Read-only; setTree() replaces it all.
class CallTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { Function, Calls, Total, Self, Average, Min, Max, Share, Returns, ColumnCount };
    static constexpr int NodeRole = Qt::UserRole + 1;

    explicit CallTreeModel(QObject* parent = nullptr) : QAbstractItemModel(parent) {}

    void setTree(std::shared_ptr<const CallTree> tree, std::shared_ptr<const std::vector<std::string>> names);
    // Marks the nodes whose path of functions `other` lacks (shaded, "not in the other"), to
    // compare two calls of one system call; null ends the comparison.
    void compareWith(std::shared_ptr<const CallTree> other);
    bool onlyHere(uint32_t node) const { return node < m_onlyHere.size() && m_onlyHere[node]; }
    const CallTree* tree() const { return m_tree.get(); }
    uint32_t nodeOf(const QModelIndex& index) const { return index.isValid() ? uint32_t(index.internalId()) : 0; }
    QModelIndex indexOf(uint32_t node) const;
    // The first node (top-down order) whose label contains `text`, after `after` (0: from the top).
    uint32_t find(const QString& text, uint32_t after = 0) const;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& = {}) const override { return ColumnCount; }
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
    void sort(int column, Qt::SortOrder order) override;

private:
    const std::vector<uint32_t>& children(uint32_t node) const;
    bool less(uint32_t a, uint32_t b) const;

    std::shared_ptr<const CallTree> m_tree;
    std::shared_ptr<const std::vector<std::string>> m_names;
    int m_sortColumn = Total;
    Qt::SortOrder m_sortOrder = Qt::DescendingOrder;
    mutable std::unordered_map<uint32_t, std::vector<uint32_t>> m_sorted; // node -> children, sorted
    mutable std::unordered_map<uint32_t, int> m_row;                      // node -> its row
    std::vector<bool> m_onlyHere;
};

} // namespace ringside
