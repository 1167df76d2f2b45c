// SPDX-License-Identifier: GPL-2.0-or-later
#include "session/sessionfile.h"

#include "query/filtersyntax.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>

#include <algorithm>
#include <map>

namespace ringside {

namespace {

// Times as the table shows them: seconds with nine decimals, or a counter clock's ticks.
QString timeText(uint64_t t, bool nanoseconds)
{
    if (!nanoseconds) return QString::number(t);
    return QStringLiteral("%1.%2").arg(t / 1000000000).arg(t % 1000000000, 9, 10, QLatin1Char('0'));
}

std::optional<uint64_t> parseTime(const QJsonValue& value)
{
    const QString text = value.toString();
    const QStringList parts = text.split('.');
    bool ok = false;
    const uint64_t whole = parts.value(0).toULongLong(&ok);
    if (!ok || parts.size() > 2) return std::nullopt;
    if (parts.size() == 1) return whole;
    const QString frac = parts[1].leftJustified(9, '0').left(9);
    const uint64_t ns = frac.toULongLong(&ok);
    if (!ok) return std::nullopt;
    return whole * 1000000000 + ns;
}

QJsonObject streamJson(const EventStore& store, StreamId stream)
{
    return {{"buffer", QString::fromStdString(store.buffers()[store.stream(stream).buffer].name)},
            {"cpu", store.stream(stream).cpu}};
}

std::optional<StreamId> streamFromJson(const EventStore& store, const QJsonObject& json)
{
    const std::string buffer = json.value("buffer").toString().toStdString();
    const int cpu = json.value("cpu").toInt(-1);
    for (const BufferSummary& b : store.buffers())
        if (b.name == buffer)
            for (StreamId s : b.streams)
                if (store.stream(s).cpu == cpu) return s;
    return std::nullopt;
}

QString streamName(const QJsonObject& json)
{
    const QString buffer = json.value("buffer").toString();
    return (buffer.isEmpty() ? QString() : QObject::tr("buffer %1 ").arg(buffer)) +
           QObject::tr("CPU %1").arg(json.value("cpu").toInt(-1));
}

QString typeName(const TraceSession& session, uint16_t type)
{
    return QString::fromStdString(session.formatter->systemName(type) + "/" + session.formatter->eventName(type));
}

QJsonArray pids(const QVector<int32_t>& list)
{
    QJsonArray array;
    for (int32_t pid : list) array.append(pid);
    return array;
}

QVector<int32_t> pidsFromJson(const QJsonValue& value)
{
    QVector<int32_t> list;
    for (const QJsonValue& v : value.toArray()) list.append(v.toInt());
    return list;
}

// The event of `stream` at exactly `time` named `name`, if the recording has it.
std::optional<EventRef> eventAt(const TraceSession& session, StreamId stream, uint64_t time, const QString& name)
{
    const CpuColumns& columns = session.store().stream(stream).columns;
    size_t low = 0, high = columns.size();
    while (low < high) {
        const size_t mid = (low + high) / 2;
        if (columns.timestamp[mid] < time)
            low = mid + 1;
        else
            high = mid;
    }
    for (size_t i = low; i < columns.size() && columns.timestamp[i] == time; ++i)
        if (QString::fromStdString(session.formatter->eventName(columns.eventType[i])) == name)
            return EventRef{stream, uint32_t(i)};
    return std::nullopt;
}

} // namespace

QJsonObject SessionDocument::toJson() const
{
    QJsonArray files;
    for (qsizetype i = 0; i < recordings.size(); ++i) {
        const SessionRecording& r = recordings[i];
        QJsonObject file{{"path", r.path},
                         {"relative_to_session", r.relative},
                         {"size", QString::number(r.size)},
                         {"fingerprint", r.fingerprint}};
        if (i > 0 && i < recordingViews.size() && !recordingViews[i].isEmpty()) file["view"] = recordingViews[i];
        files.append(file);
    }
    QJsonObject root{{"ringside_session", kVersion},
                     {"recordings", files},
                     {"view", view},
                     {"plugins", QJsonObject{{"enabled", QJsonArray::fromStringList(enabledPlugins)},
                                             {"disabled", QJsonArray::fromStringList(disabledPlugins)}}},
                     {"layout", layout}};
    if (active > 0) root["active_recording"] = active;
    return root;
}

Result<SessionDocument> SessionDocument::read(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return Error{(path + ": cannot read: " + file.errorString()).toStdString()};
    QJsonParseError parseError;
    const QJsonDocument json = QJsonDocument::fromJson(file.readAll(), &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return Error{QObject::tr("%1: not a session file (JSON error at byte %2: %3)")
                         .arg(path)
                         .arg(parseError.offset)
                         .arg(parseError.errorString())
                         .toStdString()};
    const QJsonObject root = json.object();
    const int version = root.value("ringside_session").toInt(-1);
    if (version < 1)
        return Error{
            QObject::tr("%1: not a Ringside session file (no \"ringside_session\" version)").arg(path).toStdString()};
    if (version > kVersion)
        return Error{QObject::tr("%1: a session of a newer Ringside (version %2; this one reads %3)")
                         .arg(path)
                         .arg(version)
                         .arg(kVersion)
                         .toStdString()};
    SessionDocument doc;
    for (const QJsonValue& v : root.value("recordings").toArray()) {
        const QJsonObject r = v.toObject();
        doc.recordings.append({r.value("path").toString(), r.value("relative_to_session").toString(),
                               r.value("size").toString().toLongLong(), r.value("fingerprint").toString()});
        doc.recordingViews.append(r.value("view").toObject());
    }
    if (doc.recordings.isEmpty() || doc.recordings.first().path.isEmpty())
        return Error{QObject::tr("%1: the session names no recording").arg(path).toStdString()};
    doc.view = root.value("view").toObject();
    doc.recordingViews[0] = doc.view;
    doc.active = std::clamp(root.value("active_recording").toInt(0), 0, int(doc.recordings.size()) - 1);
    const QJsonObject plugins = root.value("plugins").toObject();
    for (const QJsonValue& v : plugins.value("enabled").toArray()) doc.enabledPlugins << v.toString();
    for (const QJsonValue& v : plugins.value("disabled").toArray()) doc.disabledPlugins << v.toString();
    doc.layout = root.value("layout").toObject();
    return doc;
}

bool SessionDocument::write(const QString& path, QString* error) const
{
    // QSaveFile: the old session stays whole until the new one is.
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(QJsonDocument(toJson()).toJson()) < 0 || !file.commit()) {
        *error = QObject::tr("%1: cannot write: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

QString recordingFingerprint(const QString& path, QString* error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        if (error) *error = file.errorString();
        return {};
    }
    const qint64 size = file.size();
    QCryptographicHash hash(QCryptographicHash::Sha256);
    hash.addData(QByteArray::number(size));
    constexpr qint64 kEnd = 1 << 20, kBlock = 64 << 10, kBlocks = 16;
    auto add = [&](qint64 at, qint64 length) {
        if (file.seek(at)) hash.addData(file.read(length));
    };
    if (size <= 2 * kEnd + kBlocks * kBlock) {
        add(0, size);
    } else {
        add(0, kEnd);
        for (qint64 i = 1; i <= kBlocks; ++i) add(size / (kBlocks + 1) * i, kBlock);
        add(size - kEnd, kEnd);
    }
    return QString::fromLatin1(hash.result().toHex());
}

SessionRecording describeRecording(const QString& recordingPath, const QString& sessionPath)
{
    const QFileInfo info(recordingPath);
    return {info.absoluteFilePath(), QFileInfo(sessionPath).absoluteDir().relativeFilePath(info.absoluteFilePath()),
            info.size(), recordingFingerprint(info.absoluteFilePath())};
}

LocatedRecording locateRecording(const SessionRecording& recording, const QString& sessionPath)
{
    const QDir sessionDir = QFileInfo(sessionPath).absoluteDir();
    const QStringList candidates = {recording.path, sessionDir.filePath(recording.relative),
                                    sessionDir.filePath(QFileInfo(recording.path).fileName())};
    LocatedRecording changed;
    for (const QString& candidate : candidates) {
        if (candidate.isEmpty() || !QFileInfo(candidate).isFile()) continue;
        const QString path = QFileInfo(candidate).absoluteFilePath();
        const bool moved = path != recording.path;
        if (recordingFingerprint(path) == recording.fingerprint)
            return {moved ? LocatedRecording::Status::Moved : LocatedRecording::Status::Same, path,
                    moved
                        ? QObject::tr("%1 was not found; the same recording was found at %2").arg(recording.path, path)
                        : QString()};
        if (changed.path.isEmpty())
            changed = {LocatedRecording::Status::Changed, path,
                       QObject::tr("%1 has changed since the session was saved (its content is not the same): "
                                   "the view is restored as far as it fits")
                           .arg(path)};
    }
    if (!changed.path.isEmpty()) return changed;
    return {LocatedRecording::Status::Missing,
            {},
            QObject::tr("%1 was not found (nor beside the session file)").arg(recording.path)};
}

QJsonObject viewToJson(const ViewSnapshot& view, const TraceSession& session)
{
    const EventStore& store = session.store();
    const bool ns = session.trace->file().info().timesInUsecs;
    QJsonObject json;
    json["visible"] = QJsonObject{{"start", timeText(view.visible.start, ns)}, {"end", timeText(view.visible.end, ns)}};
    if (view.selection)
        json["selection"] =
            QJsonObject{{"time", timeText(store.timestamp(*view.selection), ns)},
                        {"stream", streamJson(store, view.selection->stream)},
                        {"event", QString::fromStdString(session.formatter->eventName(
                                      store.stream(view.selection->stream).columns.eventType[view.selection->index]))}};
    if (view.selectedCall) json["selected_call"] = qint64(*view.selectedCall);
    QJsonObject markers;
    if (view.markerA) markers["A"] = timeText(*view.markerA, ns);
    if (view.markerB) markers["B"] = timeText(*view.markerB, ns);
    if (view.origin) markers["time_origin"] = timeText(*view.origin, ns);
    json["markers"] = markers;

    QJsonObject filter;
    filter["expression"] = QString::fromStdString(view.filter.expression);
    QJsonArray hiddenCpus, hiddenEvents, hiddenTasks;
    for (size_t s = 0; s < view.filter.hiddenStreams.size(); ++s)
        if (view.filter.hiddenStreams[s]) hiddenCpus.append(streamJson(store, StreamId(uint16_t(s))));
    for (size_t t = 0; t < view.filter.hiddenTypes.size(); ++t)
        if (view.filter.hiddenTypes[t]) hiddenEvents.append(typeName(session, uint16_t(t)));
    std::vector<int32_t> sorted(view.filter.hiddenPids.begin(), view.filter.hiddenPids.end());
    std::sort(sorted.begin(), sorted.end());
    for (int32_t pid : sorted) hiddenTasks.append(pid);
    filter["hidden_cpus"] = hiddenCpus;
    filter["hidden_events"] = hiddenEvents;
    filter["hidden_tasks"] = hiddenTasks;
    json["filter"] = filter;

    json["task_rows"] = pids(view.taskRows);
    json["task_rows_showing_calls"] = pids(view.callTaskRows);
    QJsonArray callCpus, collapsed;
    for (uint16_t s : view.callCpuRows) callCpus.append(streamJson(store, StreamId(s)));
    for (uint16_t b : view.collapsedBuffers) collapsed.append(QString::fromStdString(store.buffers()[b].name));
    json["cpu_rows_showing_calls"] = callCpus;
    json["collapsed_buffers"] = collapsed;
    if (!view.queryText.isEmpty() || !view.queryHistory.isEmpty() || !view.queryTracks.isEmpty()) {
        QJsonObject query;
        query["text"] = view.queryText;
        query["history"] = QJsonArray::fromStringList(view.queryHistory);
        QJsonArray tracks;
        for (const QueryTrackSpec& t : view.queryTracks) tracks.append(QJsonObject{{"name", t.name}, {"sql", t.sql}});
        query["tracks"] = tracks;
        json["query"] = query;
    }
    if (!view.latencies.isEmpty()) {
        // Each latency analysis as ringside-cli latency's --json names what it pairs.
        QJsonArray latencies;
        for (const PairSpec& spec : view.latencies) {
            QJsonArray match;
            for (const auto& [start, end] : spec.fields)
                match.append(QJsonArray{QString::fromStdString(start), QString::fromStdString(end)});
            QJsonObject analysis{{"name", QString::fromStdString(spec.name)},
                                 {"from", QString::fromStdString(spec.from)},
                                 {"to", QString::fromStdString(spec.to)},
                                 {"match", match},
                                 {"same_task", spec.sameTask},
                                 {"same_cpu", spec.sameCpu},
                                 {"nesting", spec.nesting},
                                 {"filter_from", QString::fromStdString(spec.filterFrom)},
                                 {"filter_to", QString::fromStdString(spec.filterTo)}};
            // The beginnings print's marks must have (PairSpec::TextPrefix), when there are any.
            for (const auto& [key, text] : {std::pair{"start_text", &spec.startText}, {"end_text", &spec.endText}})
                if (!text->empty())
                    analysis[key] = QJsonObject{{"field", QString::fromStdString(text->field)},
                                                {"prefix", QString::fromStdString(text->prefix)}};
            latencies.append(analysis);
        }
        json["latency"] = latencies;
    }
    return json;
}

ViewSnapshot viewFromJson(const QJsonObject& json, const TraceSession& session, bool sameRecording,
                          QStringList* problems)
{
    const EventStore& store = session.store();
    ViewSnapshot view;
    view.full = {store.firstTimestamp(), store.lastTimestamp() + 1};
    view.visible = view.full;
    const QJsonObject visible = json.value("visible").toObject();
    const auto start = parseTime(visible.value("start")), end = parseTime(visible.value("end"));
    if (start && end && *start<*end&& * end> view.full.start && *start < view.full.end)
        view.visible = {std::max(*start, view.full.start), std::min(*end, view.full.end)};
    else if (!visible.isEmpty())
        *problems << QObject::tr("the visible range is not in the recording: showing all of it");

    if (json.contains("selection")) {
        const QJsonObject selection = json.value("selection").toObject();
        const auto stream = streamFromJson(store, selection.value("stream").toObject());
        const auto time = parseTime(selection.value("time"));
        const QString name = selection.value("event").toString();
        const auto event = stream && time ? eventAt(session, *stream, *time, name) : std::nullopt;
        if (event)
            view.selection = event;
        else
            *problems << QObject::tr("the selected event (%1 at %2 on %3) is not in the recording")
                             .arg(name, selection.value("time").toString(),
                                  streamName(selection.value("stream").toObject()));
    }
    if (json.contains("selected_call") && view.selection) {
        const qint64 call = json.value("selected_call").toInteger(-1);
        if (sameRecording && call >= 0 && size_t(call) < session.trace->callSlices().size())
            view.selectedCall = uint32_t(call);
    }
    const QJsonObject markers = json.value("markers").toObject();
    view.markerA = markers.contains("A") ? parseTime(markers.value("A")) : std::nullopt;
    view.markerB = markers.contains("B") ? parseTime(markers.value("B")) : std::nullopt;
    view.origin = markers.contains("time_origin") ? parseTime(markers.value("time_origin")) : std::nullopt;

    const QJsonObject filter = json.value("filter").toObject();
    for (const QJsonValue& v : filter.value("hidden_cpus").toArray()) {
        const auto stream = streamFromJson(store, v.toObject());
        if (!stream) {
            *problems
                << QObject::tr("the filter hides %1, which the recording does not have").arg(streamName(v.toObject()));
            continue;
        }
        view.filter.hiddenStreams.resize(store.streamCount(), false);
        view.filter.hiddenStreams[stream->value] = true;
    }
    std::map<QString, uint16_t> types;
    const auto& counts = store.eventTypeCounts();
    for (size_t t = 0; t < counts.size() && t < 65536; ++t)
        if (counts[t] > 0) types[typeName(session, uint16_t(t))] = uint16_t(t);
    for (const QJsonValue& v : filter.value("hidden_events").toArray()) {
        const auto type = types.find(v.toString());
        if (type == types.end()) {
            *problems << QObject::tr("the filter hides event %1, which the recording does not have").arg(v.toString());
            continue;
        }
        view.filter.hiddenTypes.resize(65536, false);
        view.filter.hiddenTypes[type->second] = true;
    }
    for (const QJsonValue& v : filter.value("hidden_tasks").toArray()) view.filter.hiddenPids.insert(v.toInt());
    const std::string expression = filter.value("expression").toString().toStdString();
    if (!expression.empty()) {
        std::string problem;
        {
            problem = checkFilterSyntax(session.trace->tep(), expression);
        }
        if (problem.empty())
            view.filter.expression = expression;
        else
            *problems << QObject::tr("the filter expression \"%1\" does not fit the recording (%2): it is left out")
                             .arg(QString::fromStdString(expression), QString::fromStdString(problem));
    }

    view.taskRows = pidsFromJson(json.value("task_rows"));
    view.callTaskRows = pidsFromJson(json.value("task_rows_showing_calls"));
    for (const QJsonValue& v : json.value("cpu_rows_showing_calls").toArray())
        if (const auto stream = streamFromJson(store, v.toObject())) view.callCpuRows.append(stream->value);
    for (const QJsonValue& v : json.value("collapsed_buffers").toArray()) {
        const auto& buffers = store.buffers();
        for (size_t b = 0; b < buffers.size(); ++b)
            if (QString::fromStdString(buffers[b].name) == v.toString()) view.collapsedBuffers.append(uint16_t(b));
    }
    std::sort(view.collapsedBuffers.begin(), view.collapsedBuffers.end());
    const QJsonObject query = json.value("query").toObject();
    view.queryText = query.value("text").toString();
    for (const QJsonValue& v : query.value("history").toArray())
        if (v.isString()) view.queryHistory.push_back(v.toString());
    // A track whose query no longer fits the recording says so when it is run again.
    for (const QJsonValue& v : query.value("tracks").toArray()) {
        const QJsonObject t = v.toObject();
        if (t.value("sql").isString())
            view.queryTracks.push_back({t.value("name").toString(), t.value("sql").toString()});
    }
    // An analysis whose events the recording lacks says so when it is made again.
    for (const QJsonValue& v : json.value("latency").toArray()) {
        const QJsonObject l = v.toObject();
        PairSpec spec;
        spec.name = l.value("name").toString().toStdString();
        spec.from = l.value("from").toString().toStdString();
        spec.to = l.value("to").toString().toStdString();
        for (const QJsonValue& m : l.value("match").toArray()) {
            const QJsonArray pair = m.toArray();
            if (pair.size() == 2)
                spec.fields.emplace_back(pair[0].toString().toStdString(), pair[1].toString().toStdString());
        }
        spec.sameTask = l.value("same_task").toBool();
        spec.sameCpu = l.value("same_cpu").toBool();
        spec.nesting = l.value("nesting").toBool();
        spec.filterFrom = l.value("filter_from").toString().toStdString();
        spec.filterTo = l.value("filter_to").toString().toStdString();
        for (const auto& [key, text] : {std::pair{"start_text", &spec.startText}, {"end_text", &spec.endText}}) {
            const QJsonObject t = l.value(key).toObject();
            *text = {t.value("field").toString().toStdString(), t.value("prefix").toString().toStdString()};
        }
        if (spec.from.empty() || spec.to.empty()) {
            if (problems) problems->append(QObject::tr("a latency analysis without its start or end event"));
            continue;
        }
        view.latencies.push_back(spec);
    }
    return view;
}

} // namespace ringside
