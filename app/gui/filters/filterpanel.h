// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "query/eventfilter.h"
#include "state/tracesession.h"

#include <QWidget>

class QLabel;
class QLineEdit;
class QTimer;
class QTreeWidget;
class QTreeWidgetItem;

namespace ringside {

// Show/hide by CPU, by event (systems and events with their counts) and by task, each list
// with a search box, and an advanced filter in libtraceevent's syntax whose errors show
// inline. Emits the resulting FilterSpec (debounced) whenever a choice changes.
class FilterPanel : public QWidget {
    Q_OBJECT
public:
    explicit FilterPanel(QWidget* parent = nullptr);

    void setSession(const TraceSession* session);
    // Counts brought up to date, and the CPUs, events and tasks that arrived since added
    // (checked, or unchecked under a system the user hid): a live capture's store grows.
    void refreshCounts();
    FilterSpec spec() const;
    // Shows `spec` (a restored view) without emitting specChanged.
    void setSpec(const FilterSpec& spec);
    void clearAll();
    void setExpressionError(const QString& message);
    QLineEdit* expressionEdit() const { return m_expression; }
    QTreeWidget* eventTree() const { return m_events; }
    QTreeWidget* taskTree() const { return m_tasks; }
    QTreeWidget* cpuTree() const { return m_cpus; }

signals:
    void specChanged();
    void addTaskRowRequested(int32_t pid);

private:
    void populate();
    void scheduleChange();

    const TraceSession* m_session = nullptr;
    QTreeWidget* m_cpus = nullptr;
    QTreeWidget* m_events = nullptr;
    QTreeWidget* m_tasks = nullptr;
    QLineEdit* m_eventSearch = nullptr;
    QLineEdit* m_taskSearch = nullptr;
    QLineEdit* m_expression = nullptr;
    QLabel* m_expressionError = nullptr;
    QString m_appliedExpression;
    QTimer* m_debounce = nullptr;
    bool m_populating = false;
};

} // namespace ringside
