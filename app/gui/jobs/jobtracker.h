// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <QObject>
#include <QPointer>
#include <QString>
#include <QThread>

#include <atomic>
#include <exception>
#include <functional>
#include <memory>
#include <type_traits>
#include <vector>

namespace ringside {

// Runs background jobs for one GUI object and delivers what they produce on the GUI thread.
//
// Every start() begins a new generation and cancels the job before it: only the latest job's
// progress, result or error reaches the callbacks, so a superseded or cancelled job can never
// overwrite what the user asked for last. A job polls its Context for cancellation (or hands
// cancelFlag() to core APIs that take one). An exception thrown by a job is caught on its
// thread and delivered as an error, never a crash.
//
// Invariant: no job outlives its tracker. The tracker is a member of the object the callbacks
// report to; its destructor cancels the running jobs and waits for their threads, and queued
// deliveries die with the tracker's receiver object, so a callback never runs on a destroyed
// owner. Construct, start and cancel on the GUI thread only.
class JobTracker {
public:
    // Handed to the job on its worker thread.
    class Context {
    public:
        bool isCancelled() const { return m_state->cancel.load(std::memory_order_relaxed); }
        const std::atomic<bool>* cancelFlag() const { return &m_state->cancel; }
        // Reports progress (any scale the caller's onProgress understands). Coalesced: while
        // one report waits for the GUI thread, later ones only update the value it will show.
        void reportProgress(int value);
        // Runs `what` on the GUI thread while the job goes on, if the job is still the latest then.
        void post(std::function<void()> what);

    private:
        friend class JobTracker;
        struct State {
            std::atomic<bool> cancel{false};
            std::atomic<int> progress{0};
            std::atomic<bool> progressQueued{false};
        };
        Context(JobTracker* tracker, std::shared_ptr<State> state) : m_tracker(tracker), m_state(std::move(state)) {}
        JobTracker* m_tracker;
        std::shared_ptr<State> m_state;
    };

    using ErrorHandler = std::function<void(const QString& message)>;
    using ProgressHandler = std::function<void(int value)>;

    JobTracker();
    JobTracker(const JobTracker&) = delete;
    JobTracker& operator=(const JobTracker&) = delete;
    ~JobTracker();

    // Runs `job(Context&)` on a worker thread; then `onResult(result)` (or `onResult()` for a
    // void job) runs on the GUI thread if this job is still the latest. Cancels the previous job.
    template <typename Job, typename OnResult>
    void start(Job job, OnResult onResult, ErrorHandler onError = {}, ProgressHandler onProgress = {})
    {
        using Result = std::invoke_result_t<Job&, Context&>;
        auto state = begin(std::move(onProgress));
        m_onError = std::move(onError);
        run(state, [this, state, job = std::move(job), onResult = std::move(onResult)]() mutable {
            Context context(this, state);
            if constexpr (std::is_void_v<Result>) {
                job(context);
                deliver(state, [onResult = std::move(onResult)]() mutable { onResult(); });
            } else {
                auto result = std::make_shared<Result>(job(context));
                deliver(state, [onResult = std::move(onResult), result]() mutable { onResult(std::move(*result)); });
            }
        });
    }

    // Drops whatever the current job would still deliver and asks it to stop.
    void cancel();
    // Whether the latest job has not delivered yet (and was not cancelled).
    bool isRunning() const { return m_running; }
    int generation() const { return m_generation; }
    // Blocks until every job thread has ended (their deliveries may still be queued); for
    // tests and shutdown.
    void waitForThreads();

private:
    std::shared_ptr<Context::State> begin(ProgressHandler onProgress);
    void run(std::shared_ptr<Context::State> state, std::function<void()> body);
    // Queues `what` for the GUI thread; it runs only if `state` is still the latest job.
    void deliver(const std::shared_ptr<Context::State>& state, std::function<void()> what);

    int m_generation = 0;
    bool m_running = false;
    std::shared_ptr<Context::State> m_current;
    ProgressHandler m_onProgress;
    ErrorHandler m_onError;
    std::vector<QPointer<QThread>> m_threads;
    // Deliveries are queued to this object; deleting it discards those not yet run.
    std::unique_ptr<QObject> m_receiver;
};

} // namespace ringside
