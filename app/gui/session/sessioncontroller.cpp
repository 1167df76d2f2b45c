// SPDX-License-Identifier: GPL-2.0-or-later
#include "session/sessioncontroller.h"

#include "mainwindow.h"
#include "plugins/pluginsettings.h"
#include "table/eventtableview.h"

#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QJsonArray>
#include <QSettings>

namespace ringside {

SessionController::SessionController(MainWindow* window) : QObject(window), m_window(window)
{
    connect(window, &MainWindow::sessionChanged, this, [this] {
        if (m_pending) apply();
    });
    // The window says why the recording did not open; the session waits for no other load.
    connect(window, &MainWindow::loadFailed, this, [this] { m_pending.reset(); });
}

bool SessionController::save(const QString& path, QString* error)
{
    const TraceSession* session = m_window->session();
    if (!session) return *error = tr("no recording is open"), false;
    SessionDocument doc;
    doc.recordings.append(describeRecording(session->path, path));
    doc.view = viewToJson(m_window->viewState()->snapshot(), *session);
    const QStringList off = PluginSettings::disabled();
    for (const PluginModule& module : PluginSettings::catalog().modules()) {
        const QString name = QString::fromStdString(module.name);
        (off.contains(name) ? doc.disabledPlugins : doc.enabledPlugins) << name;
    }
    doc.layout = layout();
    return doc.write(path, error);
}

void SessionController::open(const QString& path)
{
    auto doc = SessionDocument::read(path);
    if (!doc) return emit failed(QString::fromStdString(doc.error().message));
    Pending pending{path, *doc, locateRecording(doc->recordings.first(), path), {}};
    if (pending.recording.status == LocatedRecording::Status::Missing)
        return emit failed(tr("%1: cannot restore the session: %2").arg(path, pending.recording.note));
    if (!pending.recording.note.isEmpty()) pending.problems << pending.recording.note;
    if (doc->recordings.size() > 1)
        pending.problems << tr("the session names %1 recordings; only the first is opened").arg(doc->recordings.size());

    // Plugins change what a load makes: set them first, as the session had them.
    QStringList off;
    for (const QString& name : doc->enabledPlugins + doc->disabledPlugins) {
        if (!PluginSettings::catalog().find(name.toStdString()))
            pending.problems << tr("plugin %1, which the session used, is not installed").arg(name);
        else if (doc->disabledPlugins.contains(name))
            off << name;
    }
    PluginSettings::setDisabled(off);
    m_pending = std::move(pending);
    m_window->openFile(m_pending->recording.path);
}

void SessionController::apply()
{
    Pending pending = std::move(*m_pending);
    m_pending.reset();
    const TraceSession* session = m_window->session();
    // Another recording opened meanwhile (the user's): the session's view is not for it.
    if (!session || session->path != pending.recording.path) return;
    const bool same = pending.recording.status != LocatedRecording::Status::Changed;
    const ViewSnapshot view = viewFromJson(pending.document.view, *session, same, &pending.problems);
    restoreLayout(pending.document.layout, &pending.problems);
    m_window->restoreView(view);
    emit restored(pending.path, pending.problems);
}

QJsonObject SessionController::layout() const
{
    QJsonObject json;
    json["window_geometry"] = QString::fromLatin1(m_window->saveGeometry().toBase64());
    json["window_state"] = QString::fromLatin1(m_window->saveState().toBase64());
    QJsonObject docks;
    for (QDockWidget* dock : m_window->findChildren<QDockWidget*>())
        if (!dock->objectName().isEmpty()) docks[dock->objectName()] = dock->isVisible();
    json["panels_shown"] = docks;
    QJsonArray columns;
    QHeaderView* header = m_window->table()->header();
    for (int visual = 0; visual < header->count(); ++visual) {
        const int logical = header->logicalIndex(visual);
        columns.append(QJsonObject{{"column", header->model()->headerData(logical, Qt::Horizontal).toString()},
                                   {"width", header->sectionSize(logical)},
                                   {"hidden", header->isSectionHidden(logical)}});
    }
    json["table_columns"] = columns;
    return json;
}

void SessionController::restoreLayout(const QJsonObject& layout, QStringList* problems)
{
    if (layout.isEmpty()) return;
    if (layout.contains("window_geometry"))
        m_window->restoreGeometry(QByteArray::fromBase64(layout.value("window_geometry").toString().toLatin1()));
    if (layout.contains("window_state") &&
        !m_window->restoreState(QByteArray::fromBase64(layout.value("window_state").toString().toLatin1())))
        *problems << tr("the panel layout could not be restored");
    const QJsonObject docks = layout.value("panels_shown").toObject();
    for (QDockWidget* dock : m_window->findChildren<QDockWidget*>())
        if (docks.contains(dock->objectName())) dock->setVisible(docks.value(dock->objectName()).toBool());
    QHeaderView* header = m_window->table()->header();
    int visual = 0;
    for (const QJsonValue& v : layout.value("table_columns").toArray()) {
        const QJsonObject column = v.toObject();
        int logical = -1;
        for (int i = 0; i < header->count(); ++i)
            if (header->model()->headerData(i, Qt::Horizontal).toString() == column.value("column").toString())
                logical = i;
        if (logical < 0) {
            *problems << tr("the table has no column \"%1\"").arg(column.value("column").toString());
            continue;
        }
        header->moveSection(header->visualIndex(logical), visual++);
        header->setSectionHidden(logical, column.value("hidden").toBool());
        if (column.value("width").toInt() > 0) header->resizeSection(logical, column.value("width").toInt());
    }
}

void SessionController::saveWithDialog()
{
    const TraceSession* session = m_window->session();
    if (!session) return;
    const QFileInfo recording(session->path);
    const QString path = QFileDialog::getSaveFileName(
        m_window, tr("Save session"), recording.absoluteDir().filePath(recording.completeBaseName() + ".ringside"),
        tr("Ringside sessions (*.ringside);;All files (*)"));
    if (path.isEmpty()) return;
    QString error;
    if (!save(path, &error)) emit failed(error);
}

void SessionController::openWithDialog()
{
    QSettings settings;
    const QString path =
        QFileDialog::getOpenFileName(m_window, tr("Open session"), settings.value("files/lastDir").toString(),
                                     tr("Ringside sessions (*.ringside);;All files (*)"));
    if (!path.isEmpty()) open(path);
}

} // namespace ringside
