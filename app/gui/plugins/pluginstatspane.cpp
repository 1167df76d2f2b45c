// SPDX-License-Identifier: GPL-2.0-or-later
#include "plugins/pluginstatspane.h"

#include "plugin/statstext.h"
#include "table/eventtablemodel.h"
#include "table/treetext.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <algorithm>

namespace ringside {

namespace {

// Per cell: the event a double-click goes to.
constexpr int kJumpTime = Qt::UserRole + 1, kJumpPid = Qt::UserRole + 2;

// Sorts numbers by value, text by text.
class StatsItem : public QTreeWidgetItem {
public:
    using QTreeWidgetItem::QTreeWidgetItem;
    bool operator<(const QTreeWidgetItem& other) const override
    {
        const int c = treeWidget() ? treeWidget()->sortColumn() : 0;
        const QVariant a = data(c, Qt::UserRole), b = other.data(c, Qt::UserRole);
        if (a.isValid() && b.isValid()) return a.toDouble() < b.toDouble();
        return text(c) < other.text(c);
    }
};

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
    m_table = new QTreeWidget;
    m_table->setObjectName("pluginTable");
    m_table->setRootIsDecorated(false);
    m_table->setAlternatingRowColors(true);
    m_table->setSortingEnabled(true);
    m_table->setUniformRowHeights(true);
    layout->addWidget(m_table, 1);
    connect(m_chooser, &QComboBox::currentIndexChanged, this, [this] { fill(); });
    connect(copy, &QPushButton::clicked, this, [this] { QApplication::clipboard()->setText(treeAsTsv(m_table)); });
    connect(m_table, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item, int column) {
        // The time cell activated, else the row's own time.
        const int c = item->data(column, kJumpTime).isValid() ? column : m_timeColumn;
        if (c < 0 || !item->data(c, kJumpTime).isValid()) return;
        emit jumpRequested(item->data(c, kJumpTime).toULongLong(), int32_t(item->data(c, kJumpPid).toLongLong()));
    });
}

void PluginStatsPane::setSession(const TraceSession* session)
{
    m_session = session;
    QSignalBlocker block(m_chooser);
    m_chooser->clear();
    if (session && session->trace)
        for (const Choice& c : choices(*session)) {
            const StatsTable& t = session->pluginTables[c.plugin].statistics[c.table];
            m_chooser->addItem(QStringLiteral("%1: %2")
                                   .arg(QString::fromStdString(session->trace->plugins()[c.plugin]->name()))
                                   .arg(QString::fromStdString(t.title)));
        }
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
    m_table->clear();
    m_table->setColumnCount(0);
    m_summary->clear();
    if (!m_session || m_chooser->currentIndex() < 0) {
        m_summary->setText(m_session ? tr("No plugin made statistics for this recording (View > Plugins)") : QString());
        return;
    }
    const Choice choice = choices(*m_session)[size_t(m_chooser->currentIndex())];
    const StatsTable& table = m_session->pluginTables[choice.plugin].statistics[choice.table];
    // A "time" column places the row's event (with its "pid"); a column "X_at" is the time of
    // another event of the row (a maximum), of task "X_pid" or else "pid": a double-click on
    // such a cell goes there.
    QStringList titles;
    m_timeColumn = -1;
    std::vector<bool> isTime(table.columns.size(), false);
    std::vector<int> pidOf(table.columns.size(), -1); // per time column: its task's column
    auto columnOf = [&](const std::string& key) {
        for (size_t c = 0; c < table.columns.size(); ++c)
            if (table.columns[c].key == key) return int(c);
        return -1;
    };
    const int pidColumn = columnOf("pid");
    for (size_t c = 0; c < table.columns.size(); ++c) {
        const std::string& key = table.columns[c].key;
        titles << QString::fromStdString(table.columns[c].title);
        if (key == "time") {
            m_timeColumn = int(c), titles.back() = tr("Time (s)");
            isTime[c] = true;
            pidOf[c] = pidColumn;
        } else if (key.size() > 3 && key.compare(key.size() - 3, 3, "_at") == 0) {
            const int own = columnOf(key.substr(0, key.size() - 3) + "_pid");
            pidOf[c] = own >= 0 ? own : pidColumn;
            isTime[c] = true;
            titles.back() += tr(" (s)");
        }
    }
    m_table->setHeaderLabels(titles);
    const bool usecs = m_session->trace->file().info().timesInUsecs;
    bool jumps = false;
    QList<QTreeWidgetItem*> items;
    for (const auto& row : table.rows) {
        auto* item = new StatsItem;
        for (int c = 0; c < int(row.size()) && c < int(table.columns.size()); ++c) {
            const StatsTable::Cell& cell = row[size_t(c)];
            QString text = QString::fromStdString(cellText(cell));
            if (std::holds_alternative<int64_t>(cell))
                item->setData(c, Qt::UserRole, qlonglong(std::get<int64_t>(cell)));
            if (std::holds_alternative<uint64_t>(cell))
                item->setData(c, Qt::UserRole, qulonglong(std::get<uint64_t>(cell)));
            if (std::holds_alternative<double>(cell)) item->setData(c, Qt::UserRole, std::get<double>(cell));
            if (isTime[size_t(c)] && std::holds_alternative<uint64_t>(cell))
                text =
                    std::get<uint64_t>(cell) ? EventTableModel::formatTime(std::get<uint64_t>(cell), usecs) : QString();
            item->setText(c, text);
            if (item->data(c, Qt::UserRole).isValid()) item->setTextAlignment(c, Qt::AlignRight | Qt::AlignVCenter);
            // Errors stand out.
            if (table.columns[size_t(c)].key == "errno" && !text.isEmpty())
                item->setForeground(c, QColor(0xc0, 0x1c, 0x28));
        }
        for (int c = 0; c < int(row.size()) && c < int(table.columns.size()); ++c) {
            const int p = pidOf[size_t(c)];
            if (p < 0 || p >= int(row.size()) || item->text(c).isEmpty()) continue;
            item->setData(c, kJumpTime, item->data(c, Qt::UserRole));
            item->setData(c, kJumpPid, item->data(p, Qt::UserRole));
            item->setToolTip(c, tr("Double-click to go to this event"));
            jumps = true;
        }
        if (m_timeColumn >= 0 && pidColumn >= 0) item->setToolTip(0, tr("Double-click to go to the event"));
        items << item;
    }
    m_table->addTopLevelItems(items);
    // In time order when the rows have times, else by the first column (name, pid, bucket).
    m_table->sortByColumn(std::max(m_timeColumn, 0), Qt::AscendingOrder);
    for (int c = 0; c < m_table->columnCount(); ++c) m_table->resizeColumnToContents(c);
    m_summary->setText(tr("%1 rows%2")
                           .arg(QLocale().toString(qulonglong(table.rows.size())))
                           .arg(m_timeColumn >= 0 && pidColumn >= 0 ? tr(" · double-click a row to go to its event")
                                : jumps                             ? tr(" · double-click a time to go to its event")
                                                                    : QString()));
}

} // namespace ringside
