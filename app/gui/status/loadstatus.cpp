// SPDX-License-Identifier: GPL-2.0-or-later
#include "status/loadstatus.h"

#include "state/workspace.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QToolButton>

namespace ringside {

LoadStatus::LoadStatus(Workspace& workspace, QWidget* parent) : QWidget(parent), m_workspace(workspace)
{
    setObjectName("loadStatus");
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_label = new QLabel(this);
    m_bar = new QProgressBar(this);
    m_bar->setRange(0, 1000);
    m_bar->setTextVisible(true);
    m_bar->setFormat(QStringLiteral("%p%"));
    m_bar->setMaximumWidth(160);
    m_stop = new QToolButton(this);
    m_stop->setObjectName("loadStop");
    m_stop->setAutoRaise(true);
    layout->addWidget(m_label);
    layout->addWidget(m_bar);
    layout->addWidget(m_stop);
    hide();

    LoadJob& load = workspace.load();
    connect(&workspace, &Workspace::loadStarted, this, &LoadStatus::started);
    connect(&workspace, &Workspace::loadEnded, this, &QWidget::hide);
    connect(&load, &LoadJob::opened, this, [this] {
        m_stop->setText(tr("Stop"));
        m_stop->setToolTip(tr("Stop reading the recording: the events read so far stay shown"));
    });
    connect(&load, &LoadJob::progress, this, [this](int permille, qulonglong, const QString& doing) {
        m_label->setText(doing);
        m_bar->setValue(permille);
    });
    connect(m_stop, &QToolButton::clicked, this, [this] { m_workspace.load().stop(); });
}

void LoadStatus::started(const QString& path)
{
    m_label->setText(tr("Opening %1…").arg(QFileInfo(path).fileName()));
    m_bar->setValue(0);
    m_stop->setText(tr("Cancel"));
    m_stop->setToolTip(tr("Stop opening the recording"));
    show();
}

} // namespace ringside
