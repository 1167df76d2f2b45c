// SPDX-License-Identifier: GPL-2.0-or-later
#include "mainwindow.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>

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
    QCommandLineOption screenshot("screenshot", "Render the main window to PNG once FILE is loaded, then exit.", "OUT.png");
    parser.addOption(screenshot);
    parser.addPositionalArgument("FILE", "The recording to open (default: the sample recording).");
    parser.process(app);

    ringside::MainWindow window;
    const QStringList files = parser.positionalArguments();
    if (parser.isSet(screenshot)) window.screenshotWhenLoaded(parser.value(screenshot));
    window.show();
    if (files.isEmpty()) window.openFile(samplePath(), true);
    else window.openFile(files.first());
    return app.exec();
}
