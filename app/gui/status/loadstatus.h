// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <QWidget>

class QLabel;
class QProgressBar;
class QToolButton;

namespace ringside {

class Workspace;

// The load running, in the status bar: what it does, how far, and Stop (Cancel before the
// recording shows). Never modal: the window stays usable while a recording is read, and an
// open draws the recording as its pages come. Follows the workspace's loads itself.
class LoadStatus : public QWidget {
    Q_OBJECT
public:
    explicit LoadStatus(Workspace& workspace, QWidget* parent = nullptr);

    QToolButton* stopButton() const { return m_stop; }

private:
    void started(const QString& path);

    Workspace& m_workspace;
    QLabel* m_label = nullptr;
    QProgressBar* m_bar = nullptr;
    QToolButton* m_stop = nullptr;
};

} // namespace ringside
