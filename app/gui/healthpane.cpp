// SPDX-License-Identifier: GPL-2.0-or-later
#include "healthpane.h"

#include <QHeaderView>

namespace ringside {

HealthPane::HealthPane(QWidget* parent) : QTreeWidget(parent)
{
    setHeaderLabels({tr("Where"), tr("Events"), tr("Lost"), tr("Overrun"), tr("Problem")});
    setRootIsDecorated(true);
    header()->setStretchLastSection(true);
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
    auto* diagnostics = new QTreeWidgetItem(this, {tr("diagnostics"), QString(), QString(), QString(),
                                                   store.diagnostics().empty() ? tr("none") : QString()});
    for (const auto& d : store.diagnostics().items()) {
        auto* item = new QTreeWidgetItem(diagnostics, {QString::fromLatin1(severityName(d.severity)), QString(), QString(),
                                                       QString(), QString::fromStdString(d.code + ": " + d.message)});
        item->setToolTip(4, QString::fromStdString(d.message));
    }
    diagnostics->setExpanded(true);
    for (int c = 0; c < 4; ++c) resizeColumnToContents(c);
}

} // namespace ringside
