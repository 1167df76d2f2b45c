// SPDX-License-Identifier: GPL-2.0-or-later
#include "plugins/pluginstatspane.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTreeView>
#include <QVBoxLayout>
#include <algorithm>

namespace ringside {

namespace {

// The (plugin, table) pairs of the chooser, by index.
struct Choice {
    size_t plugin, table;
};

std::vector<Choice> choices(const TraceSession& session)
{
    std::vector<Choice> out;
    for (size_t p = 0; p < session.pluginTables.size(); ++p)
        for (size_t t = 0; t < session.pluginTables[p].statistics.size(); ++t) out.push_back({p, t});
    // Failures first: what people open this pane for.
    std::stable_partition(out.begin(), out.end(), [&](const Choice& c) {
        const StatsTable& t = session.pluginTables[c.plugin].statistics[c.table];
        return t.key == "failures" && !t.rows.empty();
    });
    return out;
}

} // namespace

PluginStatsPane::PluginStatsPane(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* top = new QHBoxLayout;
    m_chooser = new QComboBox;
    m_chooser->setObjectName("pluginTableChooser");
    m_chooser->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    top->addWidget(m_chooser);
    m_summary = new QLabel;
    top->addWidget(m_summary, 1);
    auto* copy = new QPushButton(tr("Copy"));
    copy->setToolTip(tr("Copy the table as tab-separated text"));
    top->addWidget(copy);
    layout->addLayout(top);
    m_model = new StatsTableModel(this);
    m_table = new QTreeView;
    m_table->setObjectName("pluginTable");
    m_table->setModel(m_model);
    m_table->setRootIsDecorated(false);
    m_table->setAlternatingRowColors(true);
    m_table->setSortingEnabled(true);
    m_table->setUniformRowHeights(true);
    layout->addWidget(m_table, 1);
    connect(m_chooser, &QComboBox::currentIndexChanged, this, [this] { fill(); });
    connect(copy, &QPushButton::clicked, this, [this] { QApplication::clipboard()->setText(m_model->asTsv()); });
    connect(m_table, &QTreeView::activated, this, [this](const QModelIndex& index) {
        // The time cell activated, else the row's own time.
        QModelIndex at = index;
        if (!at.data(StatsTableModel::kJumpTime).isValid()) at = index.siblingAtColumn(m_model->timeColumn());
        if (!at.isValid() || !at.data(StatsTableModel::kJumpTime).isValid()) return;
        emit jumpRequested(at.data(StatsTableModel::kJumpTime).toULongLong(),
                           int32_t(at.data(StatsTableModel::kJumpPid).toLongLong()));
    });
}

void PluginStatsPane::setSession(const TraceSession* session, const QString& source)
{
    m_session = session;
    m_source = source;
    QSignalBlocker block(m_chooser);
    // The table the user chose stays chosen when the same recording is analysed again.
    const QString chosen = m_chooser->currentText();
    m_chooser->clear();
    if (session && session->trace)
        for (const Choice& c : choices(*session)) {
            const StatsTable& t = session->pluginTables[c.plugin].statistics[c.table];
            m_chooser->addItem(QStringLiteral("%1: %2")
                                   .arg(QString::fromStdString(session->trace->plugins()[c.plugin]->name()))
                                   .arg(QString::fromStdString(t.title)));
        }
    if (!source.isEmpty() && m_chooser->findText(chosen) >= 0) m_chooser->setCurrentIndex(m_chooser->findText(chosen));
    fill();
}

bool PluginStatsPane::hasRows() const
{
    if (!m_session) return false;
    for (const PluginTables& tables : m_session->pluginTables)
        for (const StatsTable& t : tables.statistics)
            if (!t.rows.empty()) return true;
    return false;
}

bool PluginStatsPane::showTable(const std::string& plugin, const std::string& key)
{
    if (!m_session) return false;
    const std::vector<Choice> all = choices(*m_session);
    for (size_t i = 0; i < all.size(); ++i)
        if (m_session->trace->plugins()[all[i].plugin]->name() == plugin &&
            m_session->pluginTables[all[i].plugin].statistics[all[i].table].key == key) {
            m_chooser->setCurrentIndex(int(i));
            return true;
        }
    return false;
}

void PluginStatsPane::fill()
{
    m_summary->clear();
    if (!m_session || m_chooser->currentIndex() < 0) {
        m_model->setTable(nullptr, false);
        m_summary->setText(!m_session         ? m_source
                           : m_source.isEmpty() ? tr("No plugin made statistics for this recording (View > Plugins)")
                                                : m_source + tr(" · no plugin made statistics of it yet"));
        return;
    }
    const Choice choice = choices(*m_session)[size_t(m_chooser->currentIndex())];
    const StatsTable& table = m_session->pluginTables[choice.plugin].statistics[choice.table];
    m_model->setTable(&table, m_session->trace->file().info().timesInUsecs);
    // In time order when the rows have times, else by the first column (name, pid, bucket).
    m_table->sortByColumn(std::max(m_model->timeColumn(), 0), Qt::AscendingOrder);
    // Widths from the first rows: measuring 400k rows would cost seconds.
    for (int c = 0; c < m_model->columnCount(); ++c) {
        int width = m_table->fontMetrics().horizontalAdvance(m_model->headerData(c, Qt::Horizontal).toString()) + 24;
        for (int r = 0; r < std::min(m_model->rowCount(), 200); ++r)
            width =
                std::max(width, m_table->fontMetrics().horizontalAdvance(m_model->index(r, c).data().toString()) + 16);
        m_table->setColumnWidth(c, width);
    }
    m_summary->setText(tr("%1%2 rows%3")
                           .arg(m_source.isEmpty() ? QString() : m_source + " · ")
                           .arg(QLocale().toString(qulonglong(table.rows.size())))
                           .arg(m_model->rowsJump()   ? tr(" · double-click a row to go to its event")
                                : m_model->hasJumps() ? tr(" · double-click a time to go to its event")
                                                      : QString()));
}

} // namespace ringside
