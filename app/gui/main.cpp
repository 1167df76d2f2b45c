// SPDX-License-Identifier: GPL-2.0-or-later
#include "mainwindow.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>

#include <cstdio>
#include <optional>

#include <traceevent/event-parse.h>

namespace {

// The sample recording: installed beside the binary's share folder, or in the source tree.
QString samplePath()
{
    const QString installed = QDir(QCoreApplication::applicationDirPath()).filePath("../share/ringside/sample.dat");
    if (QFileInfo::exists(installed)) return QFileInfo(installed).canonicalFilePath();
    return QStringLiteral(RINGSIDE_SOURCE_SAMPLE);
}

} // namespace

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName("Ringside");
    QApplication::setApplicationName("Ringside");
    QApplication::setApplicationVersion(RINGSIDE_VERSION);
    tep_set_loglevel(TEP_LOG_NONE);

    QCommandLineParser parser;
    parser.setApplicationDescription("Ringside: a timeline viewer for Linux ftrace recordings (trace-cmd .dat files)");
    parser.addHelpOption();
    parser.addVersionOption();
    QCommandLineOption screenshot("screenshot", "Render the main window to PNG once FILE is loaded, then exit.",
                                  "OUT.png");
    parser.addOption(screenshot);
    QCommandLineOption range("range", "Show this time range (seconds, as in the table) once loaded.", "START:END");
    parser.addOption(range);
    QCommandLineOption select("select", "Select this row of the event table once loaded.", "ROW");
    parser.addOption(select);
    parser.addPositionalArgument("FILE", "The recording to open (default: the sample recording).");
    parser.process(app);

    ringside::MainWindow window;
    const QStringList files = parser.positionalArguments();
    if (parser.isSet(screenshot)) window.screenshotWhenLoaded(parser.value(screenshot));
    if (parser.isSet(range) || parser.isSet(select)) {
        double start = 0, end = 0;
        const QStringList parts = parser.value(range).split(':');
        const bool haveRange =
            parts.size() == 2 && (start = parts[0].toDouble(), end = parts[1].toDouble(), end > start);
        if (parser.isSet(range) && !haveRange) {
            std::fprintf(stderr, "ringside: --range wants START:END in seconds\n");
            return 2;
        }
        const long long row = parser.isSet(select) ? parser.value(select).toLongLong() : -1;
        QObject::connect(
            &window, &ringside::MainWindow::sessionChanged, &window, [&window, haveRange, start, end, row] {
                window.showOnLoad(haveRange ? std::optional<std::pair<double, double>>({start, end}) : std::nullopt,
                                  row);
            });
    }
    window.show();
    if (files.isEmpty())
        window.openFile(samplePath(), true);
    else
        window.openFile(files.first());
    return app.exec();
}
