// SPDX-License-Identifier: GPL-2.0-or-later
#include "exports/windowscreenshot.h"

#include "jobs/analysisjob.h"
#include "session/sessioncontroller.h"
#include "state/workspace.h"

#include <QApplication>
#include <QTimer>

namespace ringside {

WindowScreenshot::WindowScreenshot(Workspace& workspace, SessionController* sessions,
                                   std::function<bool(const QString&)> save, QString path, QObject* parent)
    : QObject(parent), m_workspace(workspace), m_save(std::move(save)), m_path(std::move(path))
{
    sessions->setHeadless(true);
    connect(sessions, &SessionController::failed, this, [] { QApplication::exit(1); });
    connect(&workspace, &Workspace::loadFailed, this, [](const QString& message) {
        qCritical("ringside: %s", qPrintable(message));
        QApplication::exit(1);
    });
    connect(&workspace, &Workspace::loadsDone, this, &WindowScreenshot::takeWhenAnalysed);
}

void WindowScreenshot::takeWhenAnalysed()
{
    if (!m_workspace.session()) return;
    // Once every recording's analyses are done: the picture shows their tables.
    const RecordingSet& recordings = m_workspace.recordings();
    for (size_t i = 0; i < recordings.size(); ++i)
        if (recordings.at(i)->analyses && !recordings.at(i)->analyses->isFinished()) {
            QTimer::singleShot(100, this, &WindowScreenshot::takeWhenAnalysed);
            return;
        }
    QTimer::singleShot(300, this, [this] {
        const bool saved = m_save(m_path);
        if (!saved) qCritical("ringside: cannot write %s", qPrintable(m_path));
        QApplication::exit(saved ? 0 : 1);
    });
}

} // namespace ringside
