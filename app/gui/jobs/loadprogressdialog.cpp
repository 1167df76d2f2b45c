// SPDX-License-Identifier: GPL-2.0-or-later
#include "jobs/loadprogressdialog.h"

#include "state/workspace.h"

#include <QFileInfo>
#include <QProgressDialog>

namespace ringside {

LoadProgressDialog::LoadProgressDialog(Workspace& workspace, QWidget* window)
    : QObject(window), m_workspace(workspace), m_window(window)
{
    connect(&workspace, &Workspace::loadStarted, this, &LoadProgressDialog::show);
    connect(&workspace, &Workspace::loadEnded, this, &LoadProgressDialog::close);
    connect(&workspace.load(), &LoadJob::progress, this, [this](int permille, qulonglong, const QString& doing) {
        if (!m_dialog) return;
        // A modal dialog's setValue() runs the event loop, which may deliver the load's end and
        // close the dialog: so it is the last call here.
        m_dialog->setLabelText(doing);
        m_dialog->setValue(permille);
    });
}

void LoadProgressDialog::show(const QString& path)
{
    close();
    m_dialog = new QProgressDialog(m_window);
    m_dialog->setObjectName("loadProgress");
    m_dialog->setWindowTitle(tr("Ringside"));
    m_dialog->setRange(0, 1000);
    m_dialog->setMinimumDuration(300);
    m_dialog->setAutoReset(false);
    m_dialog->setAutoClose(false);
    m_dialog->setWindowModality(Qt::WindowModal);
    connect(m_dialog, &QProgressDialog::canceled, &m_workspace.load(), &LoadJob::cancel);
    m_dialog->setLabelText(tr("Opening %1…").arg(QFileInfo(path).fileName()));
    m_dialog->setValue(0);
}

void LoadProgressDialog::close()
{
    // A QProgressDialog without autoClose stays up after reset(); hide and drop it instead, so
    // the next load starts with a fresh one (and its own show delay).
    if (!m_dialog) return;
    // Hidden first: while the views are built on this thread the last frame stays on screen,
    // and it should not be an emptied bar.
    m_dialog->hide();
    m_dialog->reset(); // stops its show-delay timer, which would show it again behind an error box
    m_dialog->deleteLater();
    m_dialog = nullptr;
}

} // namespace ringside
