// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <QPointer>
#include <QWidget>

namespace ringside {

// The one ring around whichever list, table, tree or text editor of a window has the keys. Qt
// draws an item view's selection the same with and without the focus, and a text editor
// without a frame of its own, so after a click elsewhere or a Tab nothing said where Down,
// Enter or typed text would go. The ring is a frame laid over the view's
// edge (a child of the window, above the panes, blind to the mouse), following the view as its
// panes move: no view is wrapped or moved, and every pane's views get it, those made later
// too. Widgets framed already (the timeline, in a FocusFrame) and line edits, which the style
// frames, are left alone; so are views of floating panes, windows of their own.
class FocusRing : public QWidget {
    Q_OBJECT
public:
    explicit FocusRing(QWidget* window);
    // The view it is drawn around, or null when it is hidden.
    QWidget* target() const { return isVisible() ? m_target.data() : nullptr; }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;

private:
    static bool ringed(const QWidget* widget);
    void detach();
    void follow();

    QWidget* m_window;
    QPointer<QWidget> m_target;
};

} // namespace ringside
