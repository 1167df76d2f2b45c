// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "calls/calltree.h"
#include "jobs/jobtracker.h"
#include "state/tracesession.h"

#include <QWidget>

#include <memory>
#include <string>
#include <vector>

class QComboBox;
class QLabel;
class QLineEdit;
class QTabWidget;
class QTimer;
class QTreeView;
class QTreeWidget;
class QCheckBox;

namespace ringside {

class CallTreeModel;
class FlameGraphWidget;
class ViewState;
struct FunctionCallGraph;

// The function_graph call trees of a selection, like hotspot's: Top-Down, Bottom-Up,
// Caller/Callee and a Flame Graph. The selection is the whole trace, the selected event's
// task, its process or its CPU, the calls between markers A and B, or those in the visible
// range; the trees are built on a worker thread (JobTracker) whenever it changes. From a node:
// its function's callers and callees, its next or previous call on the timeline, or the table
// filtered to its calls. Selecting a system call's exit event shows, in the System call tab,
// the kernel calls it made beside those of another call of it that succeeded, what only one
// of them called shaded; a failed one brings the tab to the front.
class CallTreePane : public QWidget {
    Q_OBJECT
public:
    enum Scope { WholeTrace, SelectedTask, SelectedProcess, SelectedCpu, BetweenMarkers, VisibleRange };
    enum Tab { TopDownTab, BottomUpTab, CallerCalleeTab, FlameGraphTab, StatisticsTab, SyscallTab };

    CallTreePane(ViewState* view, QWidget* parent = nullptr);

    void setSession(std::shared_ptr<TraceSession> session);
    void setScope(Scope scope);
    // Expands the current tree view along the child with the most time at each level.
    void expandHottestPath();
    // Shows the callers and callees of `function` (an id of the trace's call slices).
    void showCallerCallee(uint32_t function);
    // For a function tracer recording: the callers and callees of the function named so.
    void showTracerLinks(const QString& function);
    // Selects the entry of the next (or previous) call of `function` after (before) the
    // selected event; false if there is none.
    bool jumpToCall(uint32_t function, bool forward);
    // The slowest call of `function` in the trees' scope, shown on the timeline (a double-click
    // or Enter on a tree or statistics row); false when it has none there.
    bool goToSlowestCall(uint32_t function);

    // Trees are being built, or will be once the view stops moving.
    bool building() const;
    const CallTree* topDownTree() const { return m_topDown.get(); }
    const std::vector<std::string>& functionNames() const { return *m_names; }
    QTabWidget* tabs() const { return m_tabs; }
    QTreeView* topDownView() const { return m_topDownView; }
    QTreeView* bottomUpView() const { return m_bottomUpView; }
    QTreeWidget* callers() const { return m_callers; }
    QTreeWidget* callees() const { return m_callees; }
    FlameGraphWidget* flameGraph() const { return m_flame; }
    QComboBox* scopeBox() const { return m_scope; }
    QLabel* summary() const { return m_summary; }
    QLabel* syscallTitle() const { return m_syscallTitle; }
    QTreeWidget* statistics() const { return m_statistics; }
    // The statistics table as tab-separated text, a header line first.
    QString statisticsText() const;
    QTreeView* selectedSyscallView() const { return m_syscallView; }
    QTreeView* otherSyscallView() const { return m_otherView; }
    bool comparingSyscalls() const { return m_syscallJobs.isRunning(); }

signals:
    // The trees of the current selection are shown.
    void treesReady();
    // The user asked for the table filtered to these calls: a filter expression.
    void filterRequested(const QString& expression);
    // The System call tab shows the selected system call (and maybe another to compare).
    void syscallShown();

private:
    // The view's selected event, if it is in this pane's recording.
    std::optional<EventRef> selectedEvent() const;
    void scheduleRebuild();
    void rebuild();
    CallSelection selection(QString* description) const;
    uint32_t currentFunction() const;
    void showContextMenu(QTreeView* view, const QPoint& at);
    // Selects a call and brings its whole span into view (the markers stay the user's).
    bool showCall(size_t call);
    void searchNext();
    void showSelectedSyscall();

    ViewState* m_view;
    std::shared_ptr<TraceSession> m_session;
    std::shared_ptr<const std::vector<std::string>> m_names;
    std::shared_ptr<const CallTree> m_topDown, m_bottomUp;
    std::shared_ptr<const FunctionStats> m_stats;
    JobTracker m_jobs;
    QTimer* m_debounce = nullptr;
    QComboBox* m_scope = nullptr;
    QLineEdit* m_search = nullptr;
    QLabel* m_summary = nullptr;
    QTabWidget* m_tabs = nullptr;
    CallTreeModel* m_topDownModel = nullptr;
    CallTreeModel* m_bottomUpModel = nullptr;
    QTreeView* m_topDownView = nullptr;
    QTreeView* m_bottomUpView = nullptr;
    QLabel* m_callerCalleeTitle = nullptr;
    QTreeWidget* m_callers = nullptr;
    QTreeWidget* m_callees = nullptr;
    FlameGraphWidget* m_flame = nullptr;
    QCheckBox* m_flameOrientation = nullptr;
    uint32_t m_callerCalleeFunction = CallTree::kNoFunction;
    JobTracker m_syscallJobs;
    QTreeWidget* m_statistics = nullptr;
    QComboBox* m_statisticsCpu = nullptr;
    void fillStatistics();
    void fillTracerStatistics();
    std::shared_ptr<const FunctionCallGraph> m_functionGraph; // the function tracer's, when it is what there is
    QLabel* m_syscallTitle = nullptr;
    QLabel* m_otherTitle = nullptr;
    CallTreeModel* m_syscallModel = nullptr;
    CallTreeModel* m_otherModel = nullptr;
    QTreeView* m_syscallView = nullptr;
    QTreeView* m_otherView = nullptr;
};

} // namespace ringside
