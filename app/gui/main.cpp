// SPDX-License-Identifier: GPL-2.0-or-later
#include "mainwindow.h"
#include "session/sessioncontroller.h"
#include "status/milestones.h"
#include "util/memorypolicy.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QIcon>

#include <cstdio>
#include <optional>

#include <traceevent/event-parse.h>

namespace {

// The sample recording: installed beside the binary's share folder, or in the source tree.
QString samplePath()
{
    const QString installed = QDir(QCoreApplication::applicationDirPath()).filePath(RINGSIDE_INSTALLED_SAMPLE);
    if (QFileInfo::exists(installed)) return QFileInfo(installed).canonicalFilePath();
    return QStringLiteral(RINGSIDE_SOURCE_SAMPLE);
}

// The command line, parsed the same way for --help/--version (no display needed) and a run.
struct Options {
    QCommandLineOption screenshot{
        "screenshot",
        "Render the main window to OUT once FILE is loaded, then exit: a PNG, or an SVG (.svg) "
        "with shapes and text",
        "OUT.png|OUT.svg"};
    QCommandLineOption range{"range", "Show this time range (seconds, as in the table) once loaded.", "START:END"};
    QCommandLineOption select{"select", "Select this row of the event table once loaded.", "ROW"};
    QCommandLineOption session{"session", "Open a saved session: its recording, view, plugins and layout.",
                               "FILE.ringside"};

    void addTo(QCommandLineParser& parser) const
    {
        parser.setApplicationDescription(
            "Ringside: a timeline viewer for Linux ftrace recordings (trace-cmd .dat files)");
        parser.addHelpOption();
        parser.addVersionOption();
        parser.addOption(screenshot);
        parser.addOption(range);
        parser.addOption(select);
        parser.addOption(session);
        parser.addPositionalArgument("FILE", "The recordings to open on one timeline (default: the sample recording).",
                                     "[FILE...]");
    }
};

// QApplication takes `-session`/`--session` as X11 session management's option and removes
// it: Ringside's own is taken out of the arguments first.
QString takeSessionOption(int& argc, char** argv)
{
    QString session;
    for (int i = 1; i < argc; ++i) {
        const QByteArray arg(argv[i]);
        int taken = 0;
        if ((arg == "--session" || arg == "-session") && i + 1 < argc) {
            session = QString::fromLocal8Bit(argv[i + 1]);
            taken = 2;
        } else if (arg.startsWith("--session=")) {
            session = QString::fromLocal8Bit(arg.mid(10));
            taken = 1;
        }
        if (!taken) continue;
        for (int j = i; j + taken <= argc; ++j) argv[j] = argv[j + taken];
        argc -= taken;
        --i;
    }
    return session;
}

bool wantsHelpOrVersion(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i) {
        const QByteArray arg(argv[i]);
        if (arg == "-h" || arg == "--help" || arg == "-?" || arg == "--help-all" || arg == "-v" || arg == "--version")
            return true;
    }
    return false;
}

void describeApplication()
{
    QCoreApplication::setOrganizationName("Ringside");
    QCoreApplication::setApplicationName("Ringside");
    QCoreApplication::setApplicationVersion(RINGSIDE_VERSION);
}

} // namespace

int main(int argc, char** argv)
{
    ringside::milestones::start();
    ringside::returnLargeBuffersWhenFreed();
    const Options options;
    if (wantsHelpOrVersion(argc, argv)) {
        // Answered without a QApplication, which would abort where there is no display.
        QCoreApplication app(argc, argv);
        describeApplication();
        QCommandLineParser parser;
        options.addTo(parser);
        parser.process(app);
        return 0;
    }
    const QString sessionFile = takeSessionOption(argc, argv);
    QApplication app(argc, argv);
    describeApplication();
    QApplication::setDesktopFileName("io.github.ringside.Ringside");
    QIcon icon(":/icons/ringside-256.png");
    icon.addFile(":/icons/ringside-48.png");
    QApplication::setWindowIcon(QIcon::fromTheme("io.github.ringside.Ringside", icon));
    tep_set_loglevel(TEP_LOG_NONE);

    QCommandLineParser parser;
    options.addTo(parser);
    parser.process(app);

    ringside::MainWindow window;
    const QStringList files = parser.positionalArguments();
    if (parser.isSet(options.screenshot)) window.screenshotWhenLoaded(parser.value(options.screenshot));
    if (parser.isSet(options.range) || parser.isSet(options.select)) {
        double start = 0, end = 0;
        const QStringList parts = parser.value(options.range).split(':');
        const bool haveRange =
            parts.size() == 2 && (start = parts[0].toDouble(), end = parts[1].toDouble(), end > start);
        if (parser.isSet(options.range) && !haveRange) {
            std::fprintf(stderr, "ringside: --range wants START:END in seconds\n");
            return 2;
        }
        const long long row = parser.isSet(options.select) ? parser.value(options.select).toLongLong() : -1;
        // Once the recording is whole: one shown while it loads is complete at storeComplete.
        auto showOnLoad = [&window, haveRange, start, end, row] {
            if (!window.session() || window.session()->loading) return;
            window.showOnLoad(haveRange ? std::optional<std::pair<double, double>>({start, end}) : std::nullopt, row);
        };
        QObject::connect(window.workspace(), &ringside::Workspace::activeChanged, &window, showOnLoad);
        QObject::connect(window.workspace(), &ringside::Workspace::storeComplete, &window, showOnLoad);
    }
    window.show();
    // A saved session given as a file opens as one, as --session does.
    const bool positionalSession = sessionFile.isEmpty() && files.size() == 1 && files[0].endsWith(".ringside");
    if (!sessionFile.isEmpty() || positionalSession)
        window.sessions()->open(positionalSession ? files[0] : sessionFile);
    else if (files.isEmpty())
        window.openFile(samplePath(), true);
    else
        window.openFiles(files);
    return app.exec();
}
