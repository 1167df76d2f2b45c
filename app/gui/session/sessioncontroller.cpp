// SPDX-License-Identifier: GPL-2.0-or-later
#include "session/sessioncontroller.h"

#include "plugins/pluginsettings.h"
#include "state/workspace.h"

#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QJsonArray>
#include <QMainWindow>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>

namespace ringside {

SessionController::SessionController(Workspace& workspace, QMainWindow* window, QHeaderView* tableHeader)
    : QObject(window), m_workspace(workspace), m_window(window), m_tableHeader(tableHeader)
{
    connect(this, &SessionController::restored, this, &SessionController::showRestored);
    connect(this, &SessionController::failed, this, &SessionController::showFailure);
    auto maybeApply = [this] {
        if (m_pending && allLoaded()) apply();
    };
    connect(&workspace, &Workspace::activeChanged, this, maybeApply);
    connect(&workspace, &Workspace::recordingsChanged, this, maybeApply);
    connect(&workspace, &Workspace::storeComplete, this, maybeApply);
    // Why a recording did not open: the first one is the session's base, and without it the
    // session waits for no other load; a later one is listed as not restored.
    connect(&workspace, &Workspace::loadFailed, this, [this](const QString& message) {
        if (!m_pending) return;
        const RecordingSet& set = m_workspace.recordings();
        if (set.empty() || set.at(0)->path != m_pending->recordings.first().path) return m_pending.reset();
        for (qsizetype i = 1; i < m_pending->recordings.size(); ++i) {
            if (set.indexOf(m_pending->recordings[i].path)) continue;
            m_pending->problems << message;
            m_pending->recordings.removeAt(i);
            m_pending->documentIndex.removeAt(i);
            break;
        }
        if (allLoaded()) apply();
    });
}

bool SessionController::allLoaded() const
{
    const RecordingSet& set = m_workspace.recordings();
    if (set.size() != size_t(m_pending->recordings.size())) return false;
    for (qsizetype i = 0; i < m_pending->recordings.size(); ++i)
        if (set.at(size_t(i))->path != m_pending->recordings[i].path || set.at(size_t(i))->loading) return false;
    return true;
}

bool SessionController::save(const QString& path, QString* error)
{
    const RecordingSet& set = m_workspace.recordings();
    if (set.empty()) return *error = tr("no recording is open"), false;
    for (size_t i = 0; i < set.size(); ++i)
        if (set.at(i)->isCapture && !set.at(i)->liveSaved)
            return *error = tr("the capture is not in a file yet: File > Save Capture As first"), false;
    SessionDocument doc;
    const std::vector<std::optional<ViewSnapshot>> views = m_workspace.views();
    for (size_t i = 0; i < set.size(); ++i) {
        doc.recordings.append(describeRecording(set.at(i)->path, path));
        doc.recordingViews.append(views[i] ? viewToJson(*views[i], *set.at(i)) : QJsonObject());
    }
    doc.view = doc.recordingViews.first();
    doc.active = int(m_workspace.active());
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
    Pending pending{path, *doc, {}, {}, {}};
    for (qsizetype i = 0; i < doc->recordings.size(); ++i) {
        const LocatedRecording located = locateRecording(doc->recordings[i], path);
        if (located.status == LocatedRecording::Status::Missing) {
            // Without the first recording there is nothing to restore; without another, the rest.
            if (i == 0) return emit failed(tr("%1: cannot restore the session: %2").arg(path, located.note));
            pending.problems << located.note;
            continue;
        }
        if (!located.note.isEmpty()) pending.problems << located.note;
        pending.recordings << located;
        pending.documentIndex << int(i);
    }

    // The queries it would run again, said before any runs (a session may come from anyone;
    // they can only read the recording, but the user sees what they are).
    std::vector<SessionQuery> queries;
    for (const QJsonObject& view : doc->recordingViews)
        for (const QJsonValue& t : view.value("query").toObject().value("tracks").toArray())
            if (t.toObject().value("sql").isString())
                queries.push_back({t.toObject().value("name").toString(), t.toObject().value("sql").toString()});
    if (!queries.empty() && !confirmQueries(queries)) {
        for (QJsonObject& view : pending.document.recordingViews) {
            QJsonObject query = view.value("query").toObject();
            QJsonArray history = query.value("history").toArray();
            for (const QJsonValue& t : query.value("tracks").toArray()) history.append(t.toObject().value("sql"));
            query["history"] = history;
            query["tracks"] = QJsonArray();
            view["query"] = query;
        }
        pending.problems << (queries.size() == 1
                                 ? tr("the session's query track was not made: its SQL is in the Query pane's history")
                                 : tr("the session's %1 query tracks were not made: their SQL is in the Query "
                                      "pane's history")
                                       .arg(queries.size()));
    }

    // Plugins change what a load makes: set them first, as the session had them.
    QStringList off;
    for (const QString& name : doc->enabledPlugins + doc->disabledPlugins) {
        if (!PluginSettings::catalog().find(name.toStdString()))
            pending.problems << tr("plugin %1, which the session used, is not installed").arg(name);
        else if (doc->disabledPlugins.contains(name))
            off << name;
    }
    PluginSettings::setDisabled(off);
    QStringList paths;
    for (const LocatedRecording& r : pending.recordings) paths << r.path;
    m_pending = std::move(pending);
    emit openRequested(paths);
}

bool SessionController::confirmQueries(const std::vector<SessionQuery>& queries) const
{
    if (m_confirmQueries) return m_confirmQueries(queries);
    if (m_headless) {
        for (const SessionQuery& q : queries)
            qInfo("ringside: the session runs query \"%s\": %s", qPrintable(q.name), qPrintable(q.sql));
        return true;
    }
    QStringList lines;
    for (const SessionQuery& q : queries) {
        QString sql = q.sql.simplified();
        if (sql.size() > 300) sql = sql.left(300) + QStringLiteral("…");
        lines << QStringLiteral("<li><b>%1</b>: <code>%2</code></li>").arg(q.name.toHtmlEscaped(), sql.toHtmlEscaped());
    }
    QMessageBox box(
        QMessageBox::Question, tr("Run the Session's Queries?"),
        (queries.size() == 1
             ? tr("This session makes a timeline track by running SQL over the recording:")
             : tr("This session makes %1 timeline tracks by running SQL over the recording:").arg(queries.size())) +
            QStringLiteral("<ul>%1</ul>").arg(lines.join(QString())) +
            tr("A query reads the recording only: it cannot write files or attach databases."),
        QMessageBox::NoButton, m_window);
    box.setTextFormat(Qt::RichText);
    QPushButton* run = box.addButton(tr("Run Them"), QMessageBox::AcceptRole);
    box.addButton(tr("Open Without Them"), QMessageBox::RejectRole);
    box.setDefaultButton(run);
    box.exec();
    return box.clickedButton() == run;
}

void SessionController::apply()
{
    Pending pending = std::move(*m_pending);
    m_pending.reset();
    const RecordingSet& set = m_workspace.recordings();
    std::vector<std::optional<ViewSnapshot>> views(set.size());
    size_t active = 0;
    for (qsizetype i = 0; i < pending.recordings.size(); ++i) {
        const int documentIndex = pending.documentIndex[i];
        if (documentIndex == pending.document.active) active = size_t(i);
        const QJsonObject& json = pending.document.recordingViews.value(documentIndex);
        if (json.isEmpty()) continue;
        const bool same = pending.recordings[i].status != LocatedRecording::Status::Changed;
        QStringList problems;
        views[size_t(i)] = viewFromJson(json, *set.at(size_t(i)), same, &problems);
        // With several recordings, each note says whose view it is about.
        for (const QString& p : problems)
            pending.problems << (set.size() > 1 ? QStringLiteral("%1: %2").arg(set.name(size_t(i)), p) : p);
    }
    // The views first: the table's column titles are the shown recording's (Time (s) or ticks).
    emit viewsRestoreRequested(views, active);
    restoreLayout(pending.document.layout, &pending.problems);
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
    QHeaderView* header = m_tableHeader;
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
    if (layout.contains("window_geometry")) {
        // restoreGeometry gives a window maximized already its normal size, which the window
        // manager refuses without a word: the content was laid out at that size inside the
        // maximized window. It keeps the size it has.
        const bool wasMaximized = m_window->isMaximized();
        const QSize before = m_window->size();
        m_window->restoreGeometry(QByteArray::fromBase64(layout.value("window_geometry").toString().toLatin1()));
        if (wasMaximized && m_window->isMaximized() && m_window->size() != before) {
            m_window->resize(before);
            m_window->setWindowState(m_window->windowState() | Qt::WindowMaximized); // the resize dropped it
        }
    }
    if (layout.contains("window_state") &&
        !m_window->restoreState(QByteArray::fromBase64(layout.value("window_state").toString().toLatin1())))
        *problems << tr("the panel layout could not be restored");
    const QJsonObject docks = layout.value("panels_shown").toObject();
    for (QDockWidget* dock : m_window->findChildren<QDockWidget*>())
        if (docks.contains(dock->objectName())) dock->setVisible(docks.value(dock->objectName()).toBool());
    QHeaderView* header = m_tableHeader;
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
    const TraceSession* session = m_workspace.session().get();
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

void SessionController::showRestored(const QString& path, const QStringList& problems)
{
    if (problems.isEmpty()) return;
    if (m_headless) {
        for (const QString& p : problems) qWarning("ringside: %s: %s", qPrintable(path), qPrintable(p));
        return;
    }
    auto* box = new QMessageBox(QMessageBox::Information, tr("Session restored"),
                                tr("%1 is restored, with these notes:").arg(path), QMessageBox::Ok, m_window);
    box->setInformativeText("• " + problems.join("\n• "));
    box->setObjectName("sessionProblemsMessage");
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

void SessionController::showFailure(const QString& message)
{
    if (m_headless) return qCritical("ringside: %s", qPrintable(message));
    auto* box = new QMessageBox(QMessageBox::Warning, tr("Session"), message, QMessageBox::Ok, m_window);
    box->setObjectName("sessionFailedMessage");
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

} // namespace ringside
