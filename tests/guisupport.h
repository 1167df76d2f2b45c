// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "mainwindow.h"

#include <QSignalSpy>

namespace ringside::test {

// Opens `path` in `window` and waits for the load to end; false when it did not end well.
inline bool load(MainWindow& window, const QString& path)
{
    QSignalSpy loaded(&window, &MainWindow::sessionChanged);
    window.openFile(path);
    return loaded.wait(20000);
}

} // namespace ringside::test
