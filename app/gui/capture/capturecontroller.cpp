// SPDX-License-Identifier: GPL-2.0-or-later
#include "capture/capturecontroller.h"

#include "capture/captureclient.h"
#include "capture/capturedialog.h"
#include "capture/livecapture.h"
#include "file/datconvert.h"
#include "plugins/pluginsettings.h"
#include "state/recordingset.h"
#include "state/tracesession.h"

#include <QAction>
#include <QApplication>
#include <QDateTime>
#include <QDir>
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
#include <QTime>
#include <QTimer>

#include <algorithm>
#include <optional>

namespace ringside {

CaptureController::CaptureController(QWidget* dialogParent, const RecordingSet& recordings, QMenu* captureMenu,
                                     QMenu* fileMenu)
    : QObject(dialogParent), m_window(dialogParent), m_recordings(recordings),
      m_growPending(std::make_shared<std::atomic<bool>>(false))
{
    m_new = captureMenu->addAction(tr("&New Capture…"), QKeySequence(tr("Ctrl+R")), this,
                                   &CaptureController::startWithDialog);
    m_new->setObjectName("newCaptureAction");
    m_stop = captureMenu->addAction(tr("&Stop Capture"), QKeySequence(tr("Ctrl+.")), this, &CaptureController::stop);
    m_stop->setObjectName("stopCaptureAction");
    m_stop->setEnabled(false);
    m_save = fileMenu->addAction(tr("Save &Capture As…"), this, [this] { saveWithDialog(); });
    m_save->setObjectName("saveCaptureAction");
    m_save->setEnabled(false);
    m_timer = new QTimer(this);
    m_timer->setInterval(250);
    connect(m_timer, &QTimer::timeout, this, &CaptureController::onTick);
}

void CaptureController::recordingsChanged()
{
    auto session = liveSession();
    m_save->setEnabled(session && m_ended && !saving());
    m_stop->setEnabled(session && !m_ended);
}

CaptureController::~CaptureController() = default;

std::shared_ptr<TraceSession> CaptureController::liveSession() const
{
    const RecordingSet& set = m_recordings;
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
    // The plugins switched on analyse the capture as it grows, as they would the saved file.
    auto started =
        LiveCapture::start(helperArguments, QDir::tempPath().toStdString(), PluginSettings::instantiateEnabled());
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
    // A function tracer's calls (-p) are analysed as they arrive: their call trees shown.
    emit captureStarted(session, std::find(helperArguments.begin(), helperArguments.end(), "-p") != helperArguments.end());
    m_stop->setEnabled(true);
    m_save->setEnabled(false);
    m_timer->start();
    if (!command.isEmpty()) {
        m_command = new QProcess(this);
        m_command->setProcessChannelMode(QProcess::ForwardedChannels);
        connect(m_command, &QProcess::finished, this, [this] {
            emit statusMessage(tr("The command ended: the capture stops"), 10000);
            stop();
        });
        m_command->start("/bin/sh", {"-c", command});
    }
    emit stateChanged();
    return true;
}

void CaptureController::onGrew()
{
    if (liveSession()) emit captureGrew();
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
    // What the helper sent that was left out: said beside the kernel's losses.
    const QString refused =
        p.refusedPages || p.refusedMetadata
            ? tr(", %1 refused (Trace health says why)")
                  .arg(QLocale().toString(qulonglong(p.refusedPages + p.refusedMetadata)))
            : QString();
    QString text = tr("Capturing: %1 events (%2/s), lost: %3 overwritten, %4 dropped%5")
                       .arg(QLocale().toString(qulonglong(p.events)), rate, QLocale().toString(qulonglong(p.overrun)),
                            QLocale().toString(qulonglong(p.dropped)), refused);
    if (p.ended) {
        m_timer->stop();
        m_ended = true;
        session->live->applyTaskNames();
        // Its analyses take what arrived last and finish: no file is written or read again.
        emit captureEnded();
        m_endSummary = tr("Capture stopped: %1 events, lost: %2 overwritten, %3 dropped%4%5")
                           .arg(QLocale().toString(qulonglong(p.events)), QLocale().toString(qulonglong(p.overrun)),
                                QLocale().toString(qulonglong(p.dropped)), refused,
                                p.error.empty() ? QString() : tr(" (%1)").arg(QString::fromStdString(p.error)));
        text = m_endSummary + tr(" · File > Save Capture As keeps it");
        m_stop->setEnabled(false);
        m_save->setEnabled(true);
        if (m_command && m_command->state() != QProcess::NotRunning)
            emit statusMessage(tr("The command still runs; it was not stopped"), 10000);
        emit stateChanged();
    }
    emit captureStatusChanged(text);
}

void CaptureController::stop()
{
    if (auto session = liveSession(); session && session->live) session->live->stop();
}

void CaptureController::saveAs(const QString& path, DatFormat format, std::function<void(bool saved)> then)
{
    auto finished = [this, then](bool saved, const QString& message) {
        m_lastSaveError = message;
        if (then) then(saved);
        emit saveFinished(saved, message);
    };
    auto session = liveSession();
    if (!session) return finished(false, tr("no capture is open"));
    if (running()) return finished(false, tr("stop the capture first"));
    if (saving()) return finished(false, tr("the capture is being saved already"));
    // Gigabytes, for a long capture: written on a worker while the window says how far it is,
    // and goes on meanwhile (no event loop of its own: what the window does comes in its turn).
    struct Outcome {
        bool saved = false;
        QString why;
    };
    // What the write did, kept by the job itself: a Cancel that comes once it is done (the
    // file is there) must not say otherwise.
    auto done = std::make_shared<std::optional<Outcome>>();
    auto* progress = new QProgressDialog(tr("Saving the capture to %1…").arg(QFileInfo(path).fileName()), tr("Cancel"),
                                         0, 1000, m_window);
    progress->setObjectName("saveProgress");
    progress->setWindowModality(Qt::WindowModal);
    progress->setMinimumDuration(300);
    progress->setAutoClose(false);
    progress->setAutoReset(false);
    progress->setAttribute(Qt::WA_DeleteOnClose);
    m_saveCancelled = false;
    connect(progress, &QProgressDialog::canceled, this, [this] {
        m_saveCancelled = true;
        m_saving.cancel();
    });
    m_saveProgress = progress;
    emit stateChanged();
    auto ended = [this, session, path, format, done, finished] {
        if (m_saveProgress) {
            m_saveProgress->reset(); // its show-delay timer, which would show it again
            m_saveProgress->close();
        }
        m_saveProgress = nullptr;
        emit stateChanged();
        if (!done->has_value() || (!(*done)->saved && m_saveCancelled))
            return finished(false, tr("%1: the save was cancelled, nothing was written").arg(path));
        if (!(*done)->saved) return finished(false, (*done)->why);
        m_saveCancelled = false; // too late: the file was whole
        std::shared_ptr<TraceSession> saved = session;
        // The capture shown now (its analysis may have replaced the session meanwhile).
        if (auto shown = liveSession()) saved = std::move(shown);
        saved->liveSaved = true;
        saved->path = path; // sessions and the window name it by its file now
        emit captureSaved();
        emit statusMessage(tr("Capture saved to %1").arg(path), 15000);
        emit captureStatusChanged(m_endSummary + tr(" · saved as %1 (%2)")
                                                     .arg(QFileInfo(path).fileName(),
                                                          QString::fromStdString(format.name())));
        finished(true, QString());
    };
    const std::string to = path.toStdString();
    m_saving.start(
        [session, to, format, done](JobTracker::Context& context) {
            WriteProgress report{context.cancelFlag(), [&context](uint64_t bytes, uint64_t total) {
                                     context.reportProgress(total ? int(bytes * 1000 / total) : 0);
                                 }};
            std::string why;
            const bool saved = session->live && session->live->save(to, format, &why, report);
            *done = Outcome{saved, QString::fromStdString(why)};
        },
        ended,
        [done, ended](const QString& message) {
            *done = Outcome{false, message};
            ended();
        },
        [this](int permille) {
            if (m_saveProgress) m_saveProgress->setValue(permille);
        });
}

bool CaptureController::saving() const
{
    return m_saveProgress != nullptr;
}

void CaptureController::saveWithDialog(std::function<void(bool saved)> then)
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
    saveAs(path, chosen == v6 ? DatFormat::v6() : DatFormat(), [this, path, then](bool saved) {
        if (saved) {
            QSettings().setValue("files/lastDir", QFileInfo(path).absolutePath()); // File > Open looks there next
        } else if (!m_saveCancelled) {
            auto* box = new QMessageBox(QMessageBox::Warning, tr("Capture not saved"), m_lastSaveError,
                                        QMessageBox::Ok, m_window);
            box->setAttribute(Qt::WA_DeleteOnClose);
            box->open();
        } else {
            emit statusMessage(m_lastSaveError, 15000); // the user's own word: no answer needed
        }
        if (then) then(saved);
    });
}

bool CaptureController::confirmDiscard(std::function<void()> proceed)
{
    auto session = liveSession();
    if (saving()) {
        emit statusMessage(tr("The capture is being saved: wait for it, or cancel the save"), 10000);
        return false;
    }
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
    // What was asked for goes on once the capture is in a file; not now.
    saveWithDialog([proceed](bool saved) {
        if (saved && proceed) proceed();
    });
    return false;
}

} // namespace ringside
