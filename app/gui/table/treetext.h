// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <QStringList>
#include <QTreeWidget>

namespace ringside {

// A flat tree widget's header and rows as tab-separated lines, for Copy.
inline QString treeAsTsv(const QTreeWidget* tree)
{
    QStringList lines;
    QStringList header;
    for (int c = 0; c < tree->columnCount(); ++c) header << tree->headerItem()->text(c);
    lines << header.join('\t');
    for (int r = 0; r < tree->topLevelItemCount(); ++r) {
        QStringList cells;
        for (int c = 0; c < tree->columnCount(); ++c) cells << tree->topLevelItem(r)->text(c);
        lines << cells.join('\t');
    }
    return lines.join('\n') + '\n';
}

} // namespace ringside
