// SPDX-License-Identifier: GPL-2.0-or-later
#include "exports/exportjob.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace ringside {

namespace {

struct Written {
    size_t rows = 0;
    double seconds = 0;
};

} // namespace

void ExportJob::start(std::shared_ptr<TraceSession> session, const QString& path, ExportFormat format,
                      std::shared_ptr<const RowSet> rows)
{
    const QString target = QFileInfo(path).absoluteFilePath();
    if (QFileInfo(session->path).absoluteFilePath() == target) {
        emit failed(tr("%1: this is the recording itself; choose another file").arg(path));
        return;
    }
    m_jobs.start(
        [session, target, format, rows](JobTracker::Context& context) -> Written {
            QElapsedTimer timer;
            timer.start();
            const QString partial = target + ".part";
            const std::string partialPath = QFile::encodeName(partial).toStdString();
            FILE* out = std::fopen(partialPath.c_str(), "wb");
            if (!out)
                throw std::runtime_error(QFile::encodeName(target).toStdString() +
                                         ": cannot write: " + std::strerror(errno));
            ExportOptions options;
            options.format = format;
            options.rows = rows.get();
            options.cancel = context.cancelFlag();
            options.progress = [&context](double fraction) { context.reportProgress(int(fraction * 100)); };
            auto summary = exportEvents(*session->trace, out, QFile::encodeName(target).toStdString(), options);
            const bool closed = std::fclose(out) == 0;
            if (!summary || !closed || context.isCancelled()) {
                QFile::remove(partial);
                if (context.isCancelled()) return {};
                throw std::runtime_error(summary ? QFile::encodeName(target).toStdString() + ": cannot write"
                                                 : summary.error().message);
            }
            // rename() replaces the old file in one step: there is always a whole one.
            const std::string targetPath = QFile::encodeName(target).toStdString();
            if (std::rename(partialPath.c_str(), targetPath.c_str()) != 0)
                throw std::runtime_error(targetPath + ": cannot replace it (" + std::strerror(errno) +
                                         "); the export is in " + partialPath);
            return {summary->rows, double(timer.elapsed()) / 1000.0};
        },
        [this, target](Written written) { emit finished(target, written.rows, written.seconds); },
        [this](const QString& message) { emit failed(message); }, [this](int percent) { emit progress(percent); });
}

} // namespace ringside
