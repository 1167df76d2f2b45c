// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <QLabel>

namespace ringside {

// A one-line label that never widens its window: a text longer than the room it is given is
// elided (by default in the middle, so a file name's end or a pid stays), and the tooltip has
// it whole.
class ElidedLabel : public QLabel {
    Q_OBJECT
public:
    explicit ElidedLabel(QWidget* parent = nullptr, Qt::TextElideMode mode = Qt::ElideMiddle)
        : QLabel(parent), m_mode(mode)
    {}
    // The whole text; what shows depends on the width. An explicit tooltip replaces the text's.
    void setFullText(const QString& text, const QString& toolTip = {});
    const QString& fullText() const { return m_full; }
    QSize minimumSizeHint() const override;
    QSize sizeHint() const override;

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void elide();
    QString m_full;
    Qt::TextElideMode m_mode;
};

} // namespace ringside
