// SPDX-License-Identifier: GPL-2.0-or-later
#include "widgets/focusframe.h"

#include <QApplication>
#include <QPainter>
#include <QVBoxLayout>

namespace ringside {

FocusFrame::FocusFrame(QWidget* child, QWidget* parent) : QWidget(parent), m_child(child)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(child);
    connect(qApp, &QApplication::focusChanged, this, [this](QWidget*, QWidget* now) {
        const bool framed = now == m_child;
        if (framed == m_framed) return;
        m_framed = framed;
        update();
    });
}

void FocusFrame::paintEvent(QPaintEvent*)
{
    if (!m_framed) return;
    QPainter p(this);
    p.setPen(QPen(palette().color(QPalette::Highlight), 2));
    p.drawRect(QRectF(rect()).adjusted(1, 1, -1, -1));
}

} // namespace ringside
