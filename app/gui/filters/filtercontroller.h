// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "filters/filterjob.h"

#include <QElapsedTimer>
#include <QObject>

#include <memory>
#include <string>

class QLabel;
class QWidget;

namespace ringside {

class EventTableModel;
class FilterPanel;
class TimelineWidget;
class Workspace;

// Filtering: the filter panel's choices checked and applied through the view state, the filter
// job's result shown in the table, the timeline and the filter bar (the filters active, visible
// and clearable in one click, above the table).
class FilterController : public QObject {
    Q_OBJECT
public:
    FilterController(Workspace& workspace, FilterPanel* panel, EventTableModel* model, TimelineWidget* timeline,
                     QWidget* barParent);

    // The bar above the table: what is filtered, "Clear filters".
    QWidget* bar() const { return m_bar; }
    // The filter panel changed: a valid filter replaces the applied one; an expression that
    // does not compile leaves the applied expression in place and shows its error.
    void panelChanged();
    // A filter expression asked for elsewhere (a call tree's "filter to this function").
    void requestExpression(const QString& expression);
    // The view state's filter: evaluated by the filter job, its result shown.
    void apply();
    // The recording shown goes: the job stops, the bar hides.
    void release();
    // A growing capture: a filter shows what had arrived when it ran, so it runs again, at
    // most once a second.
    void captureGrew();
    // The filter panel's lists counted again as a recording grows or its analyses name its
    // tasks: at most once a second (less often when a refresh takes long), unless `now`.
    void refreshCounts(bool now = false);

signals:
    // A filter's result is shown (or the answer is an error).
    void applied();
    // The selected event is still shown after a filter: the table follows it.
    void selectionKept();

private:
    void showResult(std::shared_ptr<FilterResult> result, const FilterSpec& spec);
    std::shared_ptr<FilterExpression> compile(const std::string& text, QString* error);

    Workspace& m_workspace;
    FilterPanel* m_panel;
    EventTableModel* m_model;
    TimelineWidget* m_timeline;
    QWidget* m_bar = nullptr;
    QLabel* m_label = nullptr;
    FilterJob m_job;
    FilterSpec m_pending;
    QElapsedTimer m_lastLiveFilter;
    QElapsedTimer m_lastCounts;
    qint64 m_countsCostMs = 0; // what the last refresh of the counts took
};

} // namespace ringside
