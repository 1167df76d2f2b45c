// SPDX-License-Identifier: GPL-2.0-or-later
// The background-job helper: only the latest job delivers, cancel stops and silences a job, an
// exception becomes an error, and destroying the owner mid-job neither waits forever nor
// delivers into freed memory. Deterministic: jobs are held on semaphores and the test waits
// for their threads, then runs the queued deliveries.
#include "jobs/jobtracker.h"

#include <QCoreApplication>
#include <QSemaphore>
#include <QTest>

#include <stdexcept>

using namespace ringside;

namespace {

// Lets every finished job's queued delivery run.
void settle(JobTracker& jobs)
{
    jobs.waitForThreads();
    QCoreApplication::sendPostedEvents();
}

} // namespace

class TestJobTracker : public QObject {
    Q_OBJECT
private slots:
    void deliversResultAndProgress()
    {
        JobTracker jobs;
        int result = 0, lastProgress = -1, progressCalls = 0;
        jobs.start(
            [](JobTracker::Context& context) {
                for (int i = 1; i <= 100; ++i) context.reportProgress(i);
                return 42;
            },
            [&](int value) { result = value; }, {}, [&](int value) { lastProgress = value, ++progressCalls; });
        QVERIFY(jobs.isRunning());
        settle(jobs);
        QCOMPARE(result, 42);
        QVERIFY(!jobs.isRunning());
        QCOMPARE(lastProgress, 100); // coalesced reports still end on the last value
        QVERIFY(progressCalls >= 1 && progressCalls <= 100);
    }

    // What a job hands over while it goes on (a recording shown before it is read whole)
    // arrives before its result, and the job is still running then; a superseded job's does not.
    void postedWhileRunningThenTheResult()
    {
        JobTracker jobs;
        QSemaphore posted, hold;
        QStringList heard;
        bool runningWhenPosted = false;
        jobs.start(
            [&](JobTracker::Context& context) {
                context.post([&] {
                    heard << "posted";
                    runningWhenPosted = jobs.isRunning();
                });
                posted.release();
                hold.acquire();
                return 1;
            },
            [&](int) { heard << "result"; });
        posted.acquire();
        QCoreApplication::sendPostedEvents();
        QCOMPARE(heard, QStringList({"posted"}));
        QVERIFY(runningWhenPosted);
        hold.release();
        settle(jobs);
        QCOMPARE(heard, QStringList({"posted", "result"}));

        heard.clear();
        jobs.start(
            [&](JobTracker::Context& context) {
                hold.acquire();
                context.post([&] { heard << "stale post"; });
                return 2;
            },
            [&](int) { heard << "stale result"; });
        jobs.start([](JobTracker::Context&) { return 3; }, [&](int) { heard << "latest"; });
        hold.release();
        settle(jobs);
        QCOMPARE(heard, QStringList({"latest"}));
    }

    void staleResultIsDropped()
    {
        JobTracker jobs;
        QSemaphore hold;
        QList<int> results;
        jobs.start(
            [&hold](JobTracker::Context&) {
                hold.acquire();
                return 1;
            },
            [&](int v) { results << v; });
        jobs.start([](JobTracker::Context&) { return 2; }, [&](int v) { results << v; });
        hold.release(); // the first job now finishes after the second was started
        settle(jobs);
        QCOMPARE(results, QList<int>{2});
    }

    void cancelStopsAndSilencesTheJob()
    {
        JobTracker jobs;
        std::atomic<bool> sawCancel{false};
        bool delivered = false, errored = false;
        QSemaphore started;
        jobs.start(
            [&](JobTracker::Context& context) {
                started.release();
                while (!context.isCancelled()) QThread::yieldCurrentThread();
                sawCancel = true;
                return 0;
            },
            [&](int) { delivered = true; }, [&](const QString&) { errored = true; });
        started.acquire();
        jobs.cancel();
        QVERIFY(!jobs.isRunning());
        settle(jobs);
        QVERIFY(sawCancel);
        QVERIFY(!delivered);
        QVERIFY(!errored);
    }

    void exceptionBecomesError()
    {
        JobTracker jobs;
        QString error;
        bool delivered = false;
        jobs.start([](JobTracker::Context&) -> int { throw std::runtime_error("disk on fire"); },
                   [&](int) { delivered = true; }, [&](const QString& message) { error = message; });
        settle(jobs);
        QVERIFY(!delivered);
        QCOMPARE(error, QString("disk on fire"));
        // Not even a non-std exception escapes.
        jobs.start([](JobTracker::Context&) { throw 7; }, [&] { delivered = true; },
                   [&](const QString& message) { error = message; });
        settle(jobs);
        QVERIFY(!delivered);
        QCOMPARE(error, QString("unknown error"));
    }

    void ownerDestroyedWhileRunning()
    {
        struct Owner {
            JobTracker jobs;
        };
        auto owner = std::make_unique<Owner>();
        bool delivered = false;
        std::atomic<bool> finished{false};
        QSemaphore started;
        owner->jobs.start(
            [&](JobTracker::Context& context) {
                started.release();
                while (!context.isCancelled()) QThread::yieldCurrentThread();
                finished = true;
                return 1;
            },
            [&](int) { delivered = true; }, {}, [&](int) { delivered = true; });
        started.acquire();
        owner.reset(); // cancels, and returns only once the job has ended
        QVERIFY(finished);
        QCoreApplication::sendPostedEvents(); // nothing queued may reach the dead owner
        QVERIFY(!delivered);
    }

    void newJobFromAResultHandler()
    {
        JobTracker jobs;
        QList<int> results;
        jobs.start([](JobTracker::Context&) { return 1; },
                   [&](int v) {
                       results << v;
                       jobs.start([](JobTracker::Context&) { return 2; }, [&](int w) { results << w; });
                   });
        settle(jobs);
        settle(jobs);
        QCOMPARE(results, (QList<int>{1, 2}));
    }
};

QTEST_GUILESS_MAIN(TestJobTracker)
#include "tst_jobtracker.moc"
