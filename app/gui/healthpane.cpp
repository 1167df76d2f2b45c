// SPDX-License-Identifier: GPL-2.0-or-later
#include "healthpane.h"

#include <QHeaderView>

namespace ringside {

HealthPane::HealthPane(QWidget* parent) : QTreeWidget(parent)
{
    setHeaderLabels({tr("Where"), tr("Events"), tr("Lost"), tr("Overrun"), tr("Problem")});
    setRootIsDecorated(true);
    header()->setStretchLastSection(true);
    // Diagnostics are sentences: they wrap within the pane's width (and re-wrap as it grows),
    // and their tooltip holds the whole text.
    setWordWrap(true);
    setUniformRowHeights(false);
    setTextElideMode(Qt::ElideNone);
}

void HealthPane::resizeEvent(QResizeEvent* e)
{
    QTreeWidget::resizeEvent(e);
    // Row heights of wrapped text follow the new width only after a relayout.
    scheduleDelayedItemsLayout();
}

void HealthPane::setSession(const TraceSession* session)
{
    clear();
    if (!session) return;
    const EventStore& store = session->store();
    for (const auto& buffer : store.buffers()) {
        auto* b = new QTreeWidgetItem(this, {buffer.name.empty() ? tr("top buffer") : QString::fromStdString(buffer.name)});
        for (StreamId id : buffer.streams) {
            const Stream& s = store.stream(id);
            QString lost = QString::number(s.columns.lostTotal);
            if (s.columns.unknownLostPages) lost += tr(" + %1 gaps").arg(s.columns.unknownLostPages);
            auto* cpu = new QTreeWidgetItem(b, {tr("CPU %1").arg(s.cpu), QString::number(s.columns.size()), lost,
                                                QString::number(s.statsOverrun)});
            if (s.columns.lostTotal || s.columns.unknownLostPages || s.statsOverrun)
                for (int c = 0; c < 4; ++c) cpu->setForeground(c, QColor(200, 40, 40));
        }
        b->setExpanded(true);
    }
    // Sized before the diagnostics come in, which span the row and must not widen column 0.
    for (int c = 0; c < 4; ++c) resizeColumnToContents(c);
    auto* diagnostics = new QTreeWidgetItem(this, {tr("diagnostics"), QString(), QString(), QString(),
                                                   store.diagnostics().empty() ? tr("none") : QString()});
    for (const auto& d : store.diagnostics().items()) {
        // One spanning cell, so the text has the pane's whole width to wrap in.
        const QString text = QStringLiteral("%1 · %2: %3").arg(QString::fromLatin1(severityName(d.severity)),
                                                                QString::fromStdString(d.code), QString::fromStdString(d.message));
        auto* item = new QTreeWidgetItem(diagnostics, {text});
        item->setFirstColumnSpanned(true);
        item->setToolTip(0, text);
        if (d.severity != Diagnostic::Severity::Info) item->setForeground(0, QColor(200, 40, 40));
    }
    diagnostics->setExpanded(true);
}

} // namespace ringside
