// SPDX-License-Identifier: GPL-2.0-or-later
#include "calltree/flamegraph.h"

#include "calltree/calltreemodel.h"
#include "calltree/functioncolors.h"
#include "timeline/timelinekeys.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

namespace ringside {

FlameGraphWidget::FlameGraphWidget(QWidget* parent) : QWidget(parent)
{
    // It zooms out with Backspace and Escape, as the timeline does: the timeline's keys are not
    // taken from it (TimelineKeys).
    setProperty(TimelineKeys::kKeepsKeys, true);
    setMouseTracking(true);
    setFocusPolicy(Qt::ClickFocus);
    setMinimumHeight(kRowHeight * 4);
}

void FlameGraphWidget::setTree(std::shared_ptr<const CallTree> tree,
                               std::shared_ptr<const std::vector<std::string>> names)
{
    m_tree = std::move(tree);
    m_names = std::move(names);
    m_zoom = 0;
    m_selected = 0;
    m_laidOutFor = {};
    if (QToolTip::isVisible()) QToolTip::hideText();
    update();
}

void FlameGraphWidget::setFlame(bool rootAtBottom)
{
    m_flame = rootAtBottom;
    m_laidOutFor = {};
    update();
}

void FlameGraphWidget::zoomTo(uint32_t node)
{
    if (!m_tree || node >= m_tree->size()) return;
    m_zoom = node;
    m_laidOutFor = {};
    // A tooltip shown describes a box of the old zoom.
    if (QToolTip::isVisible()) QToolTip::hideText();
    update();
}

void FlameGraphWidget::select(uint32_t node)
{
    m_selected = node;
    update();
}

void FlameGraphWidget::layout() const
{
    if (m_laidOutFor == size()) return;
    m_laidOutFor = size();
    m_boxes.clear();
    if (!m_tree || m_tree->empty()) return;
    const double width = std::max(1, this->width());
    const uint64_t total = m_tree->node(m_zoom).cost.total;
    if (total == 0) return;
    const double perNs = width / double(total);
    // Depth first without recursion: (node, x, row).
    struct Step {
        uint32_t node;
        double x;
        int row;
    };
    std::vector<Step> todo{{m_zoom, 0.0, 0}};
    int rows = 0;
    while (!todo.empty()) {
        const Step step = todo.back();
        todo.pop_back();
        const CallTree::Node& node = m_tree->node(step.node);
        const double w = double(node.cost.total) * perNs;
        if (w < 1.0) continue; // too narrow to draw: its caller's box stands for it
        const QString label = step.node == 0 ? tr("all calls") : nodeText(node, *m_names);
        const QColor fill =
            node.function == CallTree::kNoFunction ? QColor(0xb8, 0xc4, 0xd6) : functionColor(label.toStdString());
        m_boxes.push_back({QRectF(step.x, step.row * kRowHeight, w, kRowHeight - 1), step.node, label, fill});
        rows = std::max(rows, step.row + 1);
        double x = step.x;
        for (uint32_t c : m_tree->sortedChildren(step.node)) {
            todo.push_back({c, x, step.row + 1});
            x += double(m_tree->node(c).cost.total) * perNs;
        }
    }
    if (m_flame) {
        const double bottom = std::max(height(), rows * kRowHeight);
        for (Box& box : m_boxes) box.rect.moveTop(bottom - box.rect.top() - kRowHeight);
    }
    const int wanted = rows * kRowHeight;
    if (minimumHeight() != std::max(kRowHeight * 4, wanted))
        const_cast<FlameGraphWidget*>(this)->setMinimumHeight(std::max(kRowHeight * 4, wanted));
}

void FlameGraphWidget::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    if (!m_tree || m_tree->empty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter, tr("No calls in the selection"));
        return;
    }
    layout();
    const QFontMetrics metrics(font());
    for (const Box& box : m_boxes) {
        const CallTree::Node& node = m_tree->node(box.node);
        const QString& label = box.label;
        const QColor fill = box.node == m_selected ? box.fill.darker(135) : box.fill;
        p.fillRect(box.rect, fill);
        if (node.cost.errors > 0) {
            p.setPen(QPen(QColor(0xc0, 0x1c, 0x28), 2));
            p.drawRect(box.rect.adjusted(1, 1, -1, -1));
        }
        if (box.rect.width() > 24) {
            p.setPen(Qt::black);
            const QRectF text = box.rect.adjusted(3, 0, -3, 0);
            p.drawText(text, Qt::AlignVCenter | Qt::AlignLeft,
                       metrics.elidedText(label, Qt::ElideRight, int(text.width())));
        }
    }
}

uint32_t FlameGraphWidget::nodeAt(QPoint point) const
{
    layout();
    for (const Box& box : m_boxes)
        if (box.rect.contains(point)) return box.node;
    return 0;
}

void FlameGraphWidget::mousePressEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton) return;
    const uint32_t n = nodeAt(event->position().toPoint());
    select(n);
    emit nodeSelected(n);
}

void FlameGraphWidget::mouseDoubleClickEvent(QMouseEvent* event)
{
    const uint32_t n = nodeAt(event->position().toPoint());
    if (!m_tree) return;
    // The bar of the zoomed node itself zooms back out one level.
    zoomTo(n == m_zoom && n != 0 ? m_tree->node(n).parent : n);
}

void FlameGraphWidget::keyPressEvent(QKeyEvent* event)
{
    if ((event->key() == Qt::Key_Backspace || event->key() == Qt::Key_Escape) && m_tree && m_zoom != 0) {
        zoomTo(m_tree->node(m_zoom).parent);
        return;
    }
    QWidget::keyPressEvent(event);
}

bool FlameGraphWidget::event(QEvent* e)
{
    if (e->type() == QEvent::Resize) m_laidOutFor = {};
    if (e->type() == QEvent::ToolTip && m_tree) {
        auto* help = static_cast<QHelpEvent*>(e);
        const uint32_t n = nodeAt(help->pos());
        if (n == 0 && m_zoom == 0) {
            QToolTip::hideText();
            return true;
        }
        const CallTree::Node& node = m_tree->node(n);
        const CallCost& c = node.cost;
        const uint64_t all = m_tree->node(m_zoom).cost.total;
        QString tip = QString("<b>%1</b><br>").arg(nodeText(node, *m_names).toHtmlEscaped()) +
                      tr("total %1 (%2 %)<br>self %3<br>%4 calls")
                          .arg(formatDuration(c.total))
                          .arg(all ? 100.0 * double(c.total) / double(all) : 0.0, 0, 'f', 1)
                          .arg(formatDuration(c.self))
                          .arg(c.calls);
        if (c.open) tip += tr(", %1 without exit").arg(c.open);
        if (!c.returns.empty()) tip += tr("<br>returned %1").arg(formatReturns(c).toHtmlEscaped());
        QToolTip::showText(help->globalPos(), tip, this);
        return true;
    }
    return QWidget::event(e);
}

} // namespace ringside
