// SPDX-License-Identifier: GPL-2.0-or-later
#include "details/healthpane.h"

#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QLocale>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace ringside {

HealthPane::HealthPane(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* split = new QSplitter(Qt::Vertical, this);
    m_streams = new QTreeWidget(split);
    m_streams->setHeaderLabels({tr("Where"), tr("Events"), tr("Lost"), tr("Overrun")});
    m_streams->setRootIsDecorated(true);
    m_streams->header()->setStretchLastSection(true);
    auto* box = new QWidget(split);
    auto* boxLayout = new QVBoxLayout(box);
    boxLayout->setContentsMargins(0, 4, 0, 0);
    boxLayout->addWidget(new QLabel(tr("Diagnostics"), box));
    m_diagnostics = new QListWidget(box);
    m_diagnostics->setWordWrap(true);
    m_diagnostics->setTextElideMode(Qt::ElideNone);
    // Adjust: items are laid out again (and re-wrapped) whenever the list is resized.
    m_diagnostics->setResizeMode(QListView::Adjust);
    m_diagnostics->setUniformItemSizes(false);
    m_diagnostics->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_diagnostics->setAlternatingRowColors(true);
    boxLayout->addWidget(m_diagnostics);
    connect(m_diagnostics, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
        const QStringList table = item->data(Qt::UserRole).toStringList();
        if (table.size() == 2) emit noteActivated(table[0], table[1]);
    });
    split->addWidget(m_streams);
    split->addWidget(box);
    layout->addWidget(split);
}

void HealthPane::setNotes(const std::vector<AnalysisNote>& notes)
{
    m_notes = notes;
    listDiagnostics();
}

void HealthPane::setSession(const TraceSession* session)
{
    m_session = session;
    m_streams->clear();
    listDiagnostics();
    if (!session) return;
    const EventStore& store = session->store();
    for (const auto& buffer : store.buffers()) {
        auto* b = new QTreeWidgetItem(m_streams,
                                      {buffer.name.empty() ? tr("top buffer") : QString::fromStdString(buffer.name)});
        b->setToolTip(0, b->text(0));
        for (StreamId id : buffer.streams) {
            const Stream& s = store.stream(id);
            const QLocale locale;
            QString lost = locale.toString(qulonglong(s.columns.lostTotal));
            if (s.columns.unknownLostPages) lost += tr(" + %1 gaps").arg(s.columns.unknownLostPages);
            auto* cpu = new QTreeWidgetItem(b, {tr("CPU %1").arg(s.cpu), locale.toString(qulonglong(s.columns.size())),
                                                lost, locale.toString(qulonglong(s.statsOverrun))});
            if (s.columns.lostTotal || s.columns.unknownLostPages || s.statsOverrun)
                for (int c = 0; c < 4; ++c) cpu->setForeground(c, QColor(200, 40, 40));
        }
        b->setExpanded(true);
    }
    // What the call trees could not pair, so that a tree's odd edges have an explanation.
    const CallSlices& calls = session->trace->callSlices();
    if (calls.available()) {
        const CallPairing& p = calls.pairing();
        auto* group =
            new QTreeWidgetItem(m_streams, {tr("function_graph calls"), QLocale().toString(qulonglong(calls.size()))});
        struct Count {
            QString label;
            uint64_t count;
            bool problem; // red when not zero
        };
        const Count rows[] = {
            {tr("exits without entry (began before the recording)"), p.exitsWithoutEntry, true},
            {tr("entries without exit (closed by a later call)"), p.entriesWithoutExit, true},
            {tr("still running when the recording ended"), p.openAtEnd, false},
            {tr("cut by lost events (%1 gaps)").arg(p.lossGaps), p.brokenByLoss, true},
            {tr("exit time before entry time"), p.badDurations, true},
            {tr("return-stack overruns"), p.overruns, true},
        };
        for (const Count& c : rows) {
            auto* row = new QTreeWidgetItem(group, {c.label, QLocale().toString(qulonglong(c.count))});
            row->setToolTip(0, c.label);
            if (c.count && c.problem)
                for (int col = 0; col < 2; ++col) row->setForeground(col, QColor(200, 40, 40));
        }
        group->setExpanded(true);
    }
    for (int c = 0; c < 4; ++c) m_streams->resizeColumnToContents(c);
}

void HealthPane::listDiagnostics()
{
    m_diagnostics->clear();
    if (!m_session) return;
    for (const AnalysisNote& note : m_notes) {
        const QString text = tr("%1: %2 (double-click for the table)").arg(note.plugin, note.text);
        auto* item = new QListWidgetItem(text, m_diagnostics);
        item->setToolTip(text);
        item->setData(Qt::UserRole, QStringList{note.plugin, note.tableKey});
        item->setForeground(QColor(0x9c, 0x4a, 0x00));
    }
    const EventStore& store = m_session->store();
    if (store.diagnostics().empty() && m_notes.empty()) m_diagnostics->addItem(tr("none"));
    for (const auto& d : store.diagnostics().items()) {
        const QString text = QStringLiteral("%1 · %2: %3")
                                 .arg(QString::fromLatin1(severityName(d.severity)), QString::fromStdString(d.code),
                                      QString::fromStdString(d.message));
        auto* item = new QListWidgetItem(text, m_diagnostics);
        item->setToolTip(text);
        if (d.severity != Diagnostic::Severity::Info) item->setForeground(QColor(200, 40, 40));
    }
}

} // namespace ringside
