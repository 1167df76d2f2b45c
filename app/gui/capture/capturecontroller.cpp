// SPDX-License-Identifier: GPL-2.0-or-later
#include "capture/capturecontroller.h"

#include "capture/captureclient.h"
#include "capture/capturedialog.h"
#include "capture/livecapture.h"
#include "file/datconvert.h"
#include "mainwindow.h"

#include <QAction>
#include <QApplication>
#include <QDateTime>
#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QLocale>
#include <QMenu>
#include <QMessageBox>
#include <QPointer>
#include <QProcess>
#include <QProgressDialog>
#include <QSettings>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTime>
#include <QTimer>

#include <algorithm>
#include <optional>
#include <sched.h>

namespace ringside {

namespace {

// In the work folder: the running capture's pages so far, as its last analysis read them.
const char* const kSoFarFile = "capture-so-far.dat";

} // namespace

CaptureController::CaptureController(MainWindow* window, QMenu* captureMenu, QMenu* fileMenu)
    : QObject(window), m_window(window), m_growPending(std::make_shared<std::atomic<bool>>(false))
{
    m_new = captureMenu->addAction(tr("&New Capture…"), QKeySequence(tr("Ctrl+R")), this,
                                   &CaptureController::startWithDialog);
    m_new->setObjectName("newCaptureAction");
    m_stop = captureMenu->addAction(tr("&Stop Capture"), QKeySequence(tr("Ctrl+.")), this, &CaptureController::stop);
    m_stop->setObjectName("stopCaptureAction");
    m_stop->setEnabled(false);
    m_save = fileMenu->addAction(tr("Save &Capture As…"), this, &CaptureController::saveWithDialog);
    m_save->setObjectName("saveCaptureAction");
    m_save->setEnabled(false);
    m_analysis = new LoadJob(this);
    connect(m_analysis, &LoadJob::finished, this, [this](std::shared_ptr<TraceSession> analysis) {
        m_analysisCost = m_analysisStarted.elapsed();
        m_sinceAnalysis.start();
        // Events lost while it ran: the machine has no time to spare; the next waits longer.
        if (auto session = liveSession(); session && session->live) {
            const LiveCapture::Progress p = session->live->progress();
            if (p.overrun + p.dropped > m_lostBeforeAnalysis) m_analysisBackoff = std::min(m_analysisBackoff * 4, 64);
        }
        if (running() && liveSession())
            m_window->showLiveAnalysis(
                analysis, tr("The capture's first %1 events (analysed at %2)")
                              .arg(QLocale().toString(qulonglong(analysis->store().eventCount())),
                                   QTime::currentTime().toString("HH:mm:ss")));
    });
    connect(m_analysis, &LoadJob::failed, this, [this](const QString&, const QString& message) {
        m_analysisCost = m_analysisStarted.elapsed();
        m_sinceAnalysis.start();
        if (running())
            m_window->statusBar()->showMessage(tr("The capture's events so far could not be analysed: %1").arg(message),
                                               10000);
    });
    m_timer = new QTimer(this);
    m_timer->setInterval(250);
    connect(m_timer, &QTimer::timeout, this, &CaptureController::onTick);
    connect(window, &MainWindow::sessionChanged, this, [this] {
        auto session = liveSession();
        m_save->setEnabled(session && m_ended);
        m_stop->setEnabled(session && !m_ended);
    });
}

CaptureController::~CaptureController()
{
    // An analysis still writing into the work folder ends before the folder goes.
    m_analysis->cancel();
    delete m_analysis;
}

std::shared_ptr<TraceSession> CaptureController::liveSession() const
{
    const RecordingSet& set = m_window->recordings();
    for (size_t i = 0; i < set.size(); ++i)
        if (set.at(i)->isCapture) return set.at(i);
    return nullptr;
}

bool CaptureController::running() const
{
    return !m_ended;
}

void CaptureController::startWithDialog()
{
    if (running() || !confirmDiscard()) return;
    QApplication::setOverrideCursor(Qt::WaitCursor);
    auto offer = CaptureProcess::listOffer();
    QApplication::restoreOverrideCursor();
    if (!offer) {
        auto* box = new QMessageBox(
            QMessageBox::Warning, tr("Cannot capture"),
            tr("The kernel's tracing cannot be used: %1").arg(QString::fromStdString(offer.error().message)),
            QMessageBox::Ok, m_window);
        box->setObjectName("captureErrorMessage");
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
        return;
    }
    CaptureDialog dialog(QString::fromStdString(*offer), m_window);
    while (dialog.exec() == QDialog::Accepted) {
        QString error;
        if (start(dialog.helperArguments(), dialog.command(), &error)) return;
        // What the kernel refused, with its reason; the choices stay for another try.
        QMessageBox::warning(m_window, tr("Capture not started"), error);
    }
}

bool CaptureController::start(const std::vector<std::string>& helperArguments, const QString& command, QString* error)
{
    QApplication::setOverrideCursor(Qt::WaitCursor);
    auto started = LiveCapture::start(helperArguments, QDir::tempPath().toStdString());
    QApplication::restoreOverrideCursor();
    if (!started) {
        const QString message = QString::fromStdString(started.error().message);
        if (error) *error = message;
        return false;
    }
    std::shared_ptr<LiveCapture> capture(std::move(*started));
    auto session = std::make_shared<TraceSession>();
    session->path = tr("Live capture %1").arg(QDateTime::currentDateTime().toString("HH:mm:ss"));
    session->trace = capture->takeTrace();
    session->formatter = std::make_unique<EventFormatter>(*session->trace);
    session->live = capture;
    session->isCapture = true;
    // The capture's thread says it grew; the window hears it once per turn of its event loop.
    std::weak_ptr<std::atomic<bool>> pending = m_growPending;
    QPointer<CaptureController> self(this);
    capture->setGrowthListener([pending, self](size_t) {
        auto flag = pending.lock();
        if (!flag || flag->exchange(true)) return;
        QMetaObject::invokeMethod(
            qApp,
            [self, flag] {
                flag->store(false);
                if (self) self->onGrew();
            },
            Qt::QueuedConnection);
    });
    m_ended = false;
    m_lastEvents = 0;
    m_analysedEvents = 0;
    m_analysisCost = 0;
    m_analysisBackoff = 1;
    m_sinceAnalysis.invalidate();
    m_window->showCapture(session);
    if (std::find(helperArguments.begin(), helperArguments.end(), "-p") != helperArguments.end())
        m_window->showCallTreeDock(); // a function tracer's calls, analysed as they arrive
    m_stop->setEnabled(true);
    m_save->setEnabled(false);
    m_timer->start();
    if (!command.isEmpty()) {
        m_command = new QProcess(this);
        m_command->setProcessChannelMode(QProcess::ForwardedChannels);
        connect(m_command, &QProcess::finished, this, [this] {
            m_window->statusBar()->showMessage(tr("The command ended: the capture stops"), 10000);
            stop();
        });
        m_command->start("/bin/sh", {"-c", command});
    }
    emit stateChanged();
    return true;
}

void CaptureController::onGrew()
{
    if (liveSession()) m_window->captureGrew();
}

void CaptureController::onTick()
{
    auto session = liveSession();
    if (!session) {
        m_timer->stop();
        m_ended = true;
        return;
    }
    if (!session->live) { // already analysed
        m_timer->stop();
        return;
    }
    const LiveCapture::Progress p = session->live->progress();
    const double seconds = m_timer->interval() / 1000.0;
    const QString rate = QLocale().toString(qulonglong(double(p.events - std::min(p.events, m_lastEvents)) / seconds));
    m_lastEvents = p.events;
    QString text = tr("Capturing: %1 events (%2/s), lost: %3 overwritten, %4 dropped")
                       .arg(QLocale().toString(qulonglong(p.events)), rate, QLocale().toString(qulonglong(p.overrun)),
                            QLocale().toString(qulonglong(p.dropped)));
    if (!p.ended) analyseSoFar(session, p.events);
    if (p.ended) {
        m_analysis->cancel(); // the whole capture is analysed now
        if (m_workDir) QFile::remove(m_workDir->filePath(kSoFarFile));
        m_timer->stop();
        m_ended = true;
        session->live->applyTaskNames();
        m_window->captureEnded();
        // What a loaded recording has beside its events (who ran where, task rows, plugins,
        // call trees) comes from loading the capture as a file: written where it is kept
        // until the window closes, as v6 (uncompressed: quick to write and to load).
        if (!m_workDir) m_workDir = std::make_unique<QTemporaryDir>();
        const QString analysed = m_workDir->filePath(QString("capture-%1.dat").arg(++m_captures));
        if (m_workDir->isValid())
            m_window->reloadCapture(analysed, [session, analysed](const std::atomic<bool>* cancel, std::string* why) {
                return session->live->save(analysed.toStdString(), DatFormat::v6(), why, {cancel, {}});
            });
        else
            m_window->statusBar()->showMessage(
                tr("The capture could not be analysed: no folder for its copy (%1)").arg(m_workDir->errorString()),
                15000);
        m_endSummary = tr("Capture stopped: %1 events, lost: %2 overwritten, %3 dropped%4")
                           .arg(QLocale().toString(qulonglong(p.events)), QLocale().toString(qulonglong(p.overrun)),
                                QLocale().toString(qulonglong(p.dropped)),
                                p.error.empty() ? QString() : tr(" (%1)").arg(QString::fromStdString(p.error)));
        text = m_endSummary + tr(" · File > Save Capture As keeps it");
        m_stop->setEnabled(false);
        m_save->setEnabled(true);
        if (m_command && m_command->state() != QProcess::NotRunning)
            m_window->statusBar()->showMessage(tr("The command still runs; it was not stopped"), 10000);
        emit stateChanged();
    }
    m_window->setCaptureStatus(text);
}

void CaptureController::analyseSoFar(const std::shared_ptr<TraceSession>& session, uint64_t events)
{
    if (!m_window->wantsLiveAnalysis() || m_analysis->running() || events == 0 || events == m_analysedEvents) return;
    if (m_sinceAnalysis.isValid() &&
        m_sinceAnalysis.elapsed() < m_analysisBackoff * std::max<qint64>(2000, 10 * m_analysisCost))
        return;
    if (!m_workDir) m_workDir = std::make_unique<QTemporaryDir>();
    if (!m_workDir->isValid()) return;
    // Written whole to a new name and renamed, so the analysis shown before (which maps the
    // file it came from) keeps its copy.
    const QString path = m_workDir->filePath(kSoFarFile);
    m_analysedEvents = events;
    const LiveCapture::Progress p = session->live->progress();
    m_lostBeforeAnalysis = p.overrun + p.dropped;
    m_analysisStarted.start();
    // The job holds the session: the capture's pages and store are the trace's, and the window
    // may let go of them (another recording opened) while it writes them out.
    m_analysis->start(path, false, [session, path, idleOnly = m_analysisIdle](const std::atomic<bool>* cancel,
                                                                              std::string* why) {
        // The capture comes first: this job's thread, and the loader's threads it starts, run
        // only on CPU time nothing else wants (at a million events a second on two cores, an
        // analysis at normal priority made the kernel overwrite 7% of the events).
        sched_param idle{};
        if (idleOnly) ::sched_setscheduler(0, SCHED_IDLE, &idle);
        return session->live->save(path.toStdString(), DatFormat::v6(), why, {cancel, {}});
    });
}

void CaptureController::stop()
{
    if (auto session = liveSession(); session && session->live) session->live->stop();
}

bool CaptureController::save(const QString& path, QString* error, DatFormat format)
{
    auto session = liveSession();
    if (!session) return *error = tr("no capture is open"), false;
    if (running()) return *error = tr("stop the capture first"), false;
    if (m_saving.isRunning()) return *error = tr("the capture is being saved already"), false;
    // Gigabytes, for a long capture: written on a worker while the window says how far it is.
    struct Outcome {
        bool saved = false;
        QString why;
    };
    // What the write did, kept by the job itself: a Cancel that comes once it is done (the
    // file is there) must not say otherwise.
    auto done = std::make_shared<std::optional<Outcome>>();
    bool ended = false;
    QProgressDialog progress(tr("Saving the capture to %1…").arg(QFileInfo(path).fileName()), tr("Cancel"), 0, 1000,
                             m_window);
    progress.setObjectName("saveProgress");
    progress.setWindowModality(Qt::WindowModal);
    progress.setMinimumDuration(300);
    progress.setAutoClose(false);
    progress.setAutoReset(false);
    QEventLoop loop;
    auto finish = [&] {
        ended = true;
        loop.quit();
    };
    m_saveCancelled = false;
    connect(&progress, &QProgressDialog::canceled, &loop, [&] {
        if (ended) return;
        m_saving.cancel();
        m_saveCancelled = true;
        finish();
    });
    const std::string to = path.toStdString(), copy = session->captureCopy.toStdString();
    const std::string writer = ("ringside " + QCoreApplication::applicationVersion()).trimmed().toStdString();
    m_saving.start(
        [session, to, copy, writer, format, done](JobTracker::Context& context) {
            WriteProgress report{context.cancelFlag(), [&context](uint64_t bytes, uint64_t total) {
                                     context.reportProgress(total ? int(bytes * 1000 / total) : 0);
                                 }};
            std::string why;
            // Ended and analysed: the copy written then is the recording; else its pages.
            const bool saved = !copy.empty() ? convertDatV6(copy, to, format, writer, &why, report)
                                             : session->live && session->live->save(to, format, &why, report);
            *done = Outcome{saved, QString::fromStdString(why)};
        },
        finish,
        [&, done](const QString& message) {
            *done = Outcome{false, message};
            finish();
        },
        [&progress](int permille) { progress.setValue(permille); });
    if (!ended) loop.exec(); // also left when the application quits
    if (!ended) m_saving.cancel(), m_saveCancelled = true;
    m_saving.waitForThreads(); // a cancelled write ends (its part file gone) before another may start
    if (!done->has_value() || (!(*done)->saved && m_saveCancelled))
        return *error = tr("%1: the save was cancelled, nothing was written").arg(path), false;
    if (!(*done)->saved) return *error = (*done)->why, false;
    m_saveCancelled = false; // too late: the file was whole
    // The capture shown now (its analysis may have replaced the session meanwhile).
    if (auto shown = liveSession()) session = std::move(shown);
    session->liveSaved = true;
    session->path = path; // sessions and the window name it by its file now
    m_window->statusBar()->showMessage(tr("Capture saved to %1").arg(path), 15000);
    m_window->setCaptureStatus(
        m_endSummary + tr(" · saved as %1 (%2)").arg(QFileInfo(path).fileName(), QString::fromStdString(format.name())));
    return true;
}

void CaptureController::saveWithDialog()
{
    QSettings settings;
    const QString dir = settings.value("files/lastDir", QDir::homePath()).toString();
    const QString v7 = tr("trace-cmd recording, version 7, zstd-compressed (*.dat)");
    const QString v6 = tr("trace-cmd recording, version 6, for older tools (*.dat)");
    QString chosen = v7;
    const QString path = QFileDialog::getSaveFileName(
        m_window, tr("Save capture"),
        QDir(dir).filePath("capture-" + QDateTime::currentDateTime().toString("yyyyMMdd-HHmmss") + ".dat"),
        v7 + ";;" + v6, &chosen);
    if (path.isEmpty()) return;
    QString error;
    if (!save(path, &error, chosen == v6 ? DatFormat::v6() : DatFormat())) {
        if (m_saveCancelled) // the user's own word: said where it does not need an answer
            m_window->statusBar()->showMessage(error, 15000);
        else
            QMessageBox::warning(m_window, tr("Capture not saved"), error);
    } else
        settings.setValue("files/lastDir", QFileInfo(path).absolutePath()); // File > Open looks there next
}

bool CaptureController::confirmDiscard()
{
    auto session = liveSession();
    if (!session || session->liveSaved) return true;
    const auto answer =
        QMessageBox::question(m_window, tr("Unsaved capture"), tr("The capture is not saved. Save it first?"),
                              QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    if (answer == QMessageBox::Cancel) return false;
    if (answer == QMessageBox::Discard) return true;
    if (running() && session->live) {
        stop();
        session->live->waitUntilEnded();
        onTick();
    }
    saveWithDialog();
    return session->liveSaved;
}

} // namespace ringside
