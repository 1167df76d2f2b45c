// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "session/sessionfile.h"

#include <QObject>

#include <optional>

namespace ringside {

class MainWindow;

// File > Save Session / Open Session (and `ringside --session FILE`): saves the open
// recordings with each one's view, the plugins and the layout (SessionDocument), and puts them
// back: the plugins before the recordings load, the views and layout once all have. What could not be restored is
// listed in restored(); a session that cannot be used at all (unreadable, its recording
// nowhere) fails() with the file and the reason, and the recording open stays.
class SessionController : public QObject {
    Q_OBJECT
public:
    explicit SessionController(MainWindow* window);

    bool save(const QString& path, QString* error);
    void open(const QString& path);
    void saveWithDialog();
    void openWithDialog();

signals:
    // The view is back; `problems` says what of it could not be.
    void restored(const QString& path, const QStringList& problems);
    void failed(const QString& message);

private:
    void apply();
    QJsonObject layout() const;
    void restoreLayout(const QJsonObject& layout, QStringList* problems);

    struct Pending {
        QString path;
        SessionDocument document;
        QList<LocatedRecording> recordings; // those found, in the window's order
        QList<int> documentIndex;           // of each in the document's recordings
        QStringList problems;
    };
    bool allLoaded() const;
    MainWindow* m_window;
    std::optional<Pending> m_pending;
};

} // namespace ringside
