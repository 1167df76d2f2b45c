// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "session/sessionfile.h"

#include <QObject>

#include <optional>

namespace ringside {

class MainWindow;

// File > Save Session / Open Session (and `ringside --session FILE`): saves the open
// recording's view, plugins and layout (SessionDocument), and puts them back: the plugins
// before the recording loads, the view and layout once it has. What could not be restored is
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
        LocatedRecording recording;
        QStringList problems;
    };
    MainWindow* m_window;
    std::optional<Pending> m_pending;
};

} // namespace ringside
