// SPDX-License-Identifier: GPL-2.0-or-later
// CounterSummary: a counter's lowest, highest and time-weighted mean over any time range, from
// its blocks, equal to a walk of every value (random values, ranges across block edges, a
// table that grows between reads).
#include "testsupport.h"

#include "analysis/countersummary.h"

#include <QRandomGenerator>
#include <QTest>

using namespace ringside;

namespace {

// The same worked out value by value: the value in force at `from` (the last at or before
// it) and those that begin inside, each held until the next or `to`.
CounterSummary::Stats byWalk(const std::vector<CounterRow>& rows, uint64_t from, uint64_t to)
{
    CounterSummary::Stats s;
    size_t inForce = rows.size();
    for (size_t i = 0; i < rows.size(); ++i)
        if (rows[i].time <= from) inForce = i;
    long double integral = 0;
    uint64_t held = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
        if (rows[i].time >= from && rows[i].time < to) ++s.changes;
        if (i != inForce && !(rows[i].time > from && rows[i].time < to)) continue;
        if (!s.any) s.min = s.max = rows[i].value;
        s.any = true;
        s.min = std::min(s.min, rows[i].value), s.max = std::max(s.max, rows[i].value);
        const uint64_t begin = std::max(rows[i].time, from);
        const uint64_t end = std::min(i + 1 < rows.size() ? rows[i + 1].time : to, to);
        integral += (long double)rows[i].value * (long double)(end - begin), held += end - begin;
    }
    s.mean = held ? double(integral / (long double)held) : (s.any ? double(rows[inForce].value) : 0);
    return s;
}

} // namespace

class TestCounterSummary : public QObject {
    Q_OBJECT

private slots:
    void rangesAgreeWithAWalkOfEveryValue()
    {
        QRandomGenerator random(41);
        std::vector<CounterRow> rows;
        GrowingList<CounterRow> lane;
        CounterSummary summary;
        uint64_t t = 1000;
        for (int round = 0; round < 3; ++round) {
            // The table grows: 1000 more values, some at the same time as the one before.
            for (int i = 0; i < 1000; ++i) {
                t += random.bounded(3) == 0 ? 0 : random.bounded(1, 5000);
                const CounterRow r{t, int64_t(random.bounded(-500000, 2000000))};
                rows.push_back(r);
                lane.stage(r);
            }
            lane.publish();
            summary.update(lane);
            QCOMPARE(summary.rows(), rows.size());
            QCOMPARE(summary.lowest(), std::min_element(rows.begin(), rows.end(), [](auto& a, auto& b) {
                                           return a.value < b.value;
                                       })->value);
            for (int q = 0; q < 300; ++q) {
                const uint64_t a = random.bounded(quint64(0), quint64(t + 2000));
                const uint64_t b = a + random.bounded(quint64(1), quint64(q % 3 == 0 ? 200 : 200000));
                const CounterSummary::Stats got = summary.over(lane, a, b), want = byWalk(rows, a, b);
                QCOMPARE(got.any, want.any);
                if (!got.any) continue;
                QCOMPARE(got.min, want.min);
                QCOMPARE(got.max, want.max);
                QCOMPARE(got.changes, want.changes);
                QVERIFY2(std::abs(got.mean - want.mean) <= 1e-6 * std::max(1.0, std::abs(want.mean)),
                         qPrintable(
                             QStringLiteral("[%1, %2): mean %3, walk %4").arg(a).arg(b).arg(got.mean).arg(want.mean)));
            }
        }
        // Before the first value nothing is in force; at the first, it is.
        QVERIFY(!summary.over(lane, 0, rows.front().time).any);
        QCOMPARE(summary.over(lane, rows.front().time, rows.front().time + 1).max, rows.front().value);
        QCOMPARE(summary.valueAt(lane, 0), summary.rows());
    }
};

QTEST_GUILESS_MAIN(TestCounterSummary)
#include "tst_countersummary.moc"
