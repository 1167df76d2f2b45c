// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <QObject>

class QProgressDialog;
class QWidget;

namespace ringside {

class Workspace;

// The workspace's loads behind a progress dialog (shown when a load takes more than a moment,
// Cancel stops it), gone after every load however it ends.
class LoadProgressDialog : public QObject {
    Q_OBJECT
public:
    LoadProgressDialog(Workspace& workspace, QWidget* window);

private:
    void show(const QString& path);
    void close();

    Workspace& m_workspace;
    QWidget* m_window;
    QProgressDialog* m_dialog = nullptr;
};

} // namespace ringside
