// SPDX-License-Identifier: GPL-2.0-or-later
#include "latency/latencyresultview.h"

#include "latency/latencyhistogram.h"
#include "sql/eventpairstable.h"
#include "table/eventtablemodel.h"
#include "timeline/timelinemath.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace ringside {

namespace {

QString count(uint64_t n)
{
    return QLocale().toString(qulonglong(n));
}

QString summaryText(const LatencySummary& s, timeline::ClockUnit unit)
{
    auto d = [unit](uint64_t ns) { return timeline::formatDuration(int64_t(ns), unit); };
    return QObject::tr("min %1 · p50 %2 · p90 %3 · p99 %4 · p99.9 %5 · max %6 · mean %7")
        .arg(d(s.min), d(s.p50), d(s.p90), d(s.p99), d(s.p999), d(s.max), d(uint64_t(s.mean + 0.5)));
}

} // namespace

void LatencyPairsModel::setResult(std::shared_ptr<const LatencyResult> result)
{
    beginResetModel();
    m_result = std::move(result);
    m_first = 0;
    m_last = m_result ? m_result->report.slowest.size() : 0;
    endResetModel();
}

void LatencyPairsModel::showStretch(size_t first, size_t last)
{
    beginResetModel();
    m_first = first;
    m_last = last;
    endResetModel();
}

uint32_t LatencyPairsModel::pairAt(int row) const
{
    return m_result->report.slowest[m_first + size_t(row)];
}

int LatencyPairsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_result ? 0 : int(std::min<size_t>(m_last - m_first, INT32_MAX));
}

int LatencyPairsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : kColumns;
}

QVariant LatencyPairsModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || !m_result) return {};
    if (role == Qt::TextAlignmentRole)
        return index.column() == kKey || index.column() == kTask ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                                                 : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole) return {};
    const uint32_t k = pairAt(index.row());
    const PairMatcher::Pairs& p = m_result->pairs().matcher().pairs();
    const EventStore& store = m_result->session->store();
    const EventRef start = p.startEvent[k];
    switch (index.column()) {
    case kRank: return qulonglong(m_first + size_t(index.row()) + 1);
    case kStart: return EventTableModel::formatTime(p.start[k], m_result->session->trace->file().info().timesInUsecs);
    case kDuration: return timeline::formatDuration(int64_t(p.duration[k]), m_result->unit());
    case kKey: return QString::fromStdString(m_result->pairs().groups()[p.group[k]]);
    case kCpu: return store.stream(start.stream).cpu;
    case kTask: {
        const int32_t pid = store.stream(start.stream).columns.pid[start.index];
        return QStringLiteral("%1-%2").arg(QString::fromStdString(m_result->session->taskName(pid))).arg(pid);
    }
    default: return {};
    }
}

QVariant LatencyPairsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case kRank: return tr("#");
    case kStart: return tr("Start");
    case kDuration: return tr("Duration");
    case kKey: return m_result ? QString::fromStdString(m_result->pairs().groupTitle()) : tr("Key");
    case kCpu: return tr("CPU");
    case kTask: return tr("Task at start");
    default: return {};
    }
}

LatencyResultView::LatencyResultView(std::shared_ptr<const LatencyResult> result, QWidget* parent)
    : QWidget(parent), m_result(std::move(result))
{
    const LatencyResult& r = *m_result;
    const PairMatcher& matcher = r.pairs().matcher();
    // One line for the counts and what was paired (the tab names the analysis), one for the
    // distribution: the pane keeps little of the window's height.
    QString counts =
        tr("%1 pairs · unmatched: %2 starts, %3 ends")
            .arg(count(r.report.overall.count), count(matcher.unmatchedStarts()), count(matcher.unmatchedEnds()));
    counts += tr(" · %1 → %2, %3")
                  .arg(QString::fromStdString(r.spec.from), QString::fromStdString(r.spec.to),
                       QString::fromStdString(r.spec.pairingDescription()));
    if (!r.spec.filterFrom.empty()) counts += tr(", starts where %1").arg(QString::fromStdString(r.spec.filterFrom));
    if (!r.spec.filterTo.empty()) counts += tr(", ends where %1").arg(QString::fromStdString(r.spec.filterTo));
    if (const std::string why = r.pairs().nothingPaired(); !why.empty())
        counts += " · " + QString::fromStdString(why);
    else if (r.report.overall.count)
        counts += "\n" + summaryText(r.report.overall, r.unit());
    m_summary = new QLabel(counts, this);
    m_summary->setObjectName("latencySummary");
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_histogram = new LatencyHistogram(this);
    m_histogram->setObjectName("latencyHistogram");
    m_histogram->setBuckets(r.report.histogram, r.unit());
    m_histogram->setToolTip(tr("Click a bar, or drag across bars, to list their pairs"));
    m_shown = new QLabel(this);
    m_track = new QPushButton(tr("Show on Timeline"), this);
    m_track->setObjectName("latencyTrackButton");
    m_track->setToolTip(tr("Draws the pairs listed as slices on the row of the task (or CPU) where each began"));
    m_track->setEnabled(r.report.overall.count > 0);

    m_model = new LatencyPairsModel(this);
    m_model->setResult(m_result);
    m_pairs = new QTableView(this);
    m_pairs->setObjectName("latencyPairs");
    // The rows' height is set before the model: set after, the header resizes each of the
    // millions of rows (about 0.4 s with the window frozen on 11.5M pairs).
    m_pairs->verticalHeader()->hide();
    m_pairs->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_pairs->verticalHeader()->setDefaultSectionSize(m_pairs->fontMetrics().height() + 4);
    m_pairs->setModel(m_model);
    m_pairs->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_pairs->setSelectionMode(QAbstractItemView::SingleSelection);
    m_pairs->horizontalHeader()->setStretchLastSection(true);
    m_pairs->setToolTip(tr("Double-click a pair to go to its start, with the markers on its start and end"));

    m_groups = new QTreeWidget(this);
    m_groups->setObjectName("latencyGroups");
    m_groups->setRootIsDecorated(false);
    m_groups->setHeaderLabels({QString::fromStdString(r.pairs().groupTitle()), tr("Pairs"), tr("Min"), tr("p50"),
                               tr("p90"), tr("p99"), tr("Max"), tr("Total")});
    for (const LatencyReport::Group& g : r.report.groups) {
        auto* item = new QTreeWidgetItem(m_groups);
        const LatencySummary& s = g.summary;
        item->setText(0, QString::fromStdString(g.label));
        item->setText(1, count(s.count));
        const uint64_t values[] = {s.min, s.p50, s.p90, s.p99, s.max, s.total};
        for (int c = 0; c < 6; ++c) {
            item->setText(2 + c, timeline::formatDuration(int64_t(values[c]), m_result->unit()));
            item->setTextAlignment(2 + c, Qt::AlignRight | Qt::AlignVCenter);
        }
        item->setTextAlignment(1, Qt::AlignRight | Qt::AlignVCenter);
    }

    auto* lists = new QSplitter(Qt::Horizontal, this);
    lists->addWidget(m_pairs);
    lists->addWidget(m_groups);
    lists->setStretchFactor(0, 3);
    lists->setStretchFactor(1, 2);
    auto* shownRow = new QHBoxLayout;
    shownRow->addWidget(m_shown, 1);
    shownRow->addWidget(m_track);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_summary);
    // The histogram over the lists, the user's to divide (the lists get the most at first).
    auto* below = new QWidget(this);
    auto* belowLayout = new QVBoxLayout(below);
    belowLayout->setContentsMargins(0, 0, 0, 0);
    belowLayout->addLayout(shownRow);
    belowLayout->addWidget(lists, 1);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->setChildrenCollapsible(false);
    split->addWidget(m_histogram);
    split->addWidget(below);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 2);
    layout->addWidget(split, 1);

    connect(m_histogram, &LatencyHistogram::rangeSelected, this, &LatencyResultView::showRange);
    connect(m_pairs, &QTableView::doubleClicked, this, [this](const QModelIndex& index) { goToRow(index.row()); });
    connect(m_track, &QPushButton::clicked, this, [this] {
        QString name = QString::fromStdString(m_result->spec.name);
        if (m_to)
            name += QStringLiteral(" %1–%2").arg(timeline::formatDuration(int64_t(m_from), m_result->unit()),
                                                 timeline::formatDuration(int64_t(m_to), m_result->unit()));
        emit trackRequested(name, trackSql());
    });
    showRange(0, 0);
}

void LatencyResultView::showRange(quint64 from, quint64 to)
{
    m_from = from;
    m_to = to;
    const LatencyReport& report = m_result->report;
    const PairMatcher::Pairs& p = m_result->pairs().matcher().pairs();
    if (!to) {
        m_model->showStretch(0, report.slowest.size());
        m_shown->setText(tr("All %1 pairs, slowest first").arg(count(report.slowest.size())));
    } else {
        const auto [first, last] = slowestInRange(report, p, from, to);
        m_model->showStretch(first, last);
        m_shown->setText((last - first == 1 ? tr("%1 pair of %2 – %3") : tr("%1 pairs of %2 – %3, slowest first"))
                             .arg(count(last - first), timeline::formatDuration(int64_t(from), m_result->unit()),
                                  timeline::formatDuration(int64_t(to), m_result->unit())));
    }
    m_pairs->resizeColumnsToContents();
}

QString LatencyResultView::trackSql() const
{
    const PairSpec& spec = m_result->spec;
    // Where it began: a CPU's row for pairs matched on the CPU (an IRQ), else the task's.
    const QString owner = spec.sameCpu && !spec.sameTask ? "cpu" : "utid";
    QString sql = QStringLiteral("SELECT ts, dur, %1, key AS name FROM %2")
                      .arg(owner, QString::fromStdString(sql::eventPairsCall(spec)));
    if (m_to) sql += QStringLiteral(" WHERE dur >= %1 AND dur < %2").arg(m_from).arg(m_to);
    return sql;
}

void LatencyResultView::goToRow(int row)
{
    if (row < 0 || row >= m_model->rowCount()) return;
    const uint32_t k = m_model->pairAt(row);
    const PairMatcher::Pairs& p = m_result->pairs().matcher().pairs();
    emit jumpRequested(p.startEvent[k], std::pair<quint64, quint64>(p.start[k], p.start[k] + p.duration[k]));
}

} // namespace ringside
