// SPDX-License-Identifier: GPL-2.0-or-later
#include "widgets/focusframe.h"

#include <QEvent>
#include <QPainter>
#include <QVBoxLayout>

namespace ringside {

FocusFrame::FocusFrame(QWidget* child, QWidget* parent) : QWidget(parent), m_child(child)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(child);
    child->installEventFilter(this);
}

bool FocusFrame::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_child && (event->type() == QEvent::FocusIn || event->type() == QEvent::FocusOut)) {
        m_framed = event->type() == QEvent::FocusIn;
        update();
    }
    return QWidget::eventFilter(watched, event);
}

void FocusFrame::paintEvent(QPaintEvent*)
{
    if (!m_framed) return;
    QPainter p(this);
    p.setPen(QPen(palette().color(QPalette::Highlight), 2));
    p.drawRect(QRectF(rect()).adjusted(1, 1, -1, -1));
}

} // namespace ringside
