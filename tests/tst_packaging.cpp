// SPDX-License-Identifier: GPL-2.0-or-later
// What an installation holds and how it presents itself: the install tree (the package's
// file list), the installed programs finding their helper and sample, --help against the man
// pages, --version without a display, the desktop entry, metainfo and MIME type.
#include "testsupport.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QMimeDatabase>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <cstdio>

namespace {

struct Run {
    int status = -1;
    QByteArray out, err;
};

Run run(const QString& program, const QStringList& args,
        const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment())
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(program, args);
    Run r;
    if (!p.waitForFinished(300000)) return r;
    r.status = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

QString packagingFile(const QString& name)
{
    return QStringLiteral(RINGSIDE_SOURCE_DIR "/packaging/") + name;
}

// Long options a help text or a man page names ("\-\-json" in roff is "--json").
QSet<QString> longOptions(QString text)
{
    text.replace("\\-", "-");
    QSet<QString> options;
    static const QRegularExpression option("(?<![\\w-])--[a-z][a-z-]*");
    for (auto it = option.globalMatch(text); it.hasNext();) options.insert(it.next().captured());
    return options;
}

QString readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

bool isGuiFile(const QString& path)
{
    return path.endsWith("/ringside") || path.contains("/applications/") || path.contains("/icons/") ||
           path.contains("/metainfo/") || path.contains("/mime/") || path.endsWith("/ringside.1.gz") ||
           path.endsWith("/sample.dat");
}

QProcessEnvironment withoutDisplay()
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove("DISPLAY");
    env.remove("WAYLAND_DISPLAY");
    env.remove("QT_QPA_PLATFORM");
    return env;
}

} // namespace

class TestPackaging : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_prefix;

private slots:
    void initTestCase()
    {
        QVERIFY(m_prefix.isValid());
        Run r = run(RINGSIDE_CMAKE, {"--install", RINGSIDE_BINARY_DIR, "--prefix", m_prefix.path()});
        QVERIFY2(r.status == 0, r.out + r.err);
    }

    // The install tree is the package's file list (packaging/deb-contents.txt, which
    // check-deb.sh holds the .deb to), less the GUI's files in a build without it.
    void installTreeIsThePackagesFileList()
    {
        QStringList expected;
        for (const QString& line : readAll(packagingFile("deb-contents.txt")).split('\n', Qt::SkipEmptyParts)) {
            const QString path = QString(line).remove(QRegularExpression("^\\./usr"));
            if (RINGSIDE_HAVE_GUI || !isGuiFile(path)) expected << path;
        }
        QVERIFY(expected.contains("/bin/ringside-cli"));
        QStringList installed;
        QDir root(m_prefix.path());
        QDirIterator it(m_prefix.path(), QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext()) installed << "/" + root.relativeFilePath(it.next());
        expected.sort();
        installed.sort();
        QCOMPARE(installed, expected);
    }

    // The installed CLI reads a recording, its event formats checked by the installed probe.
    void installedCliReadsARecording()
    {
        Run r = run(m_prefix.filePath("bin/ringside-cli"), {"info", ringside::test::fixture("threads.dat")});
        QVERIFY2(r.status == 0, r.err);
        QVERIFY(r.out.contains("version:"));
        QVERIFY(!r.out.contains("unsafe-metadata"));
        QVERIFY(QFileInfo(m_prefix.filePath("libexec/ringside/ringside-format-probe")).isExecutable());
    }

    // The installed CLI finds the built-in plugins beside it, and a plugin built from the
    // example against the installed headers alone loads from $RINGSIDE_PLUGIN_PATH.
    void pluginsLoadFromTheInstallation()
    {
        Run stats = run(m_prefix.filePath("bin/ringside-cli"),
                        {"stats", ringside::test::fixture("execve-e2big.dat"), "--plugin", "syscalls"});
        QVERIFY2(stats.status == 0, stats.err);
        QVERIFY2(stats.err.isEmpty(), stats.err); // no second copy of a plugin, no broken module
        QVERIFY(stats.out.contains("E2BIG"));

        const QString compiler = QStandardPaths::findExecutable("c++");
        if (compiler.isEmpty()) QSKIP("no C++ compiler (c++) to build the example plugin with");
        QTemporaryDir modules;
        const QString module = modules.filePath("switchcount.so");
        Run build = run(compiler, {"-std=c++20", "-shared", "-fPIC", "-fvisibility=hidden", "-Wall", "-Werror",
                                   "-I" + m_prefix.filePath("include/ringside"),
                                   RINGSIDE_SOURCE_DIR "/plugins/example/switchcount.cpp", "-o", module});
        QVERIFY2(build.status == 0, build.err);
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("RINGSIDE_PLUGIN_PATH", modules.path());
        Run example =
            run(m_prefix.filePath("bin/ringside-cli"),
                {"stats", ringside::test::fixture("execve-e2big.dat"), "--plugin", "switchcount", "--json"}, env);
        QVERIFY2(example.status == 0, example.err);
        QVERIFY(example.out.contains("\"tasks\": ["));
        QVERIFY(example.out.contains("\"switches_out\": "));
    }

    void cliHelpMatchesItsManPage()
    {
        Run help = run(RINGSIDE_CLI, {"--help"});
        QCOMPARE(help.status, 0);
        const QSet<QString> fromHelp = longOptions(QString::fromUtf8(help.out));
        const QSet<QString> fromPage = longOptions(readAll(packagingFile("man/ringside-cli.1")));
        QVERIFY(fromHelp.contains("--json") && fromHelp.contains("--threads") && fromHelp.contains("--version"));
        QCOMPARE(fromPage, fromHelp);
        QVERIFY(help.out.contains("  kvm HOST.dat"));
        QVERIFY(readAll(packagingFile("man/ringside-cli.1")).contains(".BI kvm \" HOST.dat"));
        for (const char* command : {"info", "dump", "bench", "export"}) {
            QVERIFY(help.out.contains(QByteArray("  ") + command + " FILE"));
            QVERIFY(readAll(packagingFile("man/ringside-cli.1")).contains(QString(".BI %1 \" FILE").arg(command)));
        }
        Run version = run(RINGSIDE_CLI, {"--version"});
        QCOMPARE(version.status, 0);
        QCOMPARE(version.out, QByteArray("ringside-cli " RINGSIDE_VERSION "\n"));
    }

    void guiHelpAndVersionNeedNoDisplay()
    {
        if (!RINGSIDE_HAVE_GUI) QSKIP("built without the GUI");
        Run help = run(RINGSIDE_GUI, {"--help"}, withoutDisplay());
        QVERIFY2(help.status == 0, help.err);
        const QSet<QString> fromHelp = longOptions(QString::fromUtf8(help.out));
        const QSet<QString> fromPage = longOptions(readAll(packagingFile("man/ringside.1")));
        QVERIFY(fromHelp.contains("--screenshot"));
        QCOMPARE(fromPage, fromHelp);
        Run version = run(RINGSIDE_GUI, {"--version"}, withoutDisplay());
        QVERIFY2(version.status == 0, version.err);
        QCOMPARE(version.out, QByteArray("Ringside " RINGSIDE_VERSION "\n"));
    }

    void manPagesRenderWithoutWarnings()
    {
        if (QStandardPaths::findExecutable("man").isEmpty()) QSKIP("man (man-db) is not installed");
        for (const char* page : {"ringside.1", "ringside-cli.1"}) {
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.insert("MANWIDTH", "80");
            env.insert("LC_ALL", "C.UTF-8");
            Run r = run("man", {"--warnings", "-E", "UTF-8", "-l", packagingFile(QString("man/") + page)}, env);
            QCOMPARE(r.status, 0);
            QVERIFY2(r.err.isEmpty(), r.err);
            QVERIFY(r.out.contains("SYNOPSIS"));
        }
    }

    void desktopEntryAndMetainfoValidate()
    {
        if (QStandardPaths::findExecutable("desktop-file-validate").isEmpty() ||
            QStandardPaths::findExecutable("appstreamcli").isEmpty())
            QSKIP("desktop-file-validate or appstreamcli is not installed (packaging/setup-debian.sh installs them)");
        Run desktop = run("desktop-file-validate", {packagingFile("linux/io.github.ringside.Ringside.desktop")});
        QVERIFY2(desktop.status == 0 && desktop.out.isEmpty(), desktop.out + desktop.err);
        Run metainfo = run("appstreamcli",
                           {"validate", "--no-net", packagingFile("linux/io.github.ringside.Ringside.metainfo.xml")});
        QVERIFY2(metainfo.status == 0, metainfo.out + metainfo.err);
        // The metainfo's release is the project's version.
        QVERIFY(readAll(packagingFile("linux/io.github.ringside.Ringside.metainfo.xml"))
                    .contains("<release version=\"" RINGSIDE_VERSION "\""));
    }

    // trace-cmd recordings are known by their magic bytes, whatever their name; the *.dat glob
    // weighs little, so a type another package gives *.dat files keeps them.
    void mimeTypeMatchesRecordings()
    {
        if (QStandardPaths::findExecutable("update-mime-database").isEmpty())
            QSKIP("update-mime-database (shared-mime-info) is not installed");
        QTemporaryDir data;
        QVERIFY(QDir().mkpath(data.filePath("mime/packages")));
        QVERIFY(QFile::copy(packagingFile("linux/io.github.ringside.Ringside.mime.xml"),
                            data.filePath("mime/packages/io.github.ringside.Ringside.xml")));
        QFile other(data.filePath("mime/packages/other.xml"));
        QVERIFY(other.open(QIODevice::WriteOnly));
        other.write("<?xml version=\"1.0\"?>\n"
                    "<mime-info xmlns=\"http://www.freedesktop.org/standards/shared-mime-info\">\n"
                    "  <mime-type type=\"application/x-other-dat\"><glob pattern=\"*.dat\"/></mime-type>\n"
                    "</mime-info>\n");
        other.close();
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("XDG_DATA_DIRS", data.path() + ":/usr/share");
        Run update = run("update-mime-database", {data.filePath("mime")}, env);
        QVERIFY2(update.status == 0 && update.err.isEmpty(), update.err);
        QVERIFY(readAll(data.filePath("mime/types")).split('\n').contains("application/x-trace-cmd"));

        const QString renamed = data.filePath("recording.bin");
        QVERIFY(QFile::copy(ringside::test::fixture("threads.dat"), renamed));
        QFile levels(data.filePath("levels.dat"));
        QVERIFY(levels.open(QIODevice::WriteOnly));
        levels.write("level 1\nlevel 2\n");
        levels.close();
        // A child process reads the new database (QMimeDatabase reads XDG_DATA_DIRS once).
        env.insert("RINGSIDE_MIME_QUERY", "1");
        Run query = run(QCoreApplication::applicationFilePath(), {renamed, levels.fileName()}, env);
        QCOMPARE(query.out, QByteArray("application/x-trace-cmd\napplication/x-other-dat\n"));

        // Without the other type, a recording named *.dat is one by its name too.
        QVERIFY(QFile::remove(data.filePath("mime/packages/other.xml")));
        QCOMPARE(run("update-mime-database", {data.filePath("mime")}, env).status, 0);
        query = run(QCoreApplication::applicationFilePath(), {ringside::test::fixture("threads.dat")}, env);
        QCOMPARE(query.out, QByteArray("application/x-trace-cmd\n"));
    }
};

// Run as a child with RINGSIDE_MIME_QUERY set: prints the MIME type of each argument.
int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsSet("RINGSIDE_MIME_QUERY")) {
        QCoreApplication app(argc, argv);
        QMimeDatabase db;
        for (int i = 1; i < argc; ++i) std::printf("%s\n", qPrintable(db.mimeTypeForFile(argv[i]).name()));
        return 0;
    }
    QCoreApplication app(argc, argv);
    TestPackaging test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_packaging.moc"
