// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <QObject>
#include <QString>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <sys/types.h>
#include <thread>

namespace ringside {

class Trace;

// Runs a trace's analyses on a thread of its own while the window already shows the store:
// a recording's in one batch, then finishes; a live capture's batch after batch as its store
// grows, finished when the capture ends. The tables fill in as batches are analysed (updated()
// on the GUI thread), never behind a dialog. A capture's analysis yields to everything else
// (SCHED_IDLE: the thread reading the kernel's buffers comes first) and waits longer after a
// batch during which the capture lost events, then catches up. Once the capture ended nothing
// is left to yield to: the rest runs at normal priority.
//
// Owned by the session whose trace it analyses, and destroyed before that trace: its
// destructor stops the thread and waits for it.
class AnalysisJob : public QObject {
    Q_OBJECT
public:
    // `lostEvents`, for a capture, says how many events the kernel has lost so far.
    AnalysisJob(Trace& trace, bool live, std::function<uint64_t()> lostEvents = {}, QObject* parent = nullptr);
    ~AnalysisJob() override;

    // A capture published rows: analysed with the next batch.
    void storeGrew();
    // The capture ended: the last batch, then the end.
    void captureEnded();
    // Whether the analyses ran at normal priority (tests that wait for them on a loaded machine).
    void setIdlePriority(bool idle) { m_idle = idle; }
    // The analyses are done and the window has had their last update.
    bool isFinished() const { return m_finished.load(); }
    // Permille of the batch being analysed (0 when none runs).
    int permille() const { return m_permille.load(); }
    // An error of the job itself (not an analysis's: see Trace::failures), once finished.
    QString failure() const { return m_failure; }

signals:
    // Tables and statistics grew (after each batch; a capture's at most a few times a second).
    void updated();
    // Every batch analysed and the tables complete (a recording's; a capture's at its end), in
    // place of the last batch's updated(); the plugins' final statistics are being made.
    void tablesFinished();
    // The final statistics are made (statisticsUpdated()), then the job is finished.
    void statisticsUpdated();
    void finished();
    void progress(int permille);
    // A recording's tasks are indexed and named; its other analyses go on.
    void tasksKnown();

private:
    void run();
    void analyseBatches();

    Trace& m_trace;
    const bool m_live;
    std::function<uint64_t()> m_lostEvents;
    std::mutex m_lock;
    std::condition_variable m_wake;
    bool m_more = true;   // a batch waits (the first: whatever the store holds)
    bool m_ended = false; // no batch after the next
    std::atomic<bool> m_stop{false};
    std::atomic<bool> m_finished{false};
    std::atomic<int> m_permille{0};
    std::atomic<bool> m_idle{true};
    std::atomic<pid_t> m_tid{0}; // the thread's, to lift its priority when the capture ends
    QString m_failure;           // written before finished() is posted
    std::thread m_thread; // last: started once the rest is set
};

} // namespace ringside
