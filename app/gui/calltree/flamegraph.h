// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "calls/calltree.h"

#include <QColor>
#include <QWidget>

#include <memory>
#include <string>
#include <vector>

namespace ringside {

// A merged call tree as a flame graph: each node a box as wide as its share of its parent's
// time, callees stacked on their callers. Icicle (the root at the top) or flame (at the
// bottom). Hovering shows a node's total, self and calls; a click selects it; a double click
// zooms into it (its box spans the width); Backspace or a double click on the root bar zooms
// back out. Boxes under a pixel are not drawn one by one: their parent's box shows them.
class FlameGraphWidget : public QWidget {
    Q_OBJECT
public:
    explicit FlameGraphWidget(QWidget* parent = nullptr);

    void setTree(std::shared_ptr<const CallTree> tree, std::shared_ptr<const std::vector<std::string>> names);
    void setFlame(bool rootAtBottom);
    bool isFlame() const { return m_flame; }
    void zoomTo(uint32_t node);
    uint32_t zoomed() const { return m_zoom; }
    uint32_t selected() const { return m_selected; }
    void select(uint32_t node);
    // The node under a point (0: none), for tests and tooltips.
    uint32_t nodeAt(QPoint p) const;

    QSize sizeHint() const override { return {600, 300}; }

signals:
    void nodeSelected(uint32_t node);

protected:
    void paintEvent(QPaintEvent*) override;
    void mousePressEvent(QMouseEvent*) override;
    void mouseDoubleClickEvent(QMouseEvent*) override;
    void keyPressEvent(QKeyEvent*) override;
    bool event(QEvent*) override;

private:
    // Laid out when the size or zoom changes; painting only draws them.
    struct Box {
        QRectF rect;
        uint32_t node;
        QString label;
        QColor fill;
    };
    void layout() const;

    std::shared_ptr<const CallTree> m_tree;
    std::shared_ptr<const std::vector<std::string>> m_names;
    bool m_flame = false;
    uint32_t m_zoom = 0;
    uint32_t m_selected = 0;
    mutable std::vector<Box> m_boxes; // of the last layout, for painting and hit tests
    mutable QSize m_laidOutFor;
    static constexpr int kRowHeight = 18;
};

} // namespace ringside
