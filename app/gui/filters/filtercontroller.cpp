// SPDX-License-Identifier: GPL-2.0-or-later
#include "filters/filtercontroller.h"

#include "filters/filterpanel.h"
#include "state/workspace.h"
#include "table/eventtablemodel.h"
#include "timeline/timelinewidget.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>

#include <algorithm>

namespace ringside {

FilterController::FilterController(Workspace& workspace, FilterPanel* panel, EventTableModel* model,
                                   TimelineWidget* timeline, QWidget* barParent)
    : QObject(barParent), m_workspace(workspace), m_panel(panel), m_model(model), m_timeline(timeline)
{
    m_bar = new QWidget(barParent);
    auto* layout = new QHBoxLayout(m_bar);
    layout->setContentsMargins(6, 2, 6, 2);
    m_label = new QLabel(m_bar);
    auto* clear = new QPushButton(tr("Clear filters"), m_bar);
    layout->addWidget(m_label, 1);
    layout->addWidget(clear);
    m_bar->setAutoFillBackground(true);
    m_bar->setBackgroundRole(QPalette::ToolTipBase);
    m_bar->hide();
    connect(clear, &QPushButton::clicked, m_panel, &FilterPanel::clearAll);
    connect(m_panel, &FilterPanel::specChanged, this, &FilterController::panelChanged);
    connect(m_panel, &FilterPanel::addTaskRowRequested, &workspace.view(), &ViewState::addTaskRow);
    connect(&workspace.view(), &ViewState::filterChanged, this, &FilterController::apply);
    connect(&m_job, &FilterJob::progress, this, [this](int percent) {
        m_label->setText(tr("Filtering… %1%").arg(percent));
        m_bar->show();
    });
    connect(&m_job, &FilterJob::finished, this,
            [this](std::shared_ptr<FilterResult> result) { showResult(std::move(result), m_pending); });
    connect(&m_job, &FilterJob::failed, this, [this](const QString& message) {
        m_label->setText(tr("Filtering failed: %1").arg(message));
        m_bar->show();
    });
}

void FilterController::requestExpression(const QString& expression)
{
    FilterSpec spec = m_panel->spec();
    spec.expression = expression.toStdString();
    m_panel->setSpec(spec);
    panelChanged();
}

void FilterController::release()
{
    m_job.cancel();
    m_bar->hide();
}

void FilterController::refreshCounts(bool now)
{
    // A refresh costs with the lists' length (a 100M-event recording names 32K tasks): while a
    // store grows, the lists take at most a twentieth of the GUI thread.
    const qint64 interval = std::max<qint64>(1000, 20 * m_countsCostMs);
    if (now || !m_lastCounts.isValid() || m_lastCounts.elapsed() > interval) {
        m_lastCounts.start();
        m_panel->refreshCounts();
        m_countsCostMs = m_lastCounts.elapsed();
    }
}

void FilterController::captureGrew()
{
    if (!m_workspace.view().filter().empty() && !m_job.running() &&
        (!m_lastLiveFilter.isValid() || m_lastLiveFilter.elapsed() > 1000)) {
        m_lastLiveFilter.start();
        apply();
    }
}

std::shared_ptr<FilterExpression> FilterController::compile(const std::string& text, QString* error)
{
    if (text.empty()) return nullptr;
    auto compiled = FilterExpression::compile(*m_workspace.session()->trace, text);
    if (compiled) return compiled.value();
    *error = QString::fromStdString(compiled.error().message);
    return nullptr;
}

void FilterController::panelChanged()
{
    if (!m_workspace.session()) return;
    FilterSpec spec = m_panel->spec();
    QString error;
    if (!spec.expression.empty() && !compile(spec.expression, &error)) {
        // What was applied stays applied until a valid filter replaces it.
        spec.expression = m_workspace.view().filter().expression;
        const QString kept = spec.expression.empty()
                                 ? tr("no expression is applied")
                                 : tr("still applied: %1").arg(QString::fromStdString(spec.expression));
        m_panel->setExpressionError(tr("%1 (%2)").arg(error, kept));
    } else {
        m_panel->setExpressionError(QString());
    }
    const FilterSpec& current = m_workspace.view().filter();
    if (spec.hiddenStreams == current.hiddenStreams && spec.hiddenPids == current.hiddenPids &&
        spec.hiddenTypes == current.hiddenTypes && spec.expression == current.expression) {
        if (!error.isEmpty()) emit applied(); // nothing changed, but the answer (an error) is in
        return;
    }
    m_workspace.view().setFilter(std::move(spec));
}

void FilterController::apply()
{
    if (!m_workspace.session()) return;
    FilterSpec spec = m_workspace.view().filter();
    QString error;
    std::shared_ptr<FilterExpression> expression = compile(spec.expression, &error);
    if (!error.isEmpty()) {
        // Only a restored view can hold an expression this trace does not compile.
        m_panel->setExpressionError(error);
        spec.expression.clear();
    }
    m_pending = spec;
    if (spec.empty()) {
        m_job.cancel();
        showResult(nullptr, spec);
        return;
    }
    m_job.start(m_workspace.session(), spec, expression);
}

void FilterController::showResult(std::shared_ptr<FilterResult> result, const FilterSpec& spec)
{
    const std::optional<EventRef> selection = m_workspace.view().selection();
    m_model->setFilter(result);
    m_timeline->setFilter(result, spec.hiddenStreams);
    if (!result) {
        m_bar->hide();
    } else {
        QStringList parts;
        const auto hiddenCpus = std::count(spec.hiddenStreams.begin(), spec.hiddenStreams.end(), true);
        if (hiddenCpus) parts << tr("CPUs hidden: %1").arg(hiddenCpus);
        const auto hiddenTypes = std::count(spec.hiddenTypes.begin(), spec.hiddenTypes.end(), true);
        if (hiddenTypes) parts << tr("event types hidden: %1").arg(hiddenTypes);
        if (!spec.hiddenPids.empty()) parts << tr("tasks hidden: %1").arg(spec.hiddenPids.size());
        if (!spec.expression.empty()) parts << tr("filter: %1").arg(QString::fromStdString(spec.expression));
        m_label->setText(tr("Showing %1 of %2 events · %3")
                                   .arg(QLocale().toString(qulonglong(result->merged.size())))
                                   .arg(QLocale().toString(qulonglong(m_workspace.session()->store().eventCount())))
                                   .arg(parts.join(", ")));
        m_bar->show();
    }
    // The selection survives a filter change: the event itself when it is still shown, or else
    // the shown event nearest in time; the table scrolls to it either way.
    if (selection) {
        if (m_model->rowOf(*selection) >= 0) {
            emit selectionKept();
        } else if (result && result->merged.size() > 0) {
            const EventStore& store = m_workspace.session()->store();
            const uint64_t t = store.timestamp(*selection);
            const size_t after = result->merged.rank(store.rowOf(*selection)); // shown rows before it
            size_t best = std::min(after, result->merged.size() - 1);
            if (after > 0 && after < result->merged.size()) {
                const uint64_t tBefore = store.timestamp(store.eventAt(result->merged.select(after - 1)));
                const uint64_t tAfter = store.timestamp(store.eventAt(result->merged.select(after)));
                if (t - tBefore <= tAfter - t) best = after - 1;
            }
            m_workspace.view().select(store.eventAt(result->merged.select(best)));
        }
    }
    emit applied();
}

} // namespace ringside
