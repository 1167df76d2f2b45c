// SPDX-License-Identifier: GPL-2.0-or-later
// The window's side of filtering: the filter panel's choices checked and applied through the
// view state, the filter job's result shown in the table, the timeline and the filter bar.
#include "mainwindow.h"

#include "filters/filterpanel.h"
#include "table/eventtablemodel.h"
#include "timeline/timelinewidget.h"

#include <QLabel>
#include <QLocale>

#include <algorithm>

namespace ringside {

std::shared_ptr<FilterExpression> MainWindow::compileExpression(const std::string& text, QString* error)
{
    if (text.empty()) return nullptr;
    auto compiled = FilterExpression::compile(*activeSession()->trace, text);
    if (compiled) return compiled.value();
    *error = QString::fromStdString(compiled.error().message);
    return nullptr;
}

void MainWindow::onFilterPanelChanged()
{
    if (!activeSession()) return;
    FilterSpec spec = m_filters->spec();
    QString error;
    if (!spec.expression.empty() && !compileExpression(spec.expression, &error)) {
        // What was applied stays applied until a valid filter replaces it.
        spec.expression = m_view.filter().expression;
        const QString kept = spec.expression.empty()
                                 ? tr("no expression is applied")
                                 : tr("still applied: %1").arg(QString::fromStdString(spec.expression));
        m_filters->setExpressionError(tr("%1 (%2)").arg(error, kept));
    } else {
        m_filters->setExpressionError(QString());
    }
    const FilterSpec& applied = m_view.filter();
    if (spec.hiddenStreams == applied.hiddenStreams && spec.hiddenPids == applied.hiddenPids &&
        spec.hiddenTypes == applied.hiddenTypes && spec.expression == applied.expression) {
        if (!error.isEmpty()) emit filterApplied(); // nothing changed, but the answer (an error) is in
        return;
    }
    m_view.setFilter(std::move(spec));
}

void MainWindow::applyFilters()
{
    if (!activeSession()) return;
    FilterSpec spec = m_view.filter();
    QString error;
    std::shared_ptr<FilterExpression> expression = compileExpression(spec.expression, &error);
    if (!error.isEmpty()) {
        // Only a restored view can hold an expression this trace does not compile.
        m_filters->setExpressionError(error);
        spec.expression.clear();
    }
    m_pendingSpec = spec;
    if (spec.empty()) {
        m_filterJob.cancel();
        showFilterResult(nullptr, spec);
        return;
    }
    m_filterJob.start(activeSession(), spec, expression);
}

void MainWindow::showFilterResult(std::shared_ptr<FilterResult> result, const FilterSpec& spec)
{
    const std::optional<EventRef> selection = m_view.selection();
    m_model->setFilter(result);
    m_timeline->setFilter(result, spec.hiddenStreams);
    if (!result) {
        m_filterBar->hide();
    } else {
        QStringList parts;
        const auto hiddenCpus = std::count(spec.hiddenStreams.begin(), spec.hiddenStreams.end(), true);
        if (hiddenCpus) parts << tr("CPUs hidden: %1").arg(hiddenCpus);
        const auto hiddenTypes = std::count(spec.hiddenTypes.begin(), spec.hiddenTypes.end(), true);
        if (hiddenTypes) parts << tr("event types hidden: %1").arg(hiddenTypes);
        if (!spec.hiddenPids.empty()) parts << tr("tasks hidden: %1").arg(spec.hiddenPids.size());
        if (!spec.expression.empty()) parts << tr("filter: %1").arg(QString::fromStdString(spec.expression));
        m_filterLabel->setText(tr("Showing %1 of %2 events · %3")
                                   .arg(QLocale().toString(qulonglong(result->merged.size())))
                                   .arg(QLocale().toString(qulonglong(activeSession()->store().eventCount())))
                                   .arg(parts.join(", ")));
        m_filterBar->show();
    }
    // The selection survives a filter change: the event itself when it is still shown, or else
    // the shown event nearest in time; the table scrolls to it either way.
    if (selection) {
        if (m_model->rowOf(*selection) >= 0) {
            onSelectionChanged();
        } else if (result && result->merged.size() > 0) {
            const EventStore& store = activeSession()->store();
            const uint64_t t = store.timestamp(*selection);
            const size_t after = result->merged.rank(store.rowOf(*selection)); // shown rows before it
            size_t best = std::min(after, result->merged.size() - 1);
            if (after > 0 && after < result->merged.size()) {
                const uint64_t tBefore = store.timestamp(store.eventAt(result->merged.select(after - 1)));
                const uint64_t tAfter = store.timestamp(store.eventAt(result->merged.select(after)));
                if (t - tBefore <= tAfter - t) best = after - 1;
            }
            m_view.select(store.eventAt(result->merged.select(best)));
        }
    }
    emit filterApplied();
}

} // namespace ringside
