// SPDX-License-Identifier: GPL-2.0-or-later
// The timeline's paint time while a capture streams into it: the window records raw_syscalls
// and sched_switch (4 MB per CPU) while ringside-syscall-load makes RATE calls a second on
// CPU 1 for SECONDS; every 16 ms the timeline's rows are drawn whole (as after each growth),
// first showing the whole capture, then the last 100 ms following the newest events. Prints
// the median, 95th percentile and maximum per phase, and what was recorded.
// With RINGSIDE_BENCH_PLUGIN_PANE set, the Plugin statistics pane is shown, so the plugins run
// on what has arrived while the capture goes on (their cost to the capture).
// usage: bench_capture_paint [RATE [SECONDS]]   (as root; runs offscreen)
#include "capture/capturecontroller.h"
#include "mainwindow.h"
#include "plugins/pluginstatspane.h"
#include "util/memorypolicy.h"
#include "state/viewstate.h"
#include "timeline/timelinewidget.h"

#include <QApplication>
#include <QDockWidget>
#include <QLabel>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <vector>

using namespace ringside;

namespace {

void report(const char* phase, std::vector<double> ms)
{
    if (ms.empty()) return;
    std::sort(ms.begin(), ms.end());
    std::printf("%s: frames=%zu median_ms=%.2f p95_ms=%.2f max_ms=%.2f\n", phase, ms.size(), ms[ms.size() / 2],
                ms[ms.size() * 95 / 100], ms.back());
}

} // namespace

int main(int argc, char** argv)
{
    ringside::returnLargeBuffersWhenFreed(); // as the app does
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    const QString rate = argc > 1 ? argv[1] : "600000";
    const double seconds = argc > 2 ? std::atof(argv[2]) : 20;
    MainWindow window;
    window.resize(1400, 900);
    window.show();
    const QString load = QCoreApplication::applicationDirPath() + "/ringside-syscall-load";
    QString error;
    if (!window.captures()->start({"-e", "raw_syscalls", "-e", "sched:sched_switch", "-b", "4096"},
                                  QString("taskset -c 1 %1 %2 %3").arg(load, rate).arg(seconds), &error)) {
        std::fprintf(stderr, "bench_capture_paint: %s\n", qPrintable(error));
        return 1;
    }
    if (qEnvironmentVariableIsSet("RINGSIDE_BENCH_PLUGIN_PANE"))
        window.findChild<QDockWidget*>("pluginStatsDock")->show();
    std::vector<double> whole, following;
    QElapsedTimer clock;
    clock.start();
    QTimer frames;
    frames.setInterval(16);
    QObject::connect(&frames, &QTimer::timeout, [&] {
        if (!window.captures()->running()) {
            frames.stop();
            app.exit(0); // not quit(): that closes the window, which asks about the unsaved capture
            return;
        }
        const bool second = clock.elapsed() > seconds * 500;
        ViewState& view = *window.viewState();
        if (second && following.empty()) {
            const auto full = view.fullRange();
            view.setVisibleRange({full.end - std::min<uint64_t>(full.span(), 100'000'000), full.end});
        }
        if (qEnvironmentVariableIsSet("RINGSIDE_BENCH_NO_PAINT")) return; // what the capture alone keeps up with
        window.timeline()->renderRowsForBenchmark();
        (second ? following : whole).push_back(window.timeline()->lastRenderMs());
    });
    frames.start();
    app.exec();
    const size_t events = window.session() ? window.session()->store().eventCount() : 0;
    std::printf("events=%zu events_per_s=%.0f\n", events, double(events) / seconds);
    // What the store and the analyses hold, to set against the peak resident size.
    if (window.session())
        std::printf("store_mb=%.1f analyses_mb=%.1f\n", window.session()->store().memoryBytes() / 1048576.0,
                    window.session()->trace->analysisMemoryBytes() / 1048576.0);
    if (auto* status = window.findChild<QLabel*>("captureStatus")) std::printf("%s\n", qPrintable(status->text()));
    if (qEnvironmentVariableIsSet("RINGSIDE_BENCH_PLUGIN_PANE"))
        if (auto* summary = window.pluginStats()->summary()) std::printf("plugins: %s\n", qPrintable(summary->text()));
    report("whole capture", whole);
    report("last 100 ms, following", following);
    std::fflush(stdout);
    return 0;
}
