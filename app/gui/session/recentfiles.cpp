// SPDX-License-Identifier: GPL-2.0-or-later
#include "session/recentfiles.h"

#include <QFileInfo>
#include <QMenu>
#include <QSettings>

namespace ringside {

namespace {
constexpr int kRecentFiles = 10;
} // namespace

RecentFiles::RecentFiles(QMenu* menu) : QObject(menu), m_menu(menu)
{
    update();
}

void RecentFiles::add(const QString& path)
{
    QSettings settings;
    QStringList recent = settings.value("files/recent").toStringList();
    const QString absolute = QFileInfo(path).absoluteFilePath();
    recent.removeAll(absolute);
    recent.prepend(absolute);
    while (recent.size() > kRecentFiles) recent.removeLast();
    settings.setValue("files/recent", recent);
    update();
}

void RecentFiles::update()
{
    m_menu->clear();
    const QStringList recent = QSettings().value("files/recent").toStringList();
    for (const QString& path : recent) m_menu->addAction(path, this, [this, path] { emit openRequested(path); });
    m_menu->setEnabled(!recent.isEmpty());
}

} // namespace ringside
