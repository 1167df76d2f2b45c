// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <QObject>
#include <QString>

#include <functional>

namespace ringside {

class SessionController;
class Workspace;

// `ringside --screenshot FILE`: once every load is done and every recording's analyses, the
// window is saved to FILE and the application quits, with 1 when a load, a session or the
// save failed (said in the log, where message boxes would be).
class WindowScreenshot : public QObject {
    Q_OBJECT
public:
    WindowScreenshot(Workspace& workspace, SessionController* sessions, std::function<bool(const QString&)> save,
                     QString path, QObject* parent);

private:
    void takeWhenAnalysed();

    Workspace& m_workspace;
    std::function<bool(const QString&)> m_save;
    QString m_path;
};

} // namespace ringside
