// SPDX-License-Identifier: GPL-2.0-or-later
// The differential test over whole corpora of recordings: for every .dat below the folders
// named in RINGSIDE_CORPUS (colon-separated), ringside's dump must equal `trace-cmd report`,
// or the reference in a sibling expected/ folder where one exists (files Debian's trace-cmd
// cannot read, such as zlib). Files trace-cmd rejects must open as an empty trace or fail with
// a message naming the file. Skipped when RINGSIDE_CORPUS is not set.
#include "testsupport.h"

#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QProcess>
#include <QTest>

class TestCorpus : public QObject {
    Q_OBJECT
private slots:
    void dumpEqualsReference_data()
    {
        QTest::addColumn<QString>("path");
        const QString dirs = qEnvironmentVariable("RINGSIDE_CORPUS");
        for (const QString& dir : dirs.split(':', Qt::SkipEmptyParts)) {
            QDirIterator it(dir, {"*.dat"}, QDir::Files, QDirIterator::Subdirectories);
            while (it.hasNext()) {
                const QString path = it.next();
                QTest::newRow(qPrintable(QFileInfo(path).fileName())) << path;
            }
        }
        if (dirs.isEmpty()) QTest::newRow("no corpus") << QString();
    }
    void dumpEqualsReference()
    {
        QFETCH(QString, path);
        if (path.isEmpty()) QSKIP("RINGSIDE_CORPUS is not set");
        const QFileInfo info(path);
        QString expectedFile = info.dir().filePath("expected/" + info.completeBaseName() + ".report.txt.xz");
        const bool checkedIn = QFileInfo::exists(expectedFile);
        bool referenceReadable = true;
        auto reference = [&] {
            if (checkedIn) return ringside::test::readXz(expectedFile);
            QProcess report;
            report.start("trace-cmd", {"report", "-i", path});
            if (!report.waitForFinished(600000)) return QByteArray();
            const QByteArray text = report.readAllStandardOutput();
            referenceReadable = report.exitCode() == 0 && !text.isEmpty();
            return text;
        };
        QByteArray expected = reference();
        auto trace = ringside::Trace::open(path.toStdString());
        if (!referenceReadable) {
            // trace-cmd cannot read it: Ringside opens it empty or says why, naming the file.
            if (trace)
                QCOMPARE((*trace)->store().eventCount(), size_t(0));
            else
                QVERIFY(QString::fromStdString(trace.error().message).contains(path));
            return;
        }
        QVERIFY2(trace, trace ? "" : trace.error().message.c_str());
        const QByteArray actual = ringside::test::dump(**trace);
        // trace-cmd 3.1.6 is not always deterministic: an empty TRACECLOCK option makes it
        // parse uninitialized memory, which can switch its time column to raw counts. Ask it
        // again before calling a difference ours.
        for (int retry = 0; retry < 4 && actual != expected && !checkedIn; ++retry) {
            const QByteArray again = reference();
            if (again != expected) qWarning("trace-cmd printed %s differently on two runs", qPrintable(path));
            expected = again;
        }
        QVERIFY2(actual == expected, qPrintable(ringside::test::firstDifference(expected, actual)));
    }
};

QTEST_GUILESS_MAIN(TestCorpus)
#include "tst_corpus.moc"
