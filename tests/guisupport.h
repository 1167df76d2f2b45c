// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "mainwindow.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTest>

namespace ringside::test {

// Waits until every open recording's analyses are done (their tables complete).
inline bool waitForAnalyses(const MainWindow& window, int milliseconds = 120000)
{
    QElapsedTimer waited;
    waited.start();
    auto done = [&] {
        const RecordingSet& set = window.recordings();
        for (size_t i = 0; i < set.size(); ++i)
            if (set.at(i)->loading || (set.at(i)->analyses && !set.at(i)->analyses->isFinished())) return false;
        return true;
    };
    while (!done()) {
        if (waited.elapsed() > milliseconds) return false;
        QTest::qWait(20);
    }
    // Their last word (updated, finished) is delivered on this thread after they end.
    QCoreApplication::processEvents();
    return true;
}

// Opens `path` in `window` and waits for the load to end; false when it did not end well.
// With `analyses`, also for the analyses, which the window runs once it shows the recording.
inline bool load(MainWindow& window, const QString& path, bool analyses = true)
{
    QSignalSpy shown(window.workspace(), &Workspace::activeChanged);
    QSignalSpy ended(window.workspace(), &Workspace::loadEnded);
    window.openFile(path);
    // The recording shows as its pages are read; the load ends once it is complete.
    if (!ended.wait(60000) || shown.isEmpty()) return false;
    return !analyses || waitForAnalyses(window);
}

} // namespace ringside::test
