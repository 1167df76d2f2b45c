// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <QAbstractScrollArea>

class QAbstractItemModel;
class QHeaderView;

namespace ringside {

// A table view for tens of millions of rows. QTableView keeps per-row bookkeeping in its
// vertical header (about 8 bytes a row: 225 MB and 0.6 s to attach a 27.7M-row model);
// this view keeps none: rows have one height, the scroll bar counts rows, and only the
// visible rows are asked for data. Selection is the current row plus a contiguous range
// (Shift extends it), which is what copying rows needs.
class EventTableView : public QAbstractScrollArea {
    Q_OBJECT
public:
    explicit EventTableView(QWidget* parent = nullptr);
    ~EventTableView() override;

    void setModel(QAbstractItemModel* model);
    QAbstractItemModel* model() const { return m_model; }
    QHeaderView* header() const { return m_header; }

    int currentRow() const { return m_current; }
    // Makes `row` current and selected, and scrolls it into view (centred when it was not
    // visible); emits currentRowChanged.
    void selectRow(int row);
    // The selected rows, in order.
    QList<int> selectedRows() const;
    int firstVisibleRow() const;
    int visibleRowCount() const;
    int rowAt(int y) const;
    int rowHeight() const { return m_rowHeight; }

signals:
    void currentRowChanged(int row);
    // Before the context menu (the view's actions) shows: a last chance to set their state.
    void menuAboutToShow();

protected:
    void paintEvent(QPaintEvent*) override;
    void resizeEvent(QResizeEvent*) override;
    void keyPressEvent(QKeyEvent*) override;
    void mousePressEvent(QMouseEvent*) override;
    void mouseMoveEvent(QMouseEvent*) override;
    void scrollContentsBy(int dx, int dy) override;
    bool viewportEvent(QEvent*) override;
    void contextMenuEvent(QContextMenuEvent*) override;

private:
    void setCurrent(int row, bool extend, bool center);
    void updateScrollBars();
    void scrollToRow(int row, bool center);

    QAbstractItemModel* m_model = nullptr;
    QHeaderView* m_header = nullptr;
    int m_rowHeight = 20;
    int m_current = -1;
    int m_anchor = -1;
};

} // namespace ringside
