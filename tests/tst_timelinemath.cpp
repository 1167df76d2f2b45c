// SPDX-License-Identifier: GPL-2.0-or-later
// Time <-> pixel math, zoom and pan limits, tick steps and time labels.
#include "timeline/timelinemath.h"

#include <QFont>
#include <QFontMetrics>
#include <QTest>

using namespace ringside::timeline;

Q_DECLARE_METATYPE(ringside::timeline::TimeRange)

class TestTimelineMath : public QObject {
    Q_OBJECT
private slots:
    // A task's label keeps its prefix and pid and loses the end of its name.
    void rowLabelsKeepThePid()
    {
        const QFontMetrics metrics(QFont(QStringLiteral("DejaVu Sans"), 9));
        const QString vcpu = QStringLiteral("vCPU 0 · qemu-system-x86-483882");
        const int width = metrics.horizontalAdvance(QStringLiteral("vCPU 0 · qemu-sy…-483882"));
        const QString fitted = elideRowLabel(metrics, vcpu, width);
        QVERIFY2(fitted.startsWith(QStringLiteral("vCPU 0 · qemu")) && fitted.endsWith(QStringLiteral("…-483882")),
                 qPrintable(fitted));
        QVERIFY(metrics.horizontalAdvance(fitted) <= width);
        const QString task = elideRowLabel(metrics, QStringLiteral("kworker/u4:2-events_unbound-12345"), 90);
        QVERIFY2(task.endsWith(QStringLiteral("…-12345")) && task.startsWith(QStringLiteral("kw")), qPrintable(task));
        QVERIFY(metrics.horizontalAdvance(task) <= 90);
        // What fits stays as it is; a label without a pid loses its end.
        QCOMPARE(elideRowLabel(metrics, QStringLiteral("CPU 3"), 90), QStringLiteral("CPU 3"));
        const QString other = elideRowLabel(metrics, QStringLiteral("guest CPU 12 of a long name"), 60);
        QVERIFY2(other.endsWith(QChar(0x2026)) && other.startsWith(QStringLiteral("gue")), qPrintable(other));
    }

    void timeToPixel_data()
    {
        QTest::addColumn<quint64>("start");
        QTest::addColumn<quint64>("end");
        QTest::addColumn<double>("width");
        QTest::addColumn<quint64>("t");
        QTest::addColumn<double>("x");
        QTest::newRow("start") << quint64(1000) << quint64(2000) << 100.0 << quint64(1000) << 0.0;
        QTest::newRow("middle") << quint64(1000) << quint64(2000) << 100.0 << quint64(1500) << 50.0;
        QTest::newRow("end") << quint64(1000) << quint64(2000) << 100.0 << quint64(2000) << 100.0;
        QTest::newRow("before") << quint64(1000) << quint64(2000) << 100.0 << quint64(900) << -10.0;
        QTest::newRow("after") << quint64(1000) << quint64(2000) << 100.0 << quint64(2500) << 150.0;
        QTest::newRow("huge times") << quint64(1u << 31) * 1000000 << quint64(1u << 31) * 1000000 + 1000 << 1000.0
                                    << quint64(1u << 31) * 1000000 + 1 << 1.0;
        QTest::newRow("empty range") << quint64(5) << quint64(5) << 100.0 << quint64(5) << 0.0;
    }
    void timeToPixel()
    {
        QFETCH(quint64, start);
        QFETCH(quint64, end);
        QFETCH(double, width);
        QFETCH(quint64, t);
        QFETCH(double, x);
        QCOMPARE(timeToX(t, {start, end}, width), x);
    }

    // Zoomed to a nanosecond of a long recording, the events far away stay within an int
    // (a timeline loop once wrapped around and never ended).
    void farTimesStayWithinAnInt()
    {
        QCOMPARE(timeToX(uint64_t(1) << 62, {1000, 1001}, 1000), 1e9);
        QCOMPARE(timeToX(0, {uint64_t(1) << 62, (uint64_t(1) << 62) + 1}, 1000), -1e9);
        QCOMPARE(timeToX(1500, {1000, 2000}, 1000), 500.0);
    }

    void pixelToTime_data()
    {
        QTest::addColumn<double>("x");
        QTest::addColumn<quint64>("t");
        QTest::newRow("left") << 0.0 << quint64(1000);
        QTest::newRow("quarter") << 25.0 << quint64(1250);
        QTest::newRow("right") << 100.0 << quint64(2000);
        QTest::newRow("clamped left") << -30.0 << quint64(1000);
        QTest::newRow("clamped right") << 130.0 << quint64(2000);
    }
    void pixelToTime()
    {
        QFETCH(double, x);
        QFETCH(quint64, t);
        QCOMPARE(xToTime(x, {1000, 2000}, 100), t);
        QCOMPARE(xToTime(x, {1000, 2000}, 0), quint64(1000)); // degenerate width
    }

    void zoomKeepsAnchor_data()
    {
        QTest::addColumn<quint64>("anchor");
        QTest::addColumn<double>("factor");
        QTest::addColumn<TimeRange>("expected");
        QTest::newRow("in at middle") << quint64(1500) << 0.5 << TimeRange{1250, 1750};
        QTest::newRow("in at left") << quint64(1000) << 0.5 << TimeRange{1000, 1500};
        QTest::newRow("out clamps to limits") << quint64(1500) << 4.0 << TimeRange{0, 4000};
        QTest::newRow("in stops at min span") << quint64(1500) << 0.00001 << TimeRange{1450, 1550};
    }
    void zoomKeepsAnchor()
    {
        QFETCH(quint64, anchor);
        QFETCH(double, factor);
        QFETCH(TimeRange, expected);
        const TimeRange zoomed = zoomAround({1000, 2000}, anchor, factor, {0, 4000}, 100);
        QCOMPARE(zoomed.start, expected.start);
        QCOMPARE(zoomed.end, expected.end);
    }

    // The zoom keys keep a selected event in view: where it is, off the edges, or in the middle.
    void zoomKeysKeepTheSelectionInView()
    {
        const TimeRange limits{0, 100000};
        auto at = [](const TimeRange& r, uint64_t t) { return double(t - r.start) / double(r.span()); };
        // Where it is, when well inside.
        TimeRange zoomed = zoomKeepingInView({10000, 20000}, 13000, 0.5, limits);
        QCOMPARE(zoomed.span(), quint64(5000));
        QCOMPARE(at(zoomed, 13000), 0.3);
        // At the edge (1% in): moved in to 10%, zooming in or out.
        zoomed = zoomKeepingInView({10000, 20000}, 10100, 0.5, limits);
        QCOMPARE(zoomed.span(), quint64(5000));
        QCOMPARE(at(zoomed, 10100), 0.1);
        zoomed = zoomKeepingInView({10000, 20000}, 19950, 2.0, limits);
        QCOMPARE(zoomed.span(), quint64(20000));
        QCOMPARE(at(zoomed, 19950), 0.9);
        // Out of view: to the middle.
        zoomed = zoomKeepingInView({10000, 20000}, 50000, 0.5, limits);
        QCOMPARE(zoomed, (TimeRange{47500, 52500}));
        // Near the recording's start or end the limits win.
        zoomed = zoomKeepingInView({0, 10000}, 50, 0.5, limits);
        QCOMPARE(zoomed, (TimeRange{0, 5000}));
        zoomed = zoomKeepingInView({90000, 100000}, 99990, 0.5, limits);
        QCOMPARE(zoomed, (TimeRange{95000, 100000}));
        QCOMPARE(zoomKeepingInView({0, 100000}, 500, 2.0, limits), limits);
    }

    void panStopsAtLimits()
    {
        QCOMPARE(pan({1000, 2000}, 500, {0, 4000}).start, quint64(1500));
        QCOMPARE(pan({1000, 2000}, -5000, {0, 4000}).start, quint64(0));
        QCOMPARE(pan({1000, 2000}, 5000, {0, 4000}).end, quint64(4000));
        QCOMPARE(pan({0, 4000}, 10, {0, 4000}).start, quint64(0)); // already full
    }

    void tickSteps_data()
    {
        QTest::addColumn<quint64>("span");
        QTest::addColumn<double>("width");
        QTest::addColumn<quint64>("step");
        QTest::newRow("1 s over 1000 px") << quint64(1000000000) << 1000.0 << quint64(100000000);
        QTest::newRow("1 s over 1000 px, 50 px min") << quint64(1000000000) << 1000.0 << quint64(100000000);
        QTest::newRow("553 ms over 1200 px") << quint64(553066000) << 1200.0 << quint64(50000000);
        QTest::newRow("10 us over 800 px") << quint64(10000) << 800.0 << quint64(2000);
        QTest::newRow("tiny") << quint64(7) << 800.0 << quint64(1);
        QTest::newRow("zero span") << quint64(0) << 800.0 << quint64(1);
    }
    void tickSteps()
    {
        QFETCH(quint64, span);
        QFETCH(double, width);
        QFETCH(quint64, step);
        QCOMPARE(tickStep(span, width, 100), step);
    }

    void labels()
    {
        QCOMPARE(formatTimestamp(1022903150905ull, 100000000), QString("1022.9"));
        QCOMPARE(formatTimestamp(1022903150905ull, 1000), QString("1022.903150"));
        QCOMPARE(formatTimestamp(1022903150905ull, 1), QString("1022.903150905"));
        QCOMPARE(formatTimestamp(5000000000ull, 1000000000), QString("5"));
        QCOMPARE(formatDuration(553066000), QString("553.066 ms"));
        QCOMPARE(formatDuration(1500000000), QString("1.5 s"));
        QCOMPARE(formatDuration(-3000), QString::fromUtf8("-3 \u00b5s"));
        QCOMPARE(formatDuration(42), QString("42 ns"));
        // A counter clock without conversion: ticks, never seconds.
        QCOMPARE(formatTimestamp(1022903150905ull, 1000, ClockUnit::Ticks), QString("1022903150905"));
        QCOMPARE(formatDuration(553066000, ClockUnit::Ticks), QString("553.066 M ticks"));
        QCOMPARE(formatDuration(640, ClockUnit::Ticks), QString("640 ticks"));
        QCOMPARE(formatDuration(-1500000000, ClockUnit::Ticks), QString("-1.5 G ticks"));
    }
};

QTEST_MAIN(TestTimelineMath) // font metrics need a GUI application
#include "tst_timelinemath.moc"
