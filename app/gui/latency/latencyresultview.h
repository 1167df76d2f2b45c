// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "latency/latencyreport.h"
#include "latency/loadedpairs.h"
#include "state/tracesession.h"
#include "timeline/timelinemath.h"

#include <QAbstractTableModel>
#include <QWidget>

#include <memory>
#include <optional>
#include <utility>

class QLabel;
class QPushButton;
class QTableView;
class QTreeWidget;

namespace ringside {

class LatencyHistogram;

// One latency analysis of a recording, as made on a worker: its pairs and their report (every
// pair ordered slowest first).
struct LatencyResult {
    PairSpec spec;
    std::shared_ptr<TraceSession> session; // keeps the recording the pairs name
    std::unique_ptr<LoadedPairs> loaded;
    LatencyReport report;
    const EventPairs& pairs() const { return loaded->pairs(); }
    // Durations in ns, or in the ticks of a clock the file gives no conversion for.
    timeline::ClockUnit unit() const
    {
        return session->trace->file().info().timesInUsecs ? timeline::ClockUnit::Nanoseconds
                                                          : timeline::ClockUnit::Ticks;
    }
};

// The pairs of a stretch of the slowest-first list: a histogram bucket's, or all of them.
class LatencyPairsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { kRank, kStart, kDuration, kKey, kCpu, kTask, kColumns };
    explicit LatencyPairsModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}
    void setResult(std::shared_ptr<const LatencyResult> result);
    void showStretch(size_t first, size_t last);
    // The pair a row shows (an index into the pairs).
    uint32_t pairAt(int row) const;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::shared_ptr<const LatencyResult> m_result;
    size_t m_first = 0, m_last = 0;
};

// A latency analysis's result: what was paired and how, the counts and percentiles, the
// histogram, the pairs of the buckets selected (all when none) slowest first, and each group.
// A double-click on a pair goes to its start event with the markers on its start and end.
class LatencyResultView : public QWidget {
    Q_OBJECT
public:
    explicit LatencyResultView(std::shared_ptr<const LatencyResult> result, QWidget* parent = nullptr);
    const LatencyResult& result() const { return *m_result; }
    LatencyHistogram* histogram() const { return m_histogram; }
    QTableView* pairsView() const { return m_pairs; }
    LatencyPairsModel* pairsModel() const { return m_model; }
    QTreeWidget* groups() const { return m_groups; }
    QLabel* summary() const { return m_summary; }
    QLabel* shownLabel() const { return m_shown; }
    QPushButton* trackButton() const { return m_track; }
    // The SQL of a track of the pairs shown (those of the selected durations, or all).
    QString trackSql() const;
    void goToRow(int row);

signals:
    void jumpRequested(ringside::EventRef event, std::optional<std::pair<quint64, quint64>> span);
    void trackRequested(const QString& name, const QString& sql);

private:
    void showRange(quint64 from, quint64 to);

    std::shared_ptr<const LatencyResult> m_result;
    QLabel* m_summary;
    LatencyHistogram* m_histogram;
    QLabel* m_shown;
    QPushButton* m_track;
    QTableView* m_pairs;
    LatencyPairsModel* m_model;
    QTreeWidget* m_groups;
    quint64 m_from = 0, m_to = 0; // the durations shown; 0, 0: all
};

} // namespace ringside
