// SPDX-License-Identifier: GPL-2.0-or-later
#include "plugins/pluginsdialog.h"

#include "plugins/pluginsettings.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace ringside {

namespace {
constexpr int kDialogWidth = 900;
}

QString PluginsDialog::statusOf(const TraceSession& session, size_t index)
{
    const Trace& trace = *session.trace;
    const Plugin& plugin = *trace.plugins()[index];
    if (const std::string failure = trace.pluginFailure(plugin); !failure.empty())
        return tr("stopped: it threw \"%1\"").arg(QString::fromStdString(failure));
    if (!trace.analysesFinished()) return tr("reading the recording…");
    if (const std::string nothing = trace.nothingToShow(plugin); !nothing.empty())
        return tr("nothing to show: %1").arg(QString::fromStdString(nothing));
    QStringList parts;
    const QLocale locale;
    if (const Trace::Analysis* analysis = trace.analysis(plugin.name()))
        for (const auto& table : analysis->tables->tables())
            if (table->rows())
                parts << tr("%1 %2").arg(locale.toString(qulonglong(table->rows()))).arg(
                    QString::fromStdString(table->title()).toLower());
    if (!trace.statisticsFinished())
        parts << tr("making statistics…");
    else if (const size_t statistics = trace.statistics(plugin)->size())
        parts << (statistics == 1 ? tr("1 statistics table") : tr("%1 statistics tables").arg(statistics));
    return parts.join(", ");
}

PluginsDialog::PluginsDialog(const TraceSession* session, QWidget* parent) : QDialog(parent)
{
    setWindowTitle(tr("Plugins"));
    setObjectName("pluginsDialog");
    resize(kDialogWidth, 420);
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(tr("Plugins read the records once the recording's events are in (a capture's as they "
                                "arrive). Switching one on or off reloads the open recording."));
    intro->setWordWrap(true);
    layout->addWidget(intro);
    m_list = new QTreeWidget;
    m_list->setObjectName("pluginList");
    m_list->setRootIsDecorated(false);
    m_list->setHeaderLabels({tr("Plugin"), tr("This recording"), tr("Description"), tr("File")});
    m_list->setTextElideMode(Qt::ElideRight);
    const QStringList off = PluginSettings::disabled();
    for (const PluginModule& module : PluginSettings::catalog().modules()) {
        const QString name = QString::fromStdString(module.name);
        auto* item = new QTreeWidgetItem(
            m_list, {name, QString(), QString::fromStdString(module.description), QString::fromStdString(module.path)});
        item->setCheckState(kName, off.contains(name) ? Qt::Unchecked : Qt::Checked);
        item->setToolTip(kDescription, item->text(kDescription));
        item->setToolTip(kFile, item->text(kFile));
        QString status = off.contains(name) ? tr("switched off") : tr("(no recording open)");
        if (session && session->trace)
            for (size_t p = 0; p < session->trace->plugins().size(); ++p)
                if (session->trace->plugins()[p]->name() == module.name) status = statusOf(*session, p);
        item->setText(kStatus, status);
        item->setToolTip(kStatus, status);
        if (status.startsWith(tr("stopped"))) item->setForeground(kStatus, QColor(0xc0, 0x1c, 0x28));
    }
    // The name and the status whole (the status at most half the list); the description and
    // the file share the rest of the width, so that nothing needs scrolling sideways to be seen.
    m_list->resizeColumnToContents(kName);
    m_list->resizeColumnToContents(kStatus);
    const int width = kDialogWidth - 40; // less the margins and the frame
    m_list->setColumnWidth(kStatus, std::min(m_list->columnWidth(kStatus), width / 2));
    m_list->resizeColumnToContents(kDescription);
    constexpr int kFileWidth = 140;
    const int left = width - m_list->columnWidth(kName) - m_list->columnWidth(kStatus) - kFileWidth;
    m_list->setColumnWidth(kDescription, std::max(120, std::min(m_list->columnWidth(kDescription), left)));
    m_list->setColumnWidth(kFile, kFileWidth);
    layout->addWidget(m_list, 1);
    const std::vector<std::string> problems = PluginSettings::problems();
    if (!problems.empty()) {
        QStringList lines;
        for (const std::string& p : problems) lines << QString::fromStdString(p);
        auto* label = new QLabel(tr("Modules that could not be used:\n%1").arg(lines.join('\n')));
        label->setObjectName("pluginProblems");
        label->setWordWrap(true);
        label->setStyleSheet("color: #c01c28");
        label->setTextInteractionFlags(Qt::TextSelectableByMouse);
        layout->addWidget(label);
    } else if (PluginSettings::catalog().modules().empty()) {
        layout->addWidget(
            new QLabel(tr("No plugins were found (see plugins/README.md for where they are looked for).")));
    }
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
}

bool PluginsDialog::apply()
{
    QStringList off;
    for (int i = 0; i < m_list->topLevelItemCount(); ++i)
        if (m_list->topLevelItem(i)->checkState(kName) != Qt::Checked) off << m_list->topLevelItem(i)->text(kName);
    QStringList before = PluginSettings::disabled();
    before.sort();
    off.sort();
    if (off == before) return false;
    PluginSettings::setDisabled(off);
    return true;
}

} // namespace ringside
