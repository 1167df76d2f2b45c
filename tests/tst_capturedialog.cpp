// SPDX-License-Identifier: GPL-2.0-or-later
// The capture settings as a user fills them in: what the kernel offers (its --list) makes the
// choices, and what is chosen becomes ringside-capture's arguments; function settings are
// open only for a tracer that uses them. And the filter lists of a store that grows as a
// capture's does. No tracefs needed.
#include "capture/capturedialog.h"
#include "filters/filterpanel.h"
#include "testsupport.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QStandardPaths>
#include <QSignalSpy>
#include <QTest>
#include <QTreeWidget>

#include <map>

using namespace ringside;

namespace {

const QString kOffer = "tracer function_graph\ntracer function\ntracer nop\n"
                       "clock local\nclock global\nclock mono\n"
                       "event sched:sched_switch\nevent sched:sched_wakeup\nevent sched:sched_waking\n"
                       "event raw_syscalls:sys_enter\nevent raw_syscalls:sys_exit\nevent irq:irq_handler_entry\n";

QString joined(const std::vector<std::string>& args)
{
    QStringList out;
    for (const std::string& a : args) out << QString::fromStdString(a);
    return out.join(' ');
}

template <typename T>
T* child(QWidget& dialog, const char* name)
{
    T* widget = dialog.findChild<T*>(name);
    if (!widget) qFatal("no %s in the dialog", name);
    return widget;
}

void chooseTracer(CaptureDialog& dialog, const QString& tracer)
{
    auto* box = child<QComboBox>(dialog, "tracerBox");
    box->setCurrentIndex(box->findData(tracer));
}

} // namespace

class TestCaptureDialog : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName("RingsideTests");
    }

    void eventsAndCounts()
    {
        CaptureDialog dialog(kOffer);
        dialog.choose({"sched:sched_switch", "raw_syscalls"});
        QCOMPARE(dialog.chosenCount(), 3);
        QCOMPARE(child<QLabel>(dialog, "chosenCount")->text(), QString("3 of 6 events chosen"));
        // nop is "none"; the tracers the kernel offers are listed.
        auto* tracers = child<QComboBox>(dialog, "tracerBox");
        QCOMPARE(tracers->count(), 3);
        QCOMPARE(tracers->findData("nop"), -1);
        // A whole system is one argument; an event with a filter is named with it.
        QTreeWidget* tree = dialog.eventTree();
        QTreeWidgetItem* sched = tree->findItems("sched", Qt::MatchExactly).value(0);
        QVERIFY(sched);
        sched->child(0)->setText(1, "prev_pid != 0");
        child<QSpinBox>(dialog, "bufferKbBox")->setValue(8192);
        QCOMPARE(joined(dialog.helperArguments()),
                 QString("-e raw_syscalls -e sched:sched_switch -f prev_pid != 0 -b 8192"));
    }

    void searchNarrowsTheTree()
    {
        CaptureDialog dialog(kOffer);
        child<QLineEdit>(dialog, "eventSearch")->setText("wak");
        QTreeWidget* tree = dialog.eventTree();
        QTreeWidgetItem* sched = tree->findItems("sched", Qt::MatchExactly).value(0);
        QTreeWidgetItem* irq = tree->findItems("irq", Qt::MatchExactly).value(0);
        QVERIFY(!sched->isHidden() && irq->isHidden());
        QVERIFY(sched->child(0)->isHidden());                             // sched_switch
        QVERIFY(!sched->child(1)->isHidden() && !sched->child(2)->isHidden()); // sched_wakeup, sched_waking
    }

    void functionSettingsFollowTheTracer()
    {
        CaptureDialog dialog(kOffer);
        dialog.choose({"sched:sched_switch"});
        child<QSpinBox>(dialog, "bufferKbBox")->setValue(0);
        auto* functions = child<QLineEdit>(dialog, "functionFilterEdit");
        auto* notrace = child<QLineEdit>(dialog, "notraceEdit");
        auto* graph = child<QLineEdit>(dialog, "graphFunctionsEdit");
        auto* depth = child<QSpinBox>(dialog, "graphDepthBox");
        // Events only: no function setting is open, none is passed.
        QVERIFY(!functions->isEnabled() && !notrace->isEnabled() && !graph->isEnabled() && !depth->isEnabled());
        functions->setText("vfs_read");
        QCOMPARE(joined(dialog.helperArguments()), QString("-e sched:sched_switch"));

        // function: what is traced and not; the graph settings stay closed.
        chooseTracer(dialog, "function");
        QVERIFY(functions->isEnabled() && notrace->isEnabled() && !graph->isEnabled() && !depth->isEnabled());
        notrace->setText("_raw_spin_lock  _raw_spin_unlock");
        graph->setText("do_sys_open");
        depth->setValue(4);
        QCOMPARE(joined(dialog.helperArguments()),
                 QString("-e sched:sched_switch -p function -l vfs_read -n _raw_spin_lock -n _raw_spin_unlock"));

        // function_graph: its roots and depth too; pids with their children.
        chooseTracer(dialog, "function_graph");
        QVERIFY(graph->isEnabled() && depth->isEnabled());
        child<QLineEdit>(dialog, "pidsEdit")->setText("12, 34");
        child<QCheckBox>(dialog, "childrenBox")->setChecked(true);
        QCOMPARE(joined(dialog.helperArguments()),
                 QString("-e sched:sched_switch -p function_graph -l vfs_read -n _raw_spin_lock -n "
                             "_raw_spin_unlock -g do_sys_open --max-graph-depth 4 -P 12 -P 34 --fork"));
    }

    void aKernelWithoutTheGraphTracerSaysSo()
    {
        CaptureDialog dialog("tracer function\ntracer nop\nevent sched:sched_switch\n");
        chooseTracer(dialog, "function");
        auto* depth = child<QSpinBox>(dialog, "graphDepthBox");
        QVERIFY(!depth->isEnabled());
        QCOMPARE(depth->toolTip(), QString("This kernel offers no function_graph tracer"));
    }

    // The lists follow the store as it grows; an event new to a system the user hid stays
    // hidden, in the list and in the filter the view applies.
    void filterListsFollowAGrowingStore()
    {
        auto file = DatFile::open(test::fixturePath("sched-mix.dat"));
        QVERIFY(file);
        EventStore* store = nullptr;
        auto growing = Trace::growing(test::fixturePath("sched-mix.dat"), &store);
        QVERIFY(growing);
        TraceSession session;
        session.trace = std::move(*growing);
        session.formatter = std::make_unique<EventFormatter>(*session.trace);
        FilterPanel panel;
        panel.setSession(&session);
        QCOMPARE(panel.eventTree()->topLevelItemCount(), 0);
        QSignalSpy changed(&panel, &FilterPanel::specChanged);
        // At the first rows, the user hides every system listed then.
        std::map<QTreeWidgetItem*, int> hidden; // system -> its events when hidden
        QVERIFY(test::appendRunByRun(**file, *store, [&](size_t) {
            panel.refreshCounts();
            if (!hidden.empty() || panel.eventTree()->topLevelItemCount() == 0) return;
            for (int i = 0; i < panel.eventTree()->topLevelItemCount(); ++i) {
                QTreeWidgetItem* system = panel.eventTree()->topLevelItem(i);
                system->setCheckState(0, Qt::Unchecked);
                hidden[system] = system->childCount();
            }
            QVERIFY(changed.wait(2000)); // the user's change
            changed.clear();
        }));
        int arrivedHidden = 0;
        const FilterSpec spec = panel.spec();
        for (auto& [system, before] : hidden) {
            QCOMPARE(system->checkState(0), Qt::Unchecked);
            arrivedHidden += system->childCount() - before;
            for (int c = 0; c < system->childCount(); ++c)
                QVERIFY(spec.hiddenTypes.at(size_t(system->child(c)->data(0, Qt::UserRole + 1).toInt())));
        }
        QVERIFY2(arrivedHidden > 0, "events of a hidden system arrive after the first rows");
        // The new ones change what the view hides: the panel says so.
        QVERIFY(!changed.isEmpty() || changed.wait(2000));
        // Counts and tasks are those of the whole file once it has all arrived.
        uint64_t listed = 0;
        for (int i = 0; i < panel.eventTree()->topLevelItemCount(); ++i)
            listed += panel.eventTree()->topLevelItem(i)->data(1, Qt::DisplayRole).toULongLong();
        QCOMPARE(listed, uint64_t(store->eventCount()));
        QCOMPARE(size_t(panel.taskTree()->topLevelItemCount()), store->tasks().snapshot().size());
    }
};

QTEST_MAIN(TestCaptureDialog)
#include "tst_capturedialog.moc"
