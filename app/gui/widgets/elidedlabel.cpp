// SPDX-License-Identifier: GPL-2.0-or-later
#include "widgets/elidedlabel.h"

namespace ringside {

void ElidedLabel::setFullText(const QString& text, const QString& toolTip)
{
    m_full = text;
    setToolTip(toolTip.isEmpty() ? text : toolTip);
    elide();
    updateGeometry();
}

QSize ElidedLabel::minimumSizeHint() const
{
    // Room for a few characters and the ellipsis: the rest of the layout decides the width.
    return QSize(fontMetrics().horizontalAdvance(QStringLiteral("xxxx…")), QLabel::minimumSizeHint().height());
}

QSize ElidedLabel::sizeHint() const
{
    return QSize(fontMetrics().horizontalAdvance(m_full) + 2 * margin() + 2, QLabel::sizeHint().height());
}

void ElidedLabel::resizeEvent(QResizeEvent* event)
{
    QLabel::resizeEvent(event);
    elide();
}

void ElidedLabel::elide()
{
    const QString shown = fontMetrics().elidedText(m_full, m_mode, std::max(0, contentsRect().width()));
    if (shown != text()) QLabel::setText(shown);
}

} // namespace ringside
