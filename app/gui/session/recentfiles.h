// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <QObject>

class QMenu;

namespace ringside {

// File > Open Recent: the last ten recordings opened, newest first, kept in the settings.
class RecentFiles : public QObject {
    Q_OBJECT
public:
    explicit RecentFiles(QMenu* menu);
    void add(const QString& path);

signals:
    void openRequested(const QString& path);

private:
    void update();

    QMenu* m_menu;
};

} // namespace ringside
