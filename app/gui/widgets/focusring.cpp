// SPDX-License-Identifier: GPL-2.0-or-later
#include "widgets/focusring.h"

#include "widgets/focusframe.h"

#include <QAbstractScrollArea>
#include <QApplication>
#include <QEvent>
#include <QFocusEvent>
#include <QPainter>

namespace ringside {

FocusRing::FocusRing(QWidget* window) : QWidget(window), m_window(window)
{
    setObjectName("focusRing");
    setAttribute(Qt::WA_TransparentForMouseEvents);
    setAttribute(Qt::WA_NoSystemBackground);
    setFocusPolicy(Qt::NoFocus);
    hide();
    // Every widget's focus, move and resize events, those sent to widgets of a window that is not the active
    // one too (QApplication::focusChanged says only the active window's).
    qApp->installEventFilter(this);
}

bool FocusRing::ringed(const QWidget* widget)
{
    // Lists, tables, trees (the events table is a scroll area of its own) and text editors (the
    // Query pane's): the style frames a focused line edit, none of these.
    return qobject_cast<const QAbstractScrollArea*>(widget) && !qobject_cast<FocusFrame*>(widget->parentWidget());
}

bool FocusRing::eventFilter(QObject* watched, QEvent* event)
{
    switch (event->type()) {
    case QEvent::FocusIn: {
        auto* widget = qobject_cast<QWidget*>(watched);
        if (!widget || widget->window() != m_window) break; // a menu, a dialog: back here after
        if (ringed(widget)) {
            m_target = widget;
            // A view that goes (a pane rebuilt) takes the ring with it.
            connect(widget, &QObject::destroyed, this, &FocusRing::detach, Qt::UniqueConnection);
            follow();
        } else {
            detach();
        }
        break;
    }
    case QEvent::FocusOut: {
        // The window losing the keys, or a menu opened over it: where they come back to stays ringed.
        const Qt::FocusReason reason = static_cast<QFocusEvent*>(event)->reason();
        if (watched == m_target && reason != Qt::PopupFocusReason && reason != Qt::ActiveWindowFocusReason) detach();
        break;
    }
    case QEvent::Move:
    case QEvent::Resize:
    case QEvent::Show:
    case QEvent::Hide: {
        // The view or a pane around it moved, was resized, shown or hidden.
        auto* widget = qobject_cast<QWidget*>(watched);
        if (m_target && widget && widget != this && (widget == m_target || widget->isAncestorOf(m_target))) follow();
        break;
    }
    default: break;
    }
    return false;
}

void FocusRing::detach()
{
    m_target = nullptr;
    hide();
}

void FocusRing::follow()
{
    if (!m_target || !m_target->isVisibleTo(m_window) || m_target->window() != m_window) return hide();
    // What shows of it: a view scrolled partly out of its pane is ringed where it shows.
    QRect shown(m_target->mapTo(m_window, QPoint(0, 0)), m_target->size());
    for (QWidget* w = m_target->parentWidget(); w && w != m_window; w = w->parentWidget())
        shown &= QRect(w->mapTo(m_window, QPoint(0, 0)), w->size());
    if (shown.isEmpty()) return hide();
    setGeometry(shown);
    raise();
    show();
    update();
}

void FocusRing::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setPen(QPen(palette().color(QPalette::Highlight), 2));
    p.drawRect(QRectF(rect()).adjusted(1, 1, -1, -1));
}

} // namespace ringside
