// SPDX-License-Identifier: GPL-2.0-or-later
// ringside-cli's JSON documents are an interface: each names its version first ("schema"), and
// the shape of each version (every key path, objects and arrays told apart) is pinned in
// tests/data/json-shapes/, as are the SQL tables' (ringside.sql). A shape that changes without
// a new version fails here; a new version fails until its shape is added
// (RINGSIDE_UPDATE_SHAPES=1 writes the files).
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <set>

namespace {

// Objects whose keys are data (an event's name, an exit reason), not part of the shape.
const QStringList kMaps = {"eventTypes", "exit_reasons", "errors"};

void shapeOf(const QJsonValue& value, const QString& path, std::set<QString>& out)
{
    if (value.isObject()) {
        const QJsonObject object = value.toObject();
        const bool map = kMaps.contains(path.section('.', -1).remove("[]"));
        out.insert(path + (map ? " {map}" : " {}"));
        for (auto it = object.begin(); it != object.end(); ++it)
            shapeOf(it.value(), path + "." + (map ? QString("*") : it.key()), out);
    } else if (value.isArray()) {
        out.insert(path + " []");
        for (const QJsonValue& element : value.toArray()) shapeOf(element, path + "[]", out);
    } else {
        out.insert(path); // a number, a text, a boolean or null: cells may be null
    }
}

// The paths of every document (a plugin whose tables fill on different recordings: the union).
QByteArray shapeText(const std::vector<QJsonObject>& documents)
{
    std::set<QString> paths;
    for (const QJsonObject& document : documents) shapeOf(document, "$", paths);
    QByteArray text;
    for (const QString& p : paths) text += p.toUtf8() + '\n';
    return text;
}

QString shapeFile(const QString& name)
{
    return QStringLiteral(RINGSIDE_TEST_DATA "/json-shapes/") + QString(name).replace('/', '.') + ".txt";
}

} // namespace

class TestJsonSchema : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
private slots:
    void documentsKeepTheirShape_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("schema");
        QTest::addColumn<QString>("shape"); // which shape file: the schema, and a plugin's version
        using ringside::test::fixture;
        QTest::newRow("info") << QStringList{"info", fixture("lost-events.dat"), "--json"} << "ringside.info/1"
                              << "ringside.info/1";
        QTest::newRow("calltree") << QStringList{"calltree", fixture("fgraph-openat.dat"), "--json"}
                                  << "ringside.calltree/1" << "ringside.calltree/1";
        QTest::newRow("calltree --each")
            << QStringList{"calltree", fixture("fgraph-e2big.dat"), "--each", "bprm_execve", "--json"}
            << "ringside.calltree-each/1" << "ringside.calltree-each/1";
        QTest::newRow("function hits") << QStringList{"funcstats", fixture("function-write.dat"), "--json"}
                                       << "ringside.function-hits/1" << "ringside.function-hits/1";
        QTest::newRow("funcstats") << QStringList{"funcstats", fixture("fgraph-openat.dat"), "--json"}
                                   << "ringside.funcstats/1" << "ringside.funcstats/1";
        QTest::newRow("kvm") << QStringList{"kvm", fixture("zlib-host.dat"), fixture("zlib-guest.dat"), "--json"}
                             << "ringside.kvm/1" << "ringside.kvm/1";
        QTest::newRow("latency") << QStringList{"latency", fixture("langraph-perfclock.dat"), "--preset", "irq",
                                                "--json"}
                                 << "ringside.latency/1"
                                 << "ringside.latency/1";
        // The power plugin on two ARM boards' recordings (kept compressed): its idle states on
        // one, its frequencies on the other; the pinned shape holds both documents' paths.
        QStringList power{"stats", "--plugin", "power", "--json"};
        for (const char* board : {"arm-idle.dat", "arm-rtapp.dat"}) {
            const QString file = m_dir.filePath(board);
            QVERIFY(ringside::test::writeFile(file, ringside::test::readXz(fixture(QString(board) + ".xz"))));
            power << file;
        }
        QTest::newRow("power") << power << "ringside.stats/1"
                               << "ringside.stats/1+power";
        for (const char* plugin : {"sched", "syscalls", "workqueue", "kvm"})
            QTest::newRow(plugin) << QStringList{"stats", fixture(plugin == QString("kvm") ? "zlib-host.dat" : "sched-mix.dat"),
                                                 "--plugin", plugin, "--json"}
                                  << "ringside.stats/1" << QString("ringside.stats/1+%1").arg(plugin);
    }
    void documentsKeepTheirShape()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, schema);
        QFETCH(QString, shape);
        // `stats` with several files after its options: one document per file.
        std::vector<QStringList> runs{args};
        if (args.size() > 5 && args[0] == "stats") {
            runs.clear();
            for (qsizetype f = 4; f < args.size(); ++f) runs.push_back(args.mid(0, 4) << args[f]);
        }
        std::vector<QJsonObject> documents;
        for (const QStringList& runArgs : runs) {
            const ringside::test::ProgramRun run = ringside::test::runCli(runArgs);
            QCOMPARE(run.status, 0);
            QJsonParseError error;
            const QJsonObject document = QJsonDocument::fromJson(run.out, &error).object();
            QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
            QVERIFY2(run.out.startsWith("{\"schema\": ") || run.out.startsWith("{\n  \"schema\": "),
                     run.out.left(80).constData()); // the first key, so a script reads it before the rest
            QCOMPARE(document.value("schema").toString(), schema);
            documents.push_back(document);
        }
        const QJsonObject& document = documents.front();
        if (document.contains("plugin_schema"))
            shape = shape.section('+', 0, 0) + "+" + document.value("plugin").toString() + "/" +
                    QString::number(document.value("plugin_schema").toInt());
        const QByteArray actual = shapeText(documents);
        QFile file(shapeFile(shape));
        if (qEnvironmentVariableIsSet("RINGSIDE_UPDATE_SHAPES")) {
            QVERIFY(QDir().mkpath(QFileInfo(file).path()) && file.open(QIODevice::WriteOnly));
            file.write(actual);
            return;
        }
        QVERIFY2(file.open(QIODevice::ReadOnly),
                 qPrintable("no shape pinned for " + shape + ": a new version needs " + file.fileName()));
        const QByteArray expected = file.readAll();
        QVERIFY2(actual == expected,
                 qPrintable(shape + " changed shape without a new version: bump it (and the README's list)\n" +
                            ringside::test::firstDifference(expected, actual)));
    }

    // The SQL tables are an interface too: their version is metadata's ringside_sql_schema, and
    // each version's tables and columns (`.schema` of a recording with the default plugins)
    // are pinned the same way.
    void sqlTablesKeepTheirShape()
    {
        const QString fixture = QStringLiteral(RINGSIDE_TEST_DATA "/sched-mix.dat");
        const ringside::test::ProgramRun version = ringside::test::runCli(
            {"query", fixture, "SELECT str_value FROM metadata WHERE name = 'ringside_sql_schema'", "--format", "csv"});
        QCOMPARE(version.status, 0);
        const QString schema = QString::fromUtf8(version.out).split('\n').value(1).trimmed();
        QVERIFY2(schema.startsWith("ringside.sql/"), version.out.constData());
        const ringside::test::ProgramRun run = ringside::test::runCli({"query", fixture, ".schema"});
        QCOMPARE(run.status, 0);
        QFile file(shapeFile(schema));
        if (qEnvironmentVariableIsSet("RINGSIDE_UPDATE_SHAPES")) {
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(run.out);
            return;
        }
        QVERIFY2(file.open(QIODevice::ReadOnly),
                 qPrintable("no shape pinned for " + schema + ": a new version needs " + file.fileName()));
        const QByteArray expected = file.readAll();
        QVERIFY2(run.out == expected,
                 qPrintable(schema + " changed shape without a new version: bump kSqlSchema (and the README's list)\n" +
                            ringside::test::firstDifference(expected, run.out)));
    }
};

QTEST_GUILESS_MAIN(TestJsonSchema)
#include "tst_jsonschema.moc"
