// SPDX-License-Identifier: GPL-2.0-or-later
#include "table/eventtableview.h"

#include "timeline/timelinekeys.h"

#include <QAbstractItemModel>
#include <QContextMenuEvent>
#include <QHeaderView>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMenu>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>

#include <algorithm>

namespace ringside {

EventTableView::EventTableView(QWidget* parent) : QAbstractScrollArea(parent)
{
    // Its rows move by the arrows and Home (TimelineKeys).
    setProperty(TimelineKeys::kKeepsArrows, true);
    m_header = new QHeaderView(Qt::Horizontal, this);
    m_header->setSectionsMovable(false);
    m_header->setStretchLastSection(true);
    m_header->setHighlightSections(false);
    m_rowHeight = fontMetrics().height() + 4;
    setFocusPolicy(Qt::StrongFocus);
    viewport()->setBackgroundRole(QPalette::Base);
    connect(m_header, &QHeaderView::sectionResized, viewport(), qOverload<>(&QWidget::update));
    connect(m_header, &QHeaderView::geometriesChanged, this, [this] {
        setViewportMargins(0, m_header->sizeHint().height(), 0, 0);
        resizeEvent(nullptr);
    });
    verticalScrollBar()->setSingleStep(3);
}

EventTableView::~EventTableView()
{
    // The header outlives this part of the object (QWidget deletes children later) and may
    // still signal while it is hidden.
    disconnect(m_header, nullptr, this, nullptr);
}

void EventTableView::setModel(QAbstractItemModel* model)
{
    if (m_model) disconnect(m_model, nullptr, this, nullptr);
    m_model = model;
    m_header->setModel(model);
    auto reset = [this] {
        m_current = m_anchor = -1;
        verticalScrollBar()->setValue(0);
        updateScrollBars();
        viewport()->update();
    };
    connect(model, &QAbstractItemModel::modelReset, this, reset);
    // A store that grows (a capture, a recording read while shown) adds rows at the end.
    connect(model, &QAbstractItemModel::rowsInserted, this, [this] {
        updateScrollBars();
        viewport()->update();
    });
    connect(model, &QAbstractItemModel::dataChanged, viewport(), qOverload<>(&QWidget::update));
    setViewportMargins(0, m_header->sizeHint().height(), 0, 0);
    reset();
}

int EventTableView::visibleRowCount() const
{
    return std::max(1, viewport()->height() / m_rowHeight);
}

int EventTableView::firstVisibleRow() const
{
    return verticalScrollBar()->value();
}

int EventTableView::rowAt(int y) const
{
    if (!m_model || y < 0) return -1;
    const int row = firstVisibleRow() + y / m_rowHeight;
    return row < m_model->rowCount() ? row : -1;
}

void EventTableView::updateScrollBars()
{
    const int rows = m_model ? m_model->rowCount() : 0;
    verticalScrollBar()->setRange(0, std::max(0, rows - visibleRowCount()));
    verticalScrollBar()->setPageStep(visibleRowCount());
    horizontalScrollBar()->setRange(0, std::max(0, m_header->length() - viewport()->width()));
    horizontalScrollBar()->setPageStep(viewport()->width());
}

void EventTableView::resizeEvent(QResizeEvent*)
{
    const QRect r = viewport()->geometry();
    m_header->setGeometry(r.left(), r.top() - m_header->sizeHint().height(), r.width(), m_header->sizeHint().height());
    updateScrollBars();
}

void EventTableView::scrollContentsBy(int dx, int)
{
    if (dx) m_header->setOffset(horizontalScrollBar()->value());
    viewport()->update();
}

void EventTableView::scrollToRow(int row, bool center)
{
    const int first = firstVisibleRow(), visible = visibleRowCount();
    if (row >= first && row < first + visible) return;
    if (center)
        verticalScrollBar()->setValue(row - visible / 2);
    else
        verticalScrollBar()->setValue(row < first ? row : row - visible + 1);
}

void EventTableView::setCurrent(int row, bool extend, bool center)
{
    if (!m_model || m_model->rowCount() == 0) return;
    row = std::clamp(row, 0, m_model->rowCount() - 1);
    if (!extend || m_anchor < 0) m_anchor = row;
    const bool changed = row != m_current;
    m_current = row;
    scrollToRow(row, center);
    viewport()->update();
    if (changed) emit currentRowChanged(row);
}

void EventTableView::selectRow(int row)
{
    setCurrent(row, false, true);
}

QList<int> EventTableView::selectedRows() const
{
    QList<int> rows;
    if (m_current < 0) return rows;
    for (int r = std::min(m_anchor, m_current); r <= std::max(m_anchor, m_current); ++r) rows << r;
    return rows;
}

void EventTableView::paintEvent(QPaintEvent*)
{
    QPainter p(viewport());
    if (!m_model) return;
    const int first = firstVisibleRow();
    const int last = std::min(m_model->rowCount(), first + visibleRowCount() + 1);
    const int lo = m_current < 0 ? -1 : std::min(m_anchor, m_current);
    const int hi = m_current < 0 ? -1 : std::max(m_anchor, m_current);
    const QColor grid = palette().color(QPalette::Midlight);
    for (int row = first; row < last; ++row) {
        const int y = (row - first) * m_rowHeight;
        const bool selected = row >= lo && row <= hi;
        const QRect line(0, y, viewport()->width(), m_rowHeight);
        if (selected)
            p.fillRect(line, palette().color(QPalette::Highlight));
        else if (row % 2)
            p.fillRect(line, palette().color(QPalette::AlternateBase));
        for (int column = 0; column < m_model->columnCount(); ++column) {
            const int x = m_header->sectionViewportPosition(column);
            const int w = m_header->sectionSize(column);
            if (x + w < 0 || x > viewport()->width()) continue;
            const QModelIndex index = m_model->index(row, column);
            QRect cell(x + 4, y, w - 8, m_rowHeight);
            const QVariant decoration = m_model->data(index, Qt::DecorationRole);
            if (decoration.canConvert<QColor>() && decoration.userType() == QMetaType::QColor) {
                p.fillRect(QRect(cell.left(), y + 3, m_rowHeight - 6, m_rowHeight - 6), decoration.value<QColor>());
                cell.setLeft(cell.left() + m_rowHeight - 2);
            }
            const QVariant font = m_model->data(index, Qt::FontRole);
            p.setFont(font.isValid() ? font.value<QFont>() : this->font());
            const QVariant align = m_model->data(index, Qt::TextAlignmentRole);
            const int flags = align.isValid() ? align.toInt() : int(Qt::AlignLeft | Qt::AlignVCenter);
            p.setPen(palette().color(selected ? QPalette::HighlightedText : QPalette::Text));
            const QString text = m_model->data(index, Qt::DisplayRole).toString();
            p.drawText(cell, flags | Qt::AlignVCenter, p.fontMetrics().elidedText(text, Qt::ElideRight, cell.width()));
            p.setPen(grid);
            p.drawLine(x + w - 1, y, x + w - 1, y + m_rowHeight - 1);
        }
    }
}

void EventTableView::keyPressEvent(QKeyEvent* e)
{
    const bool extend = e->modifiers() & Qt::ShiftModifier;
    const int rows = m_model ? m_model->rowCount() : 0;
    const int current = m_current < 0 ? firstVisibleRow() : m_current;
    switch (e->key()) {
    case Qt::Key_Down: setCurrent(current + 1, extend, false); break;
    case Qt::Key_Up: setCurrent(current - 1, extend, false); break;
    case Qt::Key_PageDown: setCurrent(current + visibleRowCount(), extend, false); break;
    case Qt::Key_PageUp: setCurrent(current - visibleRowCount(), extend, false); break;
    case Qt::Key_Home: setCurrent(0, extend, false); break;
    case Qt::Key_End: setCurrent(rows - 1, extend, false); break;
    default: QAbstractScrollArea::keyPressEvent(e); return;
    }
    e->accept();
}

void EventTableView::mousePressEvent(QMouseEvent* e)
{
    setFocus();
    const int row = rowAt(e->pos().y());
    if (row >= 0 &&
        (e->button() == Qt::LeftButton || (e->button() == Qt::RightButton && selectedRows().indexOf(row) < 0)))
        setCurrent(row, e->modifiers() & Qt::ShiftModifier, false);
}

void EventTableView::mouseMoveEvent(QMouseEvent* e)
{
    if (e->buttons() & Qt::LeftButton) {
        const int row = rowAt(std::clamp(e->pos().y(), 0, viewport()->height() - 1));
        if (row >= 0) setCurrent(row, true, false);
    }
}

void EventTableView::contextMenuEvent(QContextMenuEvent* e)
{
    if (actions().isEmpty()) return;
    emit menuAboutToShow();
    QMenu::exec(actions(), e->globalPos(), nullptr, this);
}

bool EventTableView::viewportEvent(QEvent* e)
{
    if (e->type() == QEvent::ToolTip && m_model) {
        auto* help = static_cast<QHelpEvent*>(e);
        const int row = rowAt(help->pos().y());
        const int column = m_header->logicalIndexAt(help->pos().x());
        const QVariant tip =
            row >= 0 && column >= 0 ? m_model->data(m_model->index(row, column), Qt::ToolTipRole) : QVariant();
        if (tip.isValid())
            QToolTip::showText(help->globalPos(), tip.toString(), viewport());
        else
            QToolTip::hideText();
        return true;
    }
    return QAbstractScrollArea::viewportEvent(e);
}

} // namespace ringside
