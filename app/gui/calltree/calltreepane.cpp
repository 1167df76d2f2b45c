// SPDX-License-Identifier: GPL-2.0-or-later
#include "calltree/calltreepane.h"

#include "table/treetext.h"

#include "calls/callcontext.h"
#include "calls/functioncalls.h"
#include "calltree/calltreemodel.h"
#include "calltree/flamegraph.h"
#include "state/viewstate.h"

#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTabWidget>
#include <QTimer>
#include <QToolButton>
#include <QTreeView>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace ringside {

namespace {

// Names indented by their depth were cut ("__rcu_rea…") beside columns of short numbers: the
// names' column widens to what the expanded branches show, up to 60% of the view.
void widenNames(QTreeView* view)
{
    // The numbers take what they show: columns of 100 pixels pushed Share and Returns out of a
    // 1280-pixel window.
    for (int c = 0; c < view->model()->columnCount(); ++c)
        if (c != CallTreeModel::Function) view->resizeColumnToContents(c);
    const int before = view->columnWidth(CallTreeModel::Function);
    view->resizeColumnToContents(CallTreeModel::Function);
    const int wanted = std::min(view->columnWidth(CallTreeModel::Function) + 8, view->viewport()->width() * 3 / 5);
    view->setColumnWidth(CallTreeModel::Function, std::max(before, wanted));
}

// Moving through a tree with the keys scrolled it sideways to the current cell (a number
// column past the view's edge), cutting the start of every name: it scrolls up and down only.
class UpDownScrollingTreeView : public QTreeView {
public:
    using QTreeView::QTreeView;
    void scrollTo(const QModelIndex& index, ScrollHint hint) override
    {
        const int across = horizontalScrollBar()->value();
        QTreeView::scrollTo(index, hint);
        horizontalScrollBar()->setValue(across);
    }
};

QTreeView* makeTreeView(CallTreeModel* model, QWidget* parent)
{
    auto* view = new UpDownScrollingTreeView(parent);
    view->setModel(model);
    view->setUniformRowHeights(true);
    view->setSortingEnabled(true);
    view->sortByColumn(CallTreeModel::Total, Qt::DescendingOrder);
    view->setContextMenuPolicy(Qt::CustomContextMenu);
    view->header()->resizeSection(CallTreeModel::Function, 320);
    view->header()->setStretchLastSection(true);
    QObject::connect(view, &QTreeView::expanded, view, [view] { widenNames(view); });
    // A new tree is measured once the view has its rows.
    QObject::connect(model, &QAbstractItemModel::modelReset, view,
                     [view] { QTimer::singleShot(0, view, [view] { widenNames(view); }); });
    return view;
}

// A statistics row: numbers sort as numbers (their text is formatted; the key is the value
// under Qt::UserRole), names and return values as text.
struct StatisticsItem : QTreeWidgetItem {
    bool operator<(const QTreeWidgetItem& other) const override
    {
        const int c = treeWidget()->sortColumn();
        if (c == 0 || c == 8) return text(c) < other.text(c);
        return data(c, Qt::UserRole).toDouble() < other.data(c, Qt::UserRole).toDouble();
    }
};

QTreeWidget* makeCostList(const QString& first, QWidget* parent)
{
    auto* list = new QTreeWidget(parent);
    list->setRootIsDecorated(false);
    list->setHeaderLabels(
        {first, QObject::tr("Calls"), QObject::tr("Total"), QObject::tr("Self"), QObject::tr("Returns")});
    list->header()->resizeSection(0, 300);
    list->setSortingEnabled(false);
    return list;
}

} // namespace

CallTreePane::CallTreePane(ViewState* view, QWidget* parent)
    : QWidget(parent), m_view(view), m_names(std::make_shared<std::vector<std::string>>())
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* bar = new QHBoxLayout;
    m_scope = new QComboBox(this);
    m_scope->setObjectName("callTreeScope");
    m_scope->addItems({tr("Whole trace"), tr("Selected task"), tr("Selected task's process"), tr("Selected CPU"),
                       tr("Between markers A and B"), tr("Visible range")});
    m_search = new QLineEdit(this);
    m_search->setObjectName("callTreeSearch");
    m_search->setPlaceholderText(tr("Find a function (Enter: next)"));
    m_search->setClearButtonEnabled(true);
    auto* hottest = new QToolButton(this);
    hottest->setObjectName("hottestPathButton");
    hottest->setText(tr("Hottest path"));
    hottest->setToolTip(tr("Expand the child with the most time at each level"));
    m_summary = new QLabel(this);
    m_summary->setObjectName("callTreeSummary");
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    bar->addWidget(new QLabel(tr("Calls of"), this));
    bar->addWidget(m_scope);
    bar->addWidget(m_search, 1);
    bar->addWidget(hottest);
    layout->addLayout(bar);
    layout->addWidget(m_summary);

    m_tabs = new QTabWidget(this);
    m_topDownModel = new CallTreeModel(this);
    m_bottomUpModel = new CallTreeModel(this);
    m_topDownView = makeTreeView(m_topDownModel, this);
    m_topDownView->setObjectName("topDownView");
    m_bottomUpView = makeTreeView(m_bottomUpModel, this);
    m_bottomUpView->setObjectName("bottomUpView");
    // A double-click or Enter goes to the row's function on the timeline; its arrow (or Left
    // and Right) folds it.
    for (QTreeView* view : {m_topDownView, m_bottomUpView}) {
        view->setExpandsOnDoubleClick(false);
        view->setToolTip(tr("Double-click or Enter: the function's slowest call on the timeline"));
        connect(view, &QTreeView::activated, this, [this, view](const QModelIndex& index) {
            auto* model = static_cast<CallTreeModel*>(view->model());
            if (!index.isValid() || !model->tree()) return;
            const uint32_t function = model->tree()->node(model->nodeOf(index)).function;
            if (function != CallTree::kNoFunction) goToSlowestCall(function);
        });
    }
    m_tabs->addTab(m_topDownView, tr("Top-Down"));
    m_tabs->addTab(m_bottomUpView, tr("Bottom-Up"));

    auto* callerCallee = new QWidget(this);
    auto* ccLayout = new QVBoxLayout(callerCallee);
    ccLayout->setContentsMargins(0, 0, 0, 0);
    m_callerCalleeTitle = new QLabel(tr("Choose a function in a tree (context menu: Callers and callees)"), this);
    m_callerCalleeTitle->setWordWrap(true);
    auto* split = new QSplitter(Qt::Vertical, callerCallee);
    m_callers = makeCostList(tr("Caller"), split);
    m_callers->setObjectName("callersList");
    m_callees = makeCostList(tr("Callee"), split);
    m_callees->setObjectName("calleesList");
    split->addWidget(m_callers);
    split->addWidget(m_callees);
    ccLayout->addWidget(m_callerCalleeTitle);
    ccLayout->addWidget(split, 1);
    m_tabs->addTab(callerCallee, tr("Caller/Callee"));

    auto* flamePage = new QWidget(this);
    auto* flameLayout = new QVBoxLayout(flamePage);
    flameLayout->setContentsMargins(0, 0, 0, 0);
    m_flameOrientation = new QCheckBox(tr("Flame (outermost calls at the bottom)"), flamePage);
    auto* flameHint = new QLabel(tr("Double-click: zoom into a call · Backspace: zoom out"), flamePage);
    auto* flameBar = new QHBoxLayout;
    flameBar->addWidget(m_flameOrientation);
    flameBar->addStretch(1);
    flameBar->addWidget(flameHint);
    m_flame = new FlameGraphWidget(flamePage);
    m_flame->setObjectName("flameGraph");
    auto* scroll = new QScrollArea(flamePage);
    scroll->setWidgetResizable(true);
    scroll->setWidget(m_flame);
    flameLayout->addLayout(flameBar);
    flameLayout->addWidget(scroll, 1);
    m_tabs->addTab(flamePage, tr("Flame Graph"));

    auto* statsPage = new QWidget(this);
    auto* statsLayout = new QVBoxLayout(statsPage);
    statsLayout->setContentsMargins(0, 0, 0, 0);
    auto* statsBar = new QHBoxLayout;
    m_statisticsCpu = new QComboBox(statsPage);
    m_statisticsCpu->setObjectName("statisticsCpu");
    auto* copyStats = new QToolButton(statsPage);
    copyStats->setText(tr("Copy"));
    copyStats->setToolTip(tr("Copy the table as tab-separated text"));
    statsBar->addWidget(new QLabel(tr("Per function, like the kernel's function_profile, on"), statsPage));
    statsBar->addWidget(m_statisticsCpu);
    statsBar->addStretch(1);
    statsBar->addWidget(copyStats);
    m_statistics = new QTreeWidget(statsPage);
    m_statistics->setObjectName("functionStatistics");
    m_statistics->setRootIsDecorated(false);
    m_statistics->setUniformRowHeights(true);
    m_statistics->setHeaderLabels({tr("Function"), tr("Hits"), tr("Total"), tr("Self"), tr("Average"), tr("Std. dev."),
                                   tr("Min"), tr("Max"), tr("Returns")});
    m_statistics->header()->resizeSection(0, 300);
    m_statistics->setSortingEnabled(true);
    connect(m_statistics, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) {
        const QVariant function = item->data(0, Qt::UserRole);
        if (!m_functionGraph && function.isValid()) goToSlowestCall(function.toUInt());
    });
    statsLayout->addLayout(statsBar);
    statsLayout->addWidget(m_statistics, 1);
    m_tabs->addTab(statsPage, tr("Statistics"));
    connect(m_statisticsCpu, &QComboBox::currentIndexChanged, this, &CallTreePane::fillStatistics);
    connect(copyStats, &QToolButton::clicked, this,
            [this] { QGuiApplication::clipboard()->setText(statisticsText()); });

    auto* syscallPage = new QWidget(this);
    auto* syscallLayout = new QVBoxLayout(syscallPage);
    syscallLayout->setContentsMargins(0, 0, 0, 0);
    m_syscallTitle =
        new QLabel(tr("Select a system call's exit event (sys_exit...) to see the kernel calls it made."), syscallPage);
    m_syscallTitle->setObjectName("syscallTitle");
    m_syscallTitle->setWordWrap(true);
    m_syscallTitle->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* sides = new QSplitter(Qt::Horizontal, syscallPage);
    auto side = [&](QLabel*& title, CallTreeModel*& model, QTreeView*& view, const char* name) {
        auto* box = new QWidget(sides);
        auto* boxLayout = new QVBoxLayout(box);
        boxLayout->setContentsMargins(0, 0, 0, 0);
        title = new QLabel(box);
        title->setWordWrap(true);
        model = new CallTreeModel(this);
        view = makeTreeView(model, box);
        view->setObjectName(name);
        view->header()->resizeSection(CallTreeModel::Function, 260);
        boxLayout->addWidget(title);
        boxLayout->addWidget(view, 1);
        sides->addWidget(box);
    };
    QLabel* selectedTitle = nullptr;
    side(selectedTitle, m_syscallModel, m_syscallView, "selectedSyscallView");
    side(m_otherTitle, m_otherModel, m_otherView, "otherSyscallView");
    selectedTitle->setText(tr("<b>The selected call</b> (shaded: not called in the other)"));
    syscallLayout->addWidget(m_syscallTitle);
    syscallLayout->addWidget(sides, 1);
    m_tabs->addTab(syscallPage, tr("System call"));
    layout->addWidget(m_tabs, 1);

    m_debounce = new QTimer(this);
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(150);
    connect(m_debounce, &QTimer::timeout, this, &CallTreePane::rebuild);
    connect(m_scope, &QComboBox::currentIndexChanged, this, &CallTreePane::rebuild);
    connect(m_view, &ViewState::selectionChanged, this, [this] {
        showSelectedSyscall();
        const int s = m_scope->currentIndex();
        if (s == SelectedTask || s == SelectedProcess || s == SelectedCpu) scheduleRebuild();
    });
    connect(m_view, &ViewState::markersChanged, this, [this] {
        if (m_scope->currentIndex() == BetweenMarkers) scheduleRebuild();
    });
    connect(m_view, &ViewState::visibleRangeChanged, this, [this] {
        if (m_scope->currentIndex() == VisibleRange) scheduleRebuild();
    });
    connect(hottest, &QToolButton::clicked, this, &CallTreePane::expandHottestPath);
    connect(m_search, &QLineEdit::returnPressed, this, &CallTreePane::searchNext);
    connect(m_flameOrientation, &QCheckBox::toggled, m_flame, &FlameGraphWidget::setFlame);
    for (QTreeView* v : {m_topDownView, m_bottomUpView})
        connect(v, &QTreeView::customContextMenuRequested, this,
                [this, v](const QPoint& at) { showContextMenu(v, at); });
    for (QTreeWidget* list : {m_callers, m_callees})
        connect(list, &QTreeWidget::itemDoubleClicked, this, [this](QTreeWidgetItem* item) {
            if (m_functionGraph) {
                showTracerLinks(item->text(0));
                return;
            }
            const uint32_t f = item->data(0, Qt::UserRole).toUInt();
            if (f != CallTree::kNoFunction) showCallerCallee(f);
        });
    // A function's row in the statistics opens its callers and callees.
    connect(m_statistics, &QTreeWidget::itemDoubleClicked, this, [this](QTreeWidgetItem* item) {
        if (m_functionGraph)
            showTracerLinks(item->text(0));
        else
            showCallerCallee(item->data(0, Qt::UserRole).toUInt());
        m_tabs->setCurrentIndex(CallerCalleeTab);
    });
}

void CallTreePane::setSession(std::shared_ptr<TraceSession> session)
{
    m_jobs.cancel();
    m_session = std::move(session);
    m_names =
        m_session && m_session->trace ? m_session->callNames() : std::make_shared<const std::vector<std::string>>();
    m_callerCalleeFunction = CallTree::kNoFunction;
    rebuild();
}

bool CallTreePane::building() const
{
    return m_jobs.isRunning() || m_debounce->isActive();
}

void CallTreePane::setScope(Scope scope)
{
    if (m_scope->currentIndex() == int(scope))
        rebuild();
    else
        m_scope->setCurrentIndex(int(scope));
}

void CallTreePane::scheduleRebuild()
{
    m_debounce->start();
}

std::optional<EventRef> CallTreePane::selectedEvent() const
{
    // The view may select in a store that grows past the one analysed (a live capture's
    // events so far): an event beyond it is none here.
    const std::optional<EventRef> selected = m_view->selection();
    if (!selected || !m_session || !m_session->trace) return std::nullopt;
    const EventStore& store = m_session->store();
    if (selected->stream.value >= store.streamCount() ||
        selected->index >= store.stream(selected->stream).columns.size())
        return std::nullopt;
    return selected;
}

CallSelection CallTreePane::selection(QString* description) const
{
    CallSelection selection;
    const EventStore& store = m_session->store();
    const std::optional<EventRef> selected = selectedEvent();
    switch (Scope(m_scope->currentIndex())) {
    case WholeTrace: *description = tr("the whole trace"); break;
    case SelectedTask:
    case SelectedProcess:
        if (!selected) {
            *description = tr("(select an event to choose its task)");
            selection.to = 0;
            break;
        }
        {
            const int32_t pid = store.stream(selected->stream).columns.pid[selected->index];
            const QString name = QString::fromStdString(m_session->taskName(pid));
            if (m_scope->currentIndex() == SelectedTask) {
                selection.pids = {pid};
                *description = tr("task %1 (%2)").arg(name).arg(pid);
            } else {
                selection.pids = m_session->trace->processes().members(pid);
                *description =
                    tr("the process of %1 (%2), %n task(s)", nullptr, int(selection.pids.size())).arg(name).arg(pid);
            }
        }
        break;
    case SelectedCpu:
        if (!selected) {
            *description = tr("(select an event to choose its CPU)");
            selection.to = 0;
            break;
        }
        selection.cpu = store.stream(selected->stream).cpu;
        *description = tr("CPU %1").arg(selection.cpu);
        break;
    case BetweenMarkers:
        if (!m_view->markerA() || !m_view->markerB()) {
            *description = tr("(set markers A and B: Shift+click and Ctrl+click on the timeline)");
            selection.to = 0;
            break;
        }
        selection.from = std::min(*m_view->markerA(), *m_view->markerB());
        selection.to = std::max(*m_view->markerA(), *m_view->markerB()) + 1;
        *description = tr("the calls between markers A and B");
        break;
    case VisibleRange:
        selection.from = m_view->visibleRange().start;
        selection.to = m_view->visibleRange().end;
        *description = tr("the calls in the visible range");
        break;
    }
    return selection;
}

void CallTreePane::rebuild()
{
    m_debounce->stop();
    auto show = [this](std::shared_ptr<const CallTree> topDown, std::shared_ptr<const CallTree> bottomUp) {
        m_topDown = std::move(topDown);
        m_bottomUp = std::move(bottomUp);
        m_topDownModel->setTree(m_topDown, m_names);
        m_bottomUpModel->setTree(m_bottomUp, m_names);
        m_flame->setTree(m_topDown, m_names);
        if (m_callerCalleeFunction != CallTree::kNoFunction) showCallerCallee(m_callerCalleeFunction);
    };
    m_stats.reset();
    fillStatistics();
    if (!m_session || !m_session->trace) {
        show(nullptr, nullptr);
        m_summary->setText(QString());
        return;
    }
    const CallSlices& calls = m_session->trace->callSlices();
    const bool tracer = !calls.available() && m_session->trace->functionCalls().available();
    for (int tab : {TopDownTab, BottomUpTab, FlameGraphTab, SyscallTab}) m_tabs->setTabEnabled(tab, !tracer);
    m_functionGraph.reset();
    if (!calls.available()) {
        show(nullptr, nullptr);
        if (tracer) {
            // The function tracer: no durations, no nesting; hits per function and who called whom.
            m_functionGraph = std::make_shared<const FunctionCallGraph>(
                FunctionCallGraph::of(m_session->trace->functionCalls(), *m_session->trace));
            const size_t records = m_session->trace->functionCalls().records();
            const size_t functions = m_functionGraph->functions.size();
            m_summary->setText(tr("Function tracer: %1, %2. It records no durations or nesting: "
                                  "hits and callers here; record with -p function_graph for call trees.")
                                   .arg(records == 1 ? tr("1 record") : tr("%1 records").arg(records))
                                   .arg(functions == 1 ? tr("1 function") : tr("%1 functions").arg(functions)));
            m_tabs->setCurrentIndex(StatisticsTab);
            {
                const QSignalBlocker blocker(m_statisticsCpu);
                m_statisticsCpu->clear();
                m_statisticsCpu->addItem(tr("all CPUs"));
            }
            fillStatistics();
        } else {
            m_summary->setText(tr("This recording has no function_graph records (record with "
                                  "trace-cmd record -p function_graph)."));
        }
        emit treesReady();
        return;
    }
    QString description;
    const CallSelection chosen = selection(&description);
    m_summary->setText(tr("Building the call trees of %1…").arg(description));
    std::shared_ptr<TraceSession> session = m_session;
    struct Trees {
        std::shared_ptr<const CallTree> topDown, bottomUp;
        std::shared_ptr<const FunctionStats> stats;
    };
    m_jobs.start(
        [session, chosen](JobTracker::Context& context) -> Trees {
            const CallSlices& calls = session->trace->callSlices();
            auto topDown = std::make_shared<const CallTree>(CallTree::topDown(calls, chosen, context.cancelFlag()));
            auto bottomUp = std::make_shared<const CallTree>(CallTree::bottomUp(*topDown));
            auto stats = std::make_shared<const FunctionStats>(FunctionStats::of(calls, chosen));
            return {topDown, bottomUp, stats};
        },
        [this, show, description](Trees trees) {
            show(trees.topDown, trees.bottomUp);
            m_stats = trees.stats;
            const int cpu = m_statisticsCpu->currentIndex();
            {
                const QSignalBlocker blocker(m_statisticsCpu);
                m_statisticsCpu->clear();
                m_statisticsCpu->addItem(tr("all CPUs"));
                for (size_t c = 0; c < m_stats->cpus.size(); ++c)
                    if (!m_stats->cpus[c].empty()) m_statisticsCpu->addItem(tr("CPU %1").arg(c), int(c));
                m_statisticsCpu->setCurrentIndex(cpu >= 0 && cpu < m_statisticsCpu->count() ? cpu : 0);
            }
            fillStatistics();
            const CallCost& all = m_topDown->root().cost;
            const CallPairing& pairing = m_session->trace->callSlices().pairing();
            QString text = tr("%1: %2 calls, %3 in the outermost")
                               .arg(description)
                               .arg(m_topDown->calls())
                               .arg(formatDuration(all.total));
            if (m_topDown->openCalls()) text += tr(", %1 without exit").arg(m_topDown->openCalls());
            if (all.errors) text += tr(", <span style='color:#c01c28'>%1 returned an error</span>").arg(all.errors);
            if (pairing.exitsWithoutEntry + pairing.entriesWithoutExit + pairing.brokenByLoss)
                text += tr(" · unpaired in the recording: see Trace health");
            m_summary->setText(text);
            emit treesReady();
        },
        [this](const QString& message) {
            m_summary->setText(tr("The call trees could not be built: %1").arg(message));
        });
}

uint32_t CallTreePane::currentFunction() const
{
    const CallTree* tree = nullptr;
    uint32_t node = 0;
    if (m_tabs->currentWidget() == m_topDownView) {
        tree = m_topDown.get();
        node = m_topDownModel->nodeOf(m_topDownView->currentIndex());
    } else if (m_tabs->currentWidget() == m_bottomUpView) {
        tree = m_bottomUp.get();
        node = m_bottomUpModel->nodeOf(m_bottomUpView->currentIndex());
    } else if (m_topDown) {
        tree = m_topDown.get();
        node = m_flame->selected();
    }
    return tree && node ? tree->node(node).function : CallTree::kNoFunction;
}

void CallTreePane::expandHottestPath()
{
    const bool bottomUp = m_tabs->currentWidget() == m_bottomUpView;
    if (!bottomUp) m_tabs->setCurrentWidget(m_topDownView);
    QTreeView* view = bottomUp ? m_bottomUpView : m_topDownView;
    CallTreeModel* model = bottomUp ? m_bottomUpModel : m_topDownModel;
    const CallTree* tree = model->tree();
    if (!tree) return;
    QModelIndex last;
    for (uint32_t n : tree->hottestPath()) {
        last = model->indexOf(n);
        view->expand(last);
    }
    if (last.isValid()) {
        view->setCurrentIndex(last);
        view->scrollTo(last);
    }
}

void CallTreePane::searchNext()
{
    QTreeView* view = m_tabs->currentWidget() == m_bottomUpView ? m_bottomUpView : m_topDownView;
    auto* model = static_cast<CallTreeModel*>(view->model());
    if (m_tabs->currentWidget() != m_bottomUpView) m_tabs->setCurrentWidget(m_topDownView);
    const uint32_t found = model->find(m_search->text(), model->nodeOf(view->currentIndex()));
    if (!found) {
        m_search->setStyleSheet("QLineEdit { background: #f6d5d5; }");
        return;
    }
    m_search->setStyleSheet(QString());
    const QModelIndex index = model->indexOf(found);
    for (QModelIndex p = index.parent(); p.isValid(); p = p.parent()) view->expand(p);
    view->setCurrentIndex(index);
    view->scrollTo(index);
}

void CallTreePane::showCallerCallee(uint32_t function)
{
    m_callerCalleeFunction = function;
    m_callers->clear();
    m_callees->clear();
    if (!m_topDown || function >= m_names->size()) return;
    const CallerCallee cc = CallerCallee::of(*m_topDown, function);
    const QString name = QString::fromStdString((*m_names)[function]);
    m_callerCalleeTitle->setText(
        tr("<b>%1</b>: %2 calls, total %3, self %4%5")
            .arg(name.toHtmlEscaped())
            .arg(cc.cost.calls)
            .arg(formatDuration(cc.cost.total), formatDuration(cc.cost.self))
            .arg(cc.cost.returns.empty() ? QString() : tr(", returned %1").arg(formatReturns(cc.cost))));
    auto fill = [this](QTreeWidget* list, const std::vector<std::pair<uint32_t, CallCost>>& entries) {
        for (const auto& [f, cost] : entries) {
            auto* item = new QTreeWidgetItem(list);
            item->setText(0, f == CallTree::kNoFunction ? tr("[outermost or interrupt entry]")
                                                        : QString::fromStdString((*m_names)[f]));
            item->setText(1, QString::number(cost.calls));
            item->setText(2, formatDuration(cost.total));
            item->setText(3, formatDuration(cost.self));
            item->setText(4, formatReturns(cost));
            item->setData(0, Qt::UserRole, f);
            for (int c = 1; c < 4; ++c) item->setTextAlignment(c, Qt::AlignRight | Qt::AlignVCenter);
            if (cost.errors) item->setForeground(4, QColor(0xc0, 0x1c, 0x28));
        }
    };
    fill(m_callers, cc.callers);
    fill(m_callees, cc.callees);
}

bool CallTreePane::jumpToCall(uint32_t function, bool forward)
{
    if (!m_session || !m_session->trace) return false;
    const CallSlices& calls = m_session->trace->callSlices();
    const EventStore& store = m_session->store();
    QString description;
    CallSelection within = selection(&description);
    within.from = 0;
    within.to = std::numeric_limits<uint64_t>::max();
    const std::optional<EventRef> selected = selectedEvent();
    const uint64_t now = selected ? store.timestamp(*selected) : m_view->visibleRange().start;
    size_t best = calls.size();
    for (size_t i = 0; i < calls.size(); ++i) {
        if (calls.function(i) != function || !within.contains(calls, i)) continue;
        const uint64_t t = calls.start(i);
        if (forward ? t <= now : t >= now) continue;
        if (best == calls.size() || (forward ? t < calls.start(best) : t > calls.start(best))) best = i;
    }
    if (best == calls.size()) return false;
    return showCall(best);
}

bool CallTreePane::goToSlowestCall(uint32_t function)
{
    if (!m_session || !m_session->trace) return false;
    const CallSlices& calls = m_session->trace->callSlices();
    QString description;
    const CallSelection within = selection(&description);
    size_t slowest = calls.size();
    for (size_t i = 0; i < calls.size(); ++i)
        if (calls.function(i) == function && within.contains(calls, i) &&
            (slowest == calls.size() || calls.duration(i) > calls.duration(slowest)))
            slowest = i;
    return slowest != calls.size() && showCall(slowest);
}

bool CallTreePane::showCall(size_t call)
{
    const CallSlices& calls = m_session->trace->callSlices();
    const std::optional<EventRef> target = callRecord(*m_session->trace, calls, call);
    if (!target) return false;
    // The call fills the middle of the view, a quarter of its length beside it each side, unless
    // it is in view already and large enough there to be seen (a tenth of the view).
    const uint64_t start = calls.start(call), end = std::max(calls.end(call), start + 1);
    const ViewState::TimeRange visible = m_view->visibleRange();
    if (!visible.contains(start) || !visible.contains(end) || (end - start) * 10 < visible.span()) {
        const uint64_t pad = std::max<uint64_t>((end - start) / 4, 1000);
        m_view->setVisibleRange({start > pad ? start - pad : 0, end + pad});
    }
    m_view->selectCall(uint32_t(call), target);
    return true;
}

void CallTreePane::fillStatistics()
{
    m_statistics->setSortingEnabled(false);
    m_statistics->clear();
    if (m_functionGraph) {
        fillTracerStatistics();
        return;
    }
    if (!m_stats) return;
    const QVariant cpu = m_statisticsCpu->currentData();
    const std::vector<FunctionStats::Row>& rows = cpu.isValid() ? m_stats->cpus[size_t(cpu.toInt())] : m_stats->overall;
    QList<QTreeWidgetItem*> items;
    for (const FunctionStats::Row& row : rows) {
        const CallCost& c = row.cost;
        auto* item = new StatisticsItem;
        item->setText(0, row.function < m_names->size() ? QString::fromStdString((*m_names)[row.function]) : "?");
        const double values[] = {double(c.calls),     double(c.total), double(c.self),
                                 double(c.average()), row.stddev(),    c.returned() ? double(c.min) : 0.0,
                                 double(c.max)};
        item->setText(1, QString::number(c.calls));
        for (int k = 1; k < 7; ++k) item->setText(k + 1, formatDuration(uint64_t(values[k] + 0.5)));
        for (int k = 0; k < 7; ++k) {
            item->setData(k + 1, Qt::UserRole, values[k]);
            item->setTextAlignment(k + 1, Qt::AlignRight | Qt::AlignVCenter);
        }
        item->setText(8, formatReturns(c));
        item->setData(0, Qt::UserRole, row.function);
        if (c.errors) item->setForeground(8, QColor(0xc0, 0x1c, 0x28));
        items << item;
    }
    m_statistics->addTopLevelItems(items);
    m_statistics->setSortingEnabled(true);
    m_statistics->sortByColumn(2, Qt::DescendingOrder);
}

void CallTreePane::fillTracerStatistics()
{
    QList<QTreeWidgetItem*> items;
    for (const FunctionCallGraph::Function& f : m_functionGraph->functions) {
        if (!f.hits) continue;
        auto* item = new StatisticsItem;
        item->setText(0, QString::fromStdString(f.name));
        item->setText(1, QString::number(f.hits));
        item->setData(1, Qt::UserRole, double(f.hits));
        item->setTextAlignment(1, Qt::AlignRight | Qt::AlignVCenter);
        for (int c = 2; c < 8; ++c) item->setText(c, QStringLiteral("-"));
        QStringList callers;
        for (size_t k = 0; k < f.callers.size() && k < 3; ++k)
            callers << QString("%1 (%2)").arg(QString::fromStdString(f.callers[k].function)).arg(f.callers[k].count);
        item->setText(8, tr("called by %1").arg(callers.join(", ")));
        items << item;
    }
    m_statistics->addTopLevelItems(items);
    m_statistics->setSortingEnabled(true);
    m_statistics->sortByColumn(1, Qt::DescendingOrder);
}

void CallTreePane::showTracerLinks(const QString& function)
{
    m_callers->clear();
    m_callees->clear();
    const FunctionCallGraph::Function* f = m_functionGraph ? m_functionGraph->find(function.toStdString()) : nullptr;
    if (!f) return;
    m_callerCalleeTitle->setText(tr("<b>%1</b>: %2 hits (the function tracer counts calls, no times)")
                                     .arg(function.toHtmlEscaped())
                                     .arg(f->hits));
    auto fill = [](QTreeWidget* list, const std::vector<FunctionCallGraph::Link>& links) {
        for (const FunctionCallGraph::Link& link : links) {
            auto* item = new QTreeWidgetItem(list);
            item->setText(0, QString::fromStdString(link.function));
            item->setText(1, QString::number(link.count));
            item->setTextAlignment(1, Qt::AlignRight | Qt::AlignVCenter);
            item->setData(0, Qt::UserRole + 1, QString::fromStdString(link.function));
        }
    };
    fill(m_callers, f->callers);
    fill(m_callees, f->callees);
}

QString CallTreePane::statisticsText() const
{
    return treeAsTsv(m_statistics);
}

void CallTreePane::showSelectedSyscall()
{
    const std::optional<EventRef> selected = selectedEvent();
    if (!m_session || !m_session->trace || !selected || !m_session->trace->callSlices().available()) return;
    struct Comparison {
        std::optional<SyscallSpan> selected, other;
        std::shared_ptr<const CallTree> selectedTree, otherTree;
        bool noPairing = false; // the syscalls analysis is not there to pair calls
    };
    std::shared_ptr<TraceSession> session = m_session;
    const EventRef event = *selected;
    m_syscallJobs.start(
        [session, event](JobTracker::Context& context) {
            Comparison result;
            result.noPairing = !hasSyscallTable(*session->trace);
            result.selected = syscallEndedBy(*session->trace, event);
            if (result.selected && !context.isCancelled())
                result.other = similarSucceededSyscall(*session->trace, *result.selected);
            auto treeOf = [&](const SyscallSpan& span) {
                CallSelection selection;
                selection.pids = {span.pid};
                selection.from = span.enter;
                selection.to = span.exit + 1;
                return std::make_shared<const CallTree>(
                    CallTree::topDown(session->trace->callSlices(), selection, context.cancelFlag()));
            };
            if (result.selected) result.selectedTree = treeOf(*result.selected);
            if (result.other) result.otherTree = treeOf(*result.other);
            return result;
        },
        [this](Comparison result) {
            if (result.noPairing) {
                m_syscallTitle->setText(tr("System calls are paired by the syscalls plugin, which is off: "
                                           "turn it on in Plugins to compare a system call's kernel calls here."));
                return;
            }
            if (!result.selected) return; // not a system call's end: the tab keeps what it showed
            auto describe = [this](const SyscallSpan& span) {
                const std::string error = errnoName(span.ret);
                return tr("%1 by %2 (%3) returned %4%5, %6 of kernel calls")
                    .arg(QString::fromStdString(span.name), QString::fromStdString(m_session->taskName(span.pid)))
                    .arg(span.pid)
                    .arg(span.ret)
                    .arg(error.empty() ? QString() : " " + QString::fromStdString(error))
                    .arg(formatDuration(span.exit - span.enter));
            };
            const bool failed = result.selected->ret < 0;
            QString title = QString(failed ? "<span style='color:#c01c28'>%1</span>" : "%1")
                                .arg(describe(*result.selected).toHtmlEscaped());
            title += result.other ? tr("<br>beside the %1 at %2 s")
                                        .arg(describe(*result.other).toHtmlEscaped())
                                        .arg(double(result.other->exit) / 1e9, 0, 'f', 6)
                                  : tr("<br>no other call of it that succeeded has kernel calls in the recording");
            m_syscallTitle->setText(title);
            m_otherTitle->setText(result.other ? tr("<b>The other call</b>, which returned %1").arg(result.other->ret)
                                               : QString());
            m_syscallModel->setTree(result.selectedTree, m_names);
            m_otherModel->setTree(result.otherTree, m_names);
            m_syscallModel->compareWith(result.otherTree);
            m_otherModel->compareWith(result.selectedTree);
            for (QTreeView* view : {m_syscallView, m_otherView}) view->expandToDepth(1), widenNames(view);
            if (failed) m_tabs->setCurrentIndex(SyscallTab);
            emit syscallShown();
        });
}

void CallTreePane::showContextMenu(QTreeView* view, const QPoint& at)
{
    const QModelIndex index = view->indexAt(at);
    auto* model = static_cast<CallTreeModel*>(view->model());
    if (!index.isValid() || !model->tree()) return;
    view->setCurrentIndex(index);
    const uint32_t function = model->tree()->node(model->nodeOf(index)).function;
    QMenu menu(this);
    if (function != CallTree::kNoFunction && function < m_names->size()) {
        const QString name = QString::fromStdString((*m_names)[function]);
        const uint64_t address = m_session->trace->callSlices().functionAddress(function);
        menu.addAction(tr("Callers and callees of %1").arg(name), this, [this, function] {
            showCallerCallee(function);
            m_tabs->setCurrentIndex(CallerCalleeTab);
        });
        menu.addAction(tr("Next call on the timeline"), this, [this, function] { jumpToCall(function, true); });
        menu.addAction(tr("Previous call on the timeline"), this, [this, function] { jumpToCall(function, false); });
        menu.addAction(tr("Filter the table to its calls"), this, [this, address] {
            emit filterRequested(
                QString("ftrace/funcgraph_entry,ftrace/funcgraph_exit: func == 0x%1").arg(address, 0, 16));
        });
        menu.addSeparator();
    }
    menu.addAction(tr("Expand the hottest path"), this, &CallTreePane::expandHottestPath);
    menu.exec(view->viewport()->mapToGlobal(at));
}

} // namespace ringside
