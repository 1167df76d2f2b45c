// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "capture/captureclient.h"
#include "capture/capturemetadata.h"
#include "file/datwriter.h"
#include "trace.h"
#include "util/result.h"

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace ringside {

class SpoolPageSource;
class StoreAppender;
struct LiveCaptureState;

// A capture streamed into a store that grows while the views read it: ringside-capture's pages
// go through the same page parser as a file's and are appended with StoreAppender on a thread
// of this object's own, which also hands the trace the records its analyses asked for (its
// capture taps); the pages are kept for save() and the events' fields in an unnamed file in
// `workDir` (SpoolPageSource). The trace's formats come from the capture's metadata, written
// as a recording without pages in `workDir`.
class LiveCapture {
public:
    struct Progress {
        uint64_t events = 0;               // published in the store
        uint64_t overrun = 0, dropped = 0; // the kernel's counters: events lost
        // What the helper sent that could not be taken (a page of a CPU it never named, or
        // longer than a page; metadata that does not parse), kept out and counted; the first
        // reason of each. Also in the store's diagnostics once the capture ended.
        uint64_t refusedPages = 0, refusedMetadata = 0;
        std::string refusedPage, refusedMetadataWhy;
        bool ended = false;                // the helper sent everything, or is gone
        std::string error;                 // why it ended early, if it did
    };

    // Starts the helper with `helperArguments` (as ringside-capture takes them) and waits for
    // its metadata: an error names what the kernel or the helper refused. `plugins` analyse the
    // capture beside the built-in analyses (Trace::analyse, batch by batch, on the caller's
    // analysis thread): the capture's parser collects the records they asked for.
    static Result<std::unique_ptr<LiveCapture>> start(const std::vector<std::string>& helperArguments,
                                                      const std::string& workDir,
                                                      std::vector<std::unique_ptr<Plugin>> plugins = {});
    ~LiveCapture();

    Trace& trace() { return *m_traceRef; }
    // Hands the trace to its owner (a window's session), which keeps it alive as long as this
    // object: the capture's thread grows its store.
    std::unique_ptr<Trace> takeTrace() { return std::move(m_trace); }
    const EventStore& store() const { return *m_store; }
    // Called on the capture's thread after rows were published, with the row count.
    void setGrowthListener(std::function<void(size_t rows)> listener);
    // Asks the helper to stop; what the buffers hold still arrives, then progress().ended.
    void stop();
    Progress progress() const;
    // Waits until the capture's thread is done (after stop(), or when the helper ended).
    void waitUntilEnded();
    // After the end: the task names the kernel saved go into the trace's formats, as a saved
    // recording has them.
    void applyTaskNames();
    // While it runs: the names of tasks that appeared since the last call, as /proc gave them
    // when they did (the capture is of this machine), go into the trace's formats. The end's
    // names replace them.
    // True when there were names to apply.
    bool applySeenTaskNames();
    // Writes what was captured as a trace-cmd recording, with the end's task names and
    // counters when they came (and the names seen of tasks the kernel did not keep).
    // Stops early, failing, once `progress.cancel` is set (an analysis of a running capture
    // superseded, a save the user cancelled).
    bool save(const std::string& path, DatFormat format, std::string* error, const WriteProgress& progress = {}) const;

private:
    LiveCapture() = default;
    void run();

    std::unique_ptr<CaptureProcess> m_helper;
    std::unique_ptr<LiveCaptureState> m_state; // the capture thread's reader and parsers
    std::unique_ptr<Trace> m_trace;
    Trace* m_traceRef = nullptr;
    EventStore* m_store = nullptr;
    std::unique_ptr<StoreAppender> m_appender;
    std::vector<SpoolPageSource*> m_pages; // per CPU, owned by the store
    CaptureMetadata m_metadata;             // the end's, once it came
    std::string m_metadataPath;
    std::function<void(size_t)> m_growth;
    mutable std::mutex m_lock; // m_progress, m_metadata and the names seen
    std::string m_seenComms;   // "PID COMM" lines of tasks seen, not yet applied
    std::map<int32_t, std::string> m_seenNames; // every task seen, for save()
    Progress m_progress;
    std::thread m_thread;
};

} // namespace ringside
