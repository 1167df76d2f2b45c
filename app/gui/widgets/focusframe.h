// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <QWidget>

namespace ringside {

// A widget that takes keys but draws no focus of its own (the timeline: W/A/S/D move its
// view), framed in the highlight colour while it has the focus, as fields are. The frame is
// this container's, so images of the widget (saved, grabbed) never show it.
class FocusFrame : public QWidget {
    Q_OBJECT
public:
    explicit FocusFrame(QWidget* child, QWidget* parent = nullptr);
    bool framed() const { return m_framed; }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;

private:
    QWidget* m_child;
    bool m_framed = false;
};

} // namespace ringside
