// SPDX-License-Identifier: GPL-2.0-or-later
#include "capture/capturedialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMap>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QSpinBox>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace ringside {

namespace {

enum Column { Name, Filter };

} // namespace

CaptureDialog::CaptureDialog(const QString& offer, QWidget* parent) : QDialog(parent)
{
    setWindowTitle(tr("New Capture"));
    setObjectName("captureDialog");
    resize(640, 720);
    QStringList tracers, clocks;
    QMap<QString, QStringList> events; // system -> names
    for (const QString& line : offer.split('\n', Qt::SkipEmptyParts)) {
        const QString kind = line.section(' ', 0, 0), value = line.section(' ', 1);
        if (kind == "tracer")
            tracers << value;
        else if (kind == "clock")
            clocks << value;
        else if (kind == "event")
            events[value.section(':', 0, 0)] << value.section(':', 1);
    }

    auto* layout = new QVBoxLayout(this);
    auto* form = new QFormLayout;
    m_tracer = new QComboBox(this);
    m_tracer->setObjectName("tracerBox");
    m_tracer->addItem(tr("none (events only)"), QString());
    for (const QString& t : tracers)
        if (t != "nop") m_tracer->addItem(t, t);
    form->addRow(tr("Tracer:"), m_tracer);
    layout->addLayout(form);

    m_search = new QLineEdit(this);
    m_search->setObjectName("eventSearch");
    m_search->setPlaceholderText(tr("Search events (e.g. sched_switch, syscalls)"));
    m_search->setClearButtonEnabled(true);
    layout->addWidget(m_search);
    m_events = new QTreeWidget(this);
    m_events->setObjectName("eventTree");
    m_events->setHeaderLabels({tr("Event"), tr("Filter (kernel syntax, e.g. prev_pid != 0)")});
    m_events->header()->resizeSection(Name, 300);
    for (auto it = events.begin(); it != events.end(); ++it) {
        auto* system = new QTreeWidgetItem(m_events, {it.key()});
        system->setFlags(system->flags() | Qt::ItemIsAutoTristate | Qt::ItemIsUserCheckable);
        system->setCheckState(Name, Qt::Unchecked);
        QStringList names = it.value();
        names.sort();
        for (const QString& name : names) {
            auto* event = new QTreeWidgetItem(system, {name});
            event->setFlags(event->flags() | Qt::ItemIsUserCheckable | Qt::ItemIsEditable);
            event->setCheckState(Name, Qt::Unchecked);
        }
    }
    // Only the filter column is edited; a double-click on a name checks it instead.
    m_events->setEditTriggers(QAbstractItemView::NoEditTriggers);
    connect(m_events, &QTreeWidget::itemDoubleClicked, this, [this](QTreeWidgetItem* item, int column) {
        if (column == Name && item->parent())
            item->setCheckState(Name, item->checkState(Name) == Qt::Checked ? Qt::Unchecked : Qt::Checked);
        else if (column == Filter && item->parent())
            m_events->editItem(item, Filter);
    });
    layout->addWidget(m_events, 1);
    m_count = new QLabel(this);
    m_count->setObjectName("chosenCount");
    layout->addWidget(m_count);
    connect(m_search, &QLineEdit::textChanged, this, &CaptureDialog::filterTree);
    connect(m_events, &QTreeWidget::itemChanged, this, &CaptureDialog::updateCount);

    auto* more = new QFormLayout;
    m_functions = new QLineEdit(this);
    m_functions->setPlaceholderText(tr("functions to trace (set_ftrace_filter), space-separated"));
    m_functions->setObjectName("functionFilterEdit");
    m_notraceFunctions = new QLineEdit(this);
    m_notraceFunctions->setObjectName("notraceEdit");
    m_notraceFunctions->setPlaceholderText(tr("functions never traced (set_ftrace_notrace)"));
    m_graphFunctions = new QLineEdit(this);
    m_graphFunctions->setObjectName("graphFunctionsEdit");
    m_graphFunctions->setPlaceholderText(tr("graph from these functions (set_graph_function)"));
    m_graphDepth = new QSpinBox(this);
    m_graphDepth->setObjectName("graphDepthBox");
    m_graphDepth->setRange(0, 1000);
    m_graphDepth->setSpecialValueText(tr("no limit"));
    more->addRow(tr("Function filter:"), m_functions);
    more->addRow(tr("Not traced:"), m_notraceFunctions);
    more->addRow(tr("Graph functions:"), m_graphFunctions);
    more->addRow(tr("Graph depth:"), m_graphDepth);
    const bool kernelHasGraph = tracers.contains("function_graph");
    auto updateTracer = [this, kernelHasGraph] {
        const QString tracer = m_tracer->currentData().toString();
        const bool on = !tracer.isEmpty();
        const bool graph = tracer == "function_graph";
        m_functions->setEnabled(on);
        m_notraceFunctions->setEnabled(on);
        m_graphFunctions->setEnabled(graph);
        m_graphDepth->setEnabled(graph);
        const QString why = !kernelHasGraph ? tr("This kernel offers no function_graph tracer")
                            : graph         ? QString()
                                            : tr("For the function_graph tracer");
        m_graphFunctions->setToolTip(why);
        m_graphDepth->setToolTip(why);
        m_functions->setToolTip(on ? QString() : tr("For a function tracer: choose one above"));
        m_notraceFunctions->setToolTip(m_functions->toolTip());
    };
    connect(m_tracer, &QComboBox::currentIndexChanged, this, updateTracer);
    updateTracer();
    auto* pidRow = new QHBoxLayout;
    m_pids = new QLineEdit(this);
    m_pids->setObjectName("pidsEdit");
    m_pids->setPlaceholderText(tr("all tasks"));
    m_pids->setToolTip(tr("Pids whose events are recorded (set_event_pid), and whose functions a tracer traces "
                          "(set_ftrace_pid)"));
    m_children = new QCheckBox(tr("and their children"), this);
    m_children->setObjectName("childrenBox");
    pidRow->addWidget(m_pids, 1);
    pidRow->addWidget(m_children);
    more->addRow(tr("Only pids:"), pidRow);
    m_bufferKb = new QSpinBox(this);
    m_bufferKb->setObjectName("bufferKbBox");
    m_bufferKb->setRange(0, 1 << 20);
    m_bufferKb->setSingleStep(1024);
    m_bufferKb->setSpecialValueText(tr("the kernel's default"));
    m_bufferKb->setSuffix(tr(" KB per CPU"));
    m_bufferKb->setValue(4096);
    more->addRow(tr("Buffer:"), m_bufferKb);
    m_clock = new QComboBox(this);
    m_clock->addItem(tr("the kernel's default"), QString());
    for (const QString& c : clocks) m_clock->addItem(c, c);
    more->addRow(tr("Clock:"), m_clock);
    m_command = new QLineEdit(this);
    m_command->setObjectName("commandEdit");
    m_command->setPlaceholderText(tr("optional: a command run while recording (the capture stops when it exits)"));
    more->addRow(tr("Run:"), m_command);
    layout->addLayout(more);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Start"));
    buttons->button(QDialogButtonBox::Ok)->setObjectName("startButton");
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);

    // The last choice, or the events most questions start from.
    const QStringList remembered = QSettings().value("capture/events").toStringList();
    choose(remembered.isEmpty()
               ? QStringList{"sched:sched_switch", "sched:sched_wakeup", "sched:sched_waking", "raw_syscalls"}
               : remembered);
    connect(this, &QDialog::accepted, this, [this] {
        QStringList chosen;
        for (int i = 0; i < m_events->topLevelItemCount(); ++i) {
            QTreeWidgetItem* system = m_events->topLevelItem(i);
            if (system->checkState(Name) == Qt::Checked) {
                chosen << system->text(Name);
                continue;
            }
            for (int k = 0; k < system->childCount(); ++k)
                if (system->child(k)->checkState(Name) == Qt::Checked)
                    chosen << system->text(Name) + ":" + system->child(k)->text(Name);
        }
        QSettings().setValue("capture/events", chosen);
    });
    updateCount();
}

void CaptureDialog::choose(const QStringList& events)
{
    for (int i = 0; i < m_events->topLevelItemCount(); ++i) {
        QTreeWidgetItem* system = m_events->topLevelItem(i);
        for (int k = 0; k < system->childCount(); ++k) {
            QTreeWidgetItem* event = system->child(k);
            const bool on =
                events.contains(system->text(Name)) || events.contains(system->text(Name) + ":" + event->text(Name));
            event->setCheckState(Name, on ? Qt::Checked : Qt::Unchecked);
        }
    }
    updateCount();
}

int CaptureDialog::chosenCount() const
{
    int n = 0;
    for (int i = 0; i < m_events->topLevelItemCount(); ++i)
        for (int k = 0; k < m_events->topLevelItem(i)->childCount(); ++k)
            n += m_events->topLevelItem(i)->child(k)->checkState(Name) == Qt::Checked;
    return n;
}

void CaptureDialog::updateCount()
{
    int total = 0;
    for (int i = 0; i < m_events->topLevelItemCount(); ++i) total += m_events->topLevelItem(i)->childCount();
    m_count->setText(tr("%1 of %2 events chosen").arg(chosenCount()).arg(total));
}

void CaptureDialog::filterTree(const QString& text)
{
    for (int i = 0; i < m_events->topLevelItemCount(); ++i) {
        QTreeWidgetItem* system = m_events->topLevelItem(i);
        const bool systemMatches = system->text(Name).contains(text, Qt::CaseInsensitive);
        int shown = 0;
        for (int k = 0; k < system->childCount(); ++k) {
            QTreeWidgetItem* event = system->child(k);
            const bool match = text.isEmpty() || systemMatches || event->text(Name).contains(text, Qt::CaseInsensitive);
            event->setHidden(!match);
            shown += match;
        }
        system->setHidden(shown == 0);
        system->setExpanded(!text.isEmpty() && shown > 0 && shown <= 50);
    }
}

std::vector<std::string> CaptureDialog::helperArguments() const
{
    std::vector<std::string> args;
    for (int i = 0; i < m_events->topLevelItemCount(); ++i) {
        QTreeWidgetItem* system = m_events->topLevelItem(i);
        const bool whole = system->checkState(Name) == Qt::Checked;
        bool anyFilter = false;
        for (int k = 0; k < system->childCount(); ++k) anyFilter |= !system->child(k)->text(Filter).trimmed().isEmpty();
        if (whole && !anyFilter) {
            args.insert(args.end(), {"-e", system->text(Name).toStdString()});
            continue;
        }
        for (int k = 0; k < system->childCount(); ++k) {
            QTreeWidgetItem* event = system->child(k);
            if (event->checkState(Name) != Qt::Checked) continue;
            args.insert(args.end(), {"-e", (system->text(Name) + ":" + event->text(Name)).toStdString()});
            const QString filter = event->text(Filter).trimmed();
            if (!filter.isEmpty()) args.insert(args.end(), {"-f", filter.toStdString()});
        }
    }
    if (const QString tracer = m_tracer->currentData().toString(); !tracer.isEmpty()) {
        args.insert(args.end(), {"-p", tracer.toStdString()});
        for (const QString& f : m_functions->text().split(' ', Qt::SkipEmptyParts))
            args.insert(args.end(), {"-l", f.toStdString()});
        for (const QString& f : m_notraceFunctions->text().split(' ', Qt::SkipEmptyParts))
            args.insert(args.end(), {"-n", f.toStdString()});
        if (tracer == "function_graph") {
            for (const QString& f : m_graphFunctions->text().split(' ', Qt::SkipEmptyParts))
                args.insert(args.end(), {"-g", f.toStdString()});
            if (m_graphDepth->value() > 0)
                args.insert(args.end(), {"--max-graph-depth", std::to_string(m_graphDepth->value())});
        }
    }
    for (const QString& pid : m_pids->text().split(QRegularExpression("[ ,]+"), Qt::SkipEmptyParts))
        args.insert(args.end(), {"-P", pid.toStdString()});
    if (m_children->isChecked() && !m_pids->text().trimmed().isEmpty()) args.push_back("--fork");
    if (m_bufferKb->value() > 0) args.insert(args.end(), {"-b", std::to_string(m_bufferKb->value())});
    if (const QString clock = m_clock->currentData().toString(); !clock.isEmpty())
        args.insert(args.end(), {"-C", clock.toStdString()});
    return args;
}

QString CaptureDialog::command() const
{
    return m_command->text().trimmed();
}

} // namespace ringside
