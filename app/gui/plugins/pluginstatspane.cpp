// SPDX-License-Identifier: GPL-2.0-or-later
#include "plugins/pluginstatspane.h"

#include "jobs/analysisjob.h"
#include "plugins/failurelabel.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPainter>
#include <QPushButton>
#include <QStyledItemDelegate>
#include <QTreeView>
#include <QVBoxLayout>
#include <algorithm>

namespace ringside {

namespace {

// A histogram's counts as bars behind their numbers.
class BarDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override
    {
        QStyledItemDelegate::paint(painter, option, index);
        const QVariant bar = index.data(StatsTableModel::kBar);
        if (!bar.isValid()) return;
        // Left of the number, which stays right-aligned and clear of the bar.
        const int text = option.fontMetrics.horizontalAdvance(index.data().toString()) + 10;
        const QRect area = option.rect.adjusted(2, 3, -text, -3);
        const int width = int(area.width() * std::clamp(bar.toDouble(), 0.0, 1.0));
        if (width > 0) painter->fillRect(QRect(area.left(), area.top(), width, area.height()), QColor(0x35, 0x84, 0xe4, 80));
    }
};

} // namespace

PluginStatsPane::PluginStatsPane(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_failures = new QLabel;
    m_failures->setObjectName("pluginFailures");
    m_failures->setWordWrap(true);
    m_failures->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_failures->setStyleSheet("color: #c01c28");
    m_failures->hide();
    layout->addWidget(m_failures);
    m_notesLabel = new QLabel;
    m_notesLabel->setObjectName("pluginNotes");
    m_notesLabel->setWordWrap(true);
    m_notesLabel->setTextFormat(Qt::RichText);
    m_notesLabel->setStyleSheet("color: #9c4a00");
    m_notesLabel->hide();
    connect(m_notesLabel, &QLabel::linkActivated, this,
            [this](const QString& link) { showTable(link.section('/', 0, 0), link.section('/', 1)); });
    layout->addWidget(m_notesLabel);
    auto* top = new QHBoxLayout;
    m_chooser = new QComboBox;
    m_chooser->setObjectName("pluginTableChooser");
    m_chooser->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    top->addWidget(m_chooser);
    m_summary = new QLabel;
    top->addWidget(m_summary, 1);
    auto* copy = new QPushButton(tr("Copy"));
    copy->setToolTip(tr("Copy the table as tab-separated text (exact values)"));
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
    // Columns as wide as their content: a stretched last column put its numbers, right-aligned,
    // a window's width from its header.
    m_table->header()->setStretchLastSection(false);
    m_table->setItemDelegate(new BarDelegate(m_table));
    layout->addWidget(m_table, 1);
    connect(m_chooser, &QComboBox::currentIndexChanged, this, [this] { fill(); });
    connect(copy, &QPushButton::clicked, this, [this] { QApplication::clipboard()->setText(m_model->asTsv()); });
    connect(m_table, &QTreeView::activated, this, [this](const QModelIndex& index) {
        const QVariant event = index.data(StatsTableModel::kJumpEvent);
        if (!event.isValid()) return;
        std::optional<std::pair<quint64, quint64>> span;
        if (const QVariantList ends = index.data(StatsTableModel::kJumpSpan).toList(); ends.size() == 2)
            span = std::make_pair(ends[0].toULongLong(), ends[1].toULongLong());
        emit jumpRequested(StatsTable::eventOf(event.toLongLong()), span);
    });
}

std::vector<PluginStatsPane::Choice> PluginStatsPane::choices() const
{
    std::vector<Choice> out;
    for (size_t p = 0; p < m_tables.size(); ++p) {
        // A plugin whose every table is empty found nothing in this recording (the Plugins
        // dialog says why) and offers none: kvm's vCPU threads on a recording of no KVM host.
        if (!m_tables[p] || std::all_of(m_tables[p]->begin(), m_tables[p]->end(),
                                        [](const StatsTable& t) { return t.rows() == 0; }))
            continue;
        for (size_t t = 0; t < m_tables[p]->size(); ++t) out.push_back({p, t, (*m_tables[p])[t].key});
    }
    // A headline with rows first: what people open this pane for.
    std::stable_partition(out.begin(), out.end(), [&](const Choice& c) {
        const StatsTable& t = (*m_tables[c.plugin])[c.table];
        return t.headline && t.rows() > 0;
    });
    return out;
}

void PluginStatsPane::setSession(const TraceSession* session)
{
    m_session = session;
    m_tables.clear();
    m_choices.clear();
    {
        const QSignalBlocker block(m_chooser);
        m_chooser->clear();
    }
    refresh();
}

void PluginStatsPane::refresh()
{
    // The table shown stays chosen, by its plugin and key.
    std::optional<std::pair<size_t, std::string>> chosen;
    if (m_chooser->currentIndex() >= 0 && size_t(m_chooser->currentIndex()) < m_choices.size())
        chosen = std::pair(m_choices[size_t(m_chooser->currentIndex())].plugin,
                           m_choices[size_t(m_chooser->currentIndex())].key);
    m_tables.clear();
    if (m_session && m_session->trace)
        for (const Plugin* plugin : m_session->trace->plugins()) m_tables.push_back(m_session->trace->statistics(*plugin));
    const QStringList failures =
        m_session && m_session->trace
            ? FailureLabel::lines(m_session->trace->failures(),
                                  m_session->analyses ? m_session->analyses->failure() : QString())
            : QStringList();
    m_failures->setText(failures.join('\n'));
    m_failures->setVisible(!failures.isEmpty());
    m_choices = choices();
    m_notes.clear();
    QStringList noteLines;
    for (size_t p = 0; p < m_tables.size(); ++p) {
        if (!m_tables[p]) continue;
        const QString plugin = QString::fromStdString(m_session->trace->plugins()[p]->name());
        for (const StatsTable& t : *m_tables[p]) {
            if (t.note.empty()) continue;
            const QString key = QString::fromStdString(t.key);
            m_notes.push_back({plugin, key, QString::fromStdString(t.note)});
            noteLines << tr("<b>%1:</b> %2 <a href=\"%3/%4\">%5</a>")
                             .arg(plugin.toHtmlEscaped(), m_notes.back().text.toHtmlEscaped(), plugin, key,
                                  tr("Show “%1”").arg(QString::fromStdString(t.title).toHtmlEscaped()));
        }
    }
    m_notesLabel->setText(noteLines.join("<br>"));
    m_notesLabel->setVisible(!noteLines.isEmpty());
    {
        const QSignalBlocker block(m_chooser);
        m_chooser->clear();
        for (const Choice& c : m_choices)
            m_chooser->addItem(QStringLiteral("%1: %2")
                                   .arg(QString::fromStdString(m_session->trace->plugins()[c.plugin]->name()))
                                   .arg(QString::fromStdString((*m_tables[c.plugin])[c.table].title)));
        int index = m_choices.empty() ? -1 : 0;
        for (size_t i = 0; chosen && i < m_choices.size(); ++i)
            if (m_choices[i].plugin == chosen->first && m_choices[i].key == chosen->second) index = int(i);
        m_chooser->setCurrentIndex(index);
    }
    fill();
    emit notesChanged();
}

bool PluginStatsPane::showTable(const QString& plugin, const QString& tableKey)
{
    if (!m_session || !m_session->trace) return false;
    for (size_t i = 0; i < m_choices.size(); ++i)
        if (QString::fromStdString(m_session->trace->plugins()[m_choices[i].plugin]->name()) == plugin &&
            QString::fromStdString(m_choices[i].key) == tableKey) {
            m_chooser->setCurrentIndex(int(i));
            return true;
        }
    return false;
}

std::optional<PluginStatsPane::Headline> PluginStatsPane::headline() const
{
    for (const Choice& c : m_choices) {
        const StatsTable& t = (*m_tables[c.plugin])[c.table];
        if (t.headline && t.rows() > 0) return Headline{QString::fromStdString(t.title), t.rows()};
    }
    return std::nullopt;
}

bool PluginStatsPane::showHeadline()
{
    for (size_t i = 0; i < m_choices.size(); ++i) {
        const StatsTable& t = (*m_tables[m_choices[i].plugin])[m_choices[i].table];
        if (t.headline && t.rows() > 0) {
            m_chooser->setCurrentIndex(int(i));
            return true;
        }
    }
    return false;
}

void PluginStatsPane::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (m_stale) fill();
}

void PluginStatsPane::fill()
{
    // A hidden pane fills when shown: a table of 300k failed calls costs its view about 17 MB
    // and its sort a fraction of a second, which a recording's load need not pay.
    m_stale = !isVisible();
    if (m_stale) {
        m_model->setTable(nullptr, 0, {}, false);
        return;
    }
    m_summary->clear();
    const bool analysing = m_session && m_session->trace && !m_session->trace->analysesFinished();
    const bool counting = m_session && m_session->trace && !m_session->trace->statisticsFinished();
    if (!m_session || m_chooser->currentIndex() < 0) {
        m_model->setTable(nullptr, 0, {}, false);
        m_summary->setText(!m_session  ? tr("No recording open")
                           : analysing ? tr("The plugins are reading the recording…")
                           : counting  ? tr("The plugins are making their statistics…")
                                       : tr("No plugin made statistics for this recording (View > Plugins)"));
        return;
    }
    const Choice& choice = m_choices[size_t(m_chooser->currentIndex())];
    const Trace& trace = *m_session->trace;
    m_model->setTable(m_tables[choice.plugin], choice.table, trace.statsContext(), trace.file().info().timesInUsecs);
    // In time order when the rows name events, else by the first column (name, task, bucket).
    m_table->sortByColumn(std::max(m_model->eventColumn(), 0), Qt::AscendingOrder);
    // Widths from the first rows: measuring 400k rows would cost seconds. A duration gets room
    // for the widest (a later row's "940.096 ms" was cut to "940.096 …").
    const StatsTable& shown = (*m_tables[choice.plugin])[size_t(choice.table)];
    const int last = m_model->columnCount() - 1;
    for (int c = 0; c <= last; ++c) {
        const QFontMetrics metrics = m_table->fontMetrics();
        int width = metrics.horizontalAdvance(m_model->headerData(c, Qt::Horizontal).toString()) + 24;
        for (int r = 0; r < std::min(m_model->rowCount(), 200); ++r)
            width = std::max(width, metrics.horizontalAdvance(m_model->index(r, c).data().toString()) + 16);
        if (shown.columns[size_t(c)].kind == StatsTable::Kind::Duration)
            width = std::max(width, metrics.horizontalAdvance(QStringLiteral("-999.999 ms")) + 16);
        // Room for a histogram's bars.
        if (c == m_model->barColumn()) width = std::max(width, 320);
        m_table->setColumnWidth(c, std::min(width, 400));
    }
    // A text in the last column (an explanation, a list of errors) takes the rest of the width;
    // numbers there stay beside their header.
    const StatsTable::Kind lastKind = last >= 0 ? shown.columns[size_t(last)].kind : StatsTable::Kind::Number;
    m_table->header()->setStretchLastSection(lastKind == StatsTable::Kind::Text ||
                                             lastKind == StatsTable::Kind::Counts);
    const QString of =
        counting ? tr("so far (of %1 events analysed) · ").arg(QLocale().toString(qulonglong(trace.analysedRows())))
                 : QString();
    const QString rows = m_model->rowCount() == 1
                             ? tr("1 row")
                             : tr("%1 rows").arg(QLocale().toString(qulonglong(m_model->rowCount())));
    m_summary->setText(
        tr("%1%2%3").arg(of, rows, m_model->hasJumps() ? tr(" · double-click a row to go to its event") : QString()));
}

} // namespace ringside
