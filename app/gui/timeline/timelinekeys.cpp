// SPDX-License-Identifier: GPL-2.0-or-later
#include "timeline/timelinekeys.h"

#include "timeline/timelinewidget.h"

#include <QAbstractItemView>
#include <QAbstractSpinBox>
#include <QApplication>
#include <QKeyEvent>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QTextEdit>

namespace ringside {

TimelineKeys::TimelineKeys(QWidget* window, TimelineWidget* timeline, std::function<bool()> active)
    : QObject(window), m_window(window), m_timeline(timeline), m_active(std::move(active))
{
    qApp->installEventFilter(this);
}

TimelineKeys::~TimelineKeys()
{
    qApp->removeEventFilter(this);
}

bool TimelineKeys::eventFilter(QObject* watched, QEvent* event)
{
    if (event->type() != QEvent::KeyPress || watched == m_timeline || !m_active()) return false;
    auto* widget = qobject_cast<QWidget*>(watched);
    if (!widget || widget->window() != m_window) return false;
    QWidget* focus = QApplication::focusWidget();
    auto keepsKeys = [](QObject* w) {
        return w && (qobject_cast<QLineEdit*>(w) || qobject_cast<QAbstractSpinBox*>(w) ||
                     qobject_cast<QTextEdit*>(w) || qobject_cast<QPlainTextEdit*>(w) ||
                     w->property(kKeepsKeys).toBool());
    };
    if (keepsKeys(widget) || keepsKeys(focus)) return false;
    auto* key = static_cast<QKeyEvent*>(event);
    const bool navigation = key->key() == Qt::Key_Left || key->key() == Qt::Key_Right || key->key() == Qt::Key_Home;
    auto keepsArrows = [](QObject* w) {
        return w && (qobject_cast<QAbstractItemView*>(w) || w->property(kKeepsArrows).toBool());
    };
    if (navigation && (keepsArrows(widget) || keepsArrows(focus))) return false;
    return m_timeline->handleKey(key);
}

} // namespace ringside
