// SPDX-License-Identifier: GPL-2.0-or-later
#include "latency/latencypane.h"

#include "latency/latencyresultview.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMainWindow>
#include <QMenu>
#include <QPointer>
#include <QPushButton>
#include <QScopedValueRollback>
#include <QSignalBlocker>
#include <QTabWidget>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <set>
#include <stdexcept>

namespace ringside {

namespace {

// The events the match rate is worked out over while a pair is edited: its pages are read in
// a few tens of milliseconds.
constexpr uint64_t kPreviewRows = 250000;

std::vector<std::string> splitFields(const QString& text)
{
    std::vector<std::string> out;
    for (const QString& part : text.split(',', Qt::SkipEmptyParts))
        if (const QString field = part.trimmed(); !field.isEmpty()) out.push_back(field.toStdString());
    return out;
}

} // namespace

LatencyPane::LatencyPane(ViewState* view, QWidget* parent) : QWidget(parent), m_view(view)
{
    m_presets = new QComboBox(this);
    m_presets->setObjectName("latencyPreset");
    m_presets->addItem(tr("Custom"));
    for (const std::string& name : presetPairNames()) {
        const PairSpec p = *presetPair(name);
        const auto event = [](const std::string& e) { return QString::fromStdString(e.substr(e.find('/') + 1)); };
        m_presets->addItem(QStringLiteral("%1 — %2 → %3, %4")
                               .arg(QString::fromStdString(name), event(p.from), event(p.to),
                                    QString::fromStdString(p.matchDescription())),
                           QString::fromStdString(name));
    }
    m_presets->setToolTip(tr("The common pairs: IRQ handlers, softirqs, block requests, wakeup to run, system "
                             "calls, work items, kmalloc to kfree, time off the CPU, trace_marker's B| and E| "
                             "marks"));
    auto makeEventBox = [this](const char* name) {
        auto* box = new QComboBox(this);
        box->setObjectName(name);
        box->setEditable(true);
        box->setInsertPolicy(QComboBox::NoInsert);
        box->setMinimumContentsLength(24);
        box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        return box;
    };
    m_from = makeEventBox("latencyFrom");
    m_to = makeEventBox("latencyTo");
    m_match = new QLineEdit(this);
    m_match->setObjectName("latencyMatch");
    m_match->setPlaceholderText(tr("fields that pair them: irq, or pid=next_pid"));
    m_match->setToolTip(tr("The fields whose values pair a start with its end, separated by commas: a name both "
                           "events have, or START_FIELD=END_FIELD"));
    m_fields = new QToolButton(this);
    m_fields->setText(tr("Fields"));
    m_fields->setPopupMode(QToolButton::InstantPopup);
    m_fields->setMenu(new QMenu(m_fields));
    m_fields->setToolTip(tr("Adds a field of the start event to the match"));
    m_filterFrom = new QLineEdit(this);
    m_filterFrom->setObjectName("latencyFilterFrom");
    m_filterFrom->setPlaceholderText(tr("every start; or a condition: prio < 100"));
    m_filterTo = new QLineEdit(this);
    m_filterTo->setObjectName("latencyFilterTo");
    m_filterTo->setPlaceholderText(tr("every end; or a condition"));
    for (QLineEdit* edit : {m_filterFrom, m_filterTo})
        edit->setToolTip(tr("Only the records that meet this condition, in trace-cmd report -F's syntax "
                            "(fields of the event, && and ||): the others are not seen"));
    m_sameTask = new QCheckBox(tr("Same task"), this);
    m_sameCpu = new QCheckBox(tr("Same CPU"), this);
    m_nesting = new QCheckBox(tr("Nested"), this);
    m_sameTask->setObjectName("latencySameTask");
    m_sameCpu->setObjectName("latencySameCpu");
    m_nesting->setObjectName("latencyNesting");
    m_nesting->setToolTip(tr("Starts of one key nest: an end closes the innermost (re-entrant pairs). Without it "
                             "a newer start replaces the open one, which counts as unmatched."));
    m_run = new QPushButton(tr("Pair"), this);
    m_run->setObjectName("latencyRun");
    m_run->setDefault(true);
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_status = new QLabel(this);
    m_status->setObjectName("latencyStatus");
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_results = new QTabWidget(this);
    m_results->setObjectName("latencyResults");
    m_results->setTabsClosable(true);
    m_results->setDocumentMode(true);

    // The pair's definition folds away once it is made, so that the timeline keeps the window
    // (at 1280x800 the builder and a result took more than half of it).
    m_builder = new QWidget(this);
    m_builder->setObjectName("latencyBuilder");
    m_builderToggle = new QToolButton(this);
    m_builderToggle->setObjectName("latencyBuilderToggle");
    m_builderToggle->setCheckable(true);
    m_builderToggle->setChecked(true);
    m_builderToggle->setAutoRaise(true);
    m_builderToggle->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_builderToggle->setText(tr("Definition"));
    m_builderToggle->setToolTip(tr("Shows or hides the pair's definition: its events, match and filters"));
    connect(m_builderToggle, &QToolButton::toggled, this, &LatencyPane::setBuilderShown);
    auto* form = new QFormLayout(m_builder);
    form->setContentsMargins(0, 0, 0, 0);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    auto* events = new QHBoxLayout;
    events->addWidget(m_from, 1);
    events->addWidget(new QLabel(tr("to"), this));
    events->addWidget(m_to, 1);
    m_counts = new QLabel(this);
    m_counts->setObjectName("latencyCounts");
    m_counts->setToolTip(tr("How many start and end records the recording holds: at most that many pairs"));
    events->addWidget(m_counts);
    auto* matchRow = new QHBoxLayout;
    matchRow->addWidget(m_match, 1);
    matchRow->addWidget(m_fields);
    matchRow->addWidget(m_sameTask);
    matchRow->addWidget(m_sameCpu);
    matchRow->addWidget(m_nesting);
    matchRow->addWidget(m_run);
    matchRow->addWidget(m_cancel);
    form->addRow(tr("Preset:"), m_presets);
    form->addRow(tr("From:"), events);
    form->addRow(tr("Match:"), matchRow);
    auto* filters = new QHBoxLayout;
    filters->addWidget(m_filterFrom, 1);
    filters->addWidget(new QLabel(tr("and ends where"), this));
    filters->addWidget(m_filterTo, 1);
    form->addRow(tr("Starts where:"), filters);
    m_matchRate = new QLabel(this);
    m_matchRate->setObjectName("latencyMatchRate");
    m_matchRate->setWordWrap(true);
    m_matchRate->setToolTip(tr("The pair as it is now, made over the recording's first %1 events as you edit")
                                .arg(QLocale().toString(qulonglong(kPreviewRows))));
    form->addRow(tr("Matches:"), m_matchRate);
    m_previewTimer = new QTimer(this);
    m_previewTimer->setSingleShot(true);
    m_previewTimer->setInterval(250);
    connect(m_previewTimer, &QTimer::timeout, this, &LatencyPane::preview);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_builder);
    auto* statusRow = new QHBoxLayout;
    statusRow->addWidget(m_builderToggle, 0, Qt::AlignTop);
    statusRow->addWidget(m_status, 1);
    layout->addLayout(statusRow);
    setBuilderShown(true);
    layout->addWidget(m_results, 1);

    connect(m_presets, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (index > 0) choosePreset(m_presets->itemData(index).toString());
    });
    for (QComboBox* box : {m_from, m_to})
        connect(box, &QComboBox::currentTextChanged, this, &LatencyPane::builderEdited);
    connect(m_match, &QLineEdit::textEdited, this, &LatencyPane::builderEdited);
    for (QLineEdit* edit : {m_match, m_filterFrom, m_filterTo})
        connect(edit, &QLineEdit::returnPressed, this, &LatencyPane::run);
    for (QLineEdit* edit : {m_filterFrom, m_filterTo})
        connect(edit, &QLineEdit::textEdited, this, &LatencyPane::schedulePreview);
    for (QCheckBox* box : {m_sameTask, m_sameCpu, m_nesting})
        connect(box, &QCheckBox::toggled, this, &LatencyPane::builderEdited);
    connect(m_fields->menu(), &QMenu::aboutToShow, this, &LatencyPane::fillFieldsMenu);
    connect(m_run, &QPushButton::clicked, this, &LatencyPane::run);
    connect(m_cancel, &QPushButton::clicked, this, &LatencyPane::cancel);
    connect(m_results, &QTabWidget::tabCloseRequested, this, [this](int index) {
        QWidget* page = m_results->widget(index);
        m_results->removeTab(index);
        delete page;
        m_shown.removeAt(index);
        const QScopedValueRollback editing(m_editingView, true);
        m_view->removeLatency(index);
    });
    connect(m_view, &ViewState::latenciesChanged, this, &LatencyPane::followView);
    choosePreset("irq");
    updateButtons();
}

LatencyPane::~LatencyPane() = default;

void LatencyPane::setSession(std::shared_ptr<TraceSession> session)
{
    if (session == m_session) return;
    m_jobs.cancel();
    m_making.reset();
    m_queue.clear();
    m_refreshing.clear();
    m_grewMeanwhile = false;
    m_shown.clear();
    while (m_results->count()) delete m_results->widget(0);
    m_session = std::move(session);
    fillEventLists();
    schedulePreview();
    m_status->setText(m_session ? QString() : tr("Open a recording to pair its events."));
    followView();
    updateButtons();
}

QVector<PairSpec> LatencyPane::planned() const
{
    QVector<PairSpec> all = m_shown;
    if (m_making) all.push_back(*m_making);
    all.append(m_queue);
    return all;
}

void LatencyPane::followView()
{
    // The pane's own edits of the list are what it shows already; another list (a session
    // restored, another recording's view) is made again, analysis after analysis.
    if (m_editingView || !m_session || planned() == m_view->latencies()) return;
    m_jobs.cancel();
    m_making.reset();
    m_refreshing.clear();
    m_shown.clear();
    while (m_results->count()) delete m_results->widget(0);
    m_queue = m_view->latencies();
    m_notMade.clear();
    makeNext();
}

void LatencyPane::makeNext()
{
    if (running()) return;
    if (!m_queue.isEmpty()) {
        const PairSpec next = m_queue.takeFirst();
        return make(next, Making::Restored);
    }
    if (!m_refreshing.isEmpty()) {
        const int tab = m_refreshing.takeFirst();
        if (tab < m_shown.size()) return make(m_shown[tab], Making::Refresh, tab);
        return makeNext();
    }
    if (std::exchange(m_grewMeanwhile, false)) recordingGrew();
}

void LatencyPane::fillEventLists()
{
    // The events recorded so far (a capture's grow), the builder's choice kept.
    m_formats = m_session ? m_session->trace->recordedFormats() : std::vector<Trace::EventFormatNames>();
    QStringList names;
    for (const Trace::EventFormatNames& f : m_formats) names << QString::fromStdString(f.system + "/" + f.name);
    names.sort();
    QStringList shown;
    for (int i = 0; i < m_from->count(); ++i) shown << m_from->itemText(i);
    if (names == shown) return;
    const QString from = m_from->currentText(), to = m_to->currentText();
    m_settingPreset = true;
    m_from->clear();
    m_to->clear();
    m_from->addItems(names);
    m_to->addItems(names);
    m_from->setCurrentText(from);
    m_to->setCurrentText(to);
    m_settingPreset = false;
    updateButtons();
}

bool LatencyPane::previewing() const
{
    return m_preview.isRunning() || m_previewTimer->isActive();
}

void LatencyPane::schedulePreview()
{
    m_preview.cancel();
    m_previewTimer->start();
}

void LatencyPane::preview()
{
    if (!m_session) return m_matchRate->clear();
    QString why;
    const std::optional<PairSpec> edited = spec(&why);
    if (!edited) return m_matchRate->setText(why);
    m_matchRate->setText(tr("Pairing the first events…"));
    std::shared_ptr<TraceSession> session = m_session;
    const PairSpec pair = *edited;
    m_previewedRows = std::min(session->trace->analysedRows(), kPreviewRows);
    m_preview.start(
        [session, pair](JobTracker::Context& context) {
            auto loaded = LoadedPairs::run(
                *session->trace, pair, [&context](uint64_t, uint64_t) { return !context.isCancelled(); },
                kPreviewRows);
            if (!loaded) throw std::runtime_error(loaded.error().message);
            return std::shared_ptr<const LoadedPairs>(std::move(loaded.value()));
        },
        [this, session](std::shared_ptr<const LoadedPairs> loaded) {
            const EventPairs& pairs = loaded->pairs();
            if (!pairs.unbound().empty()) return m_matchRate->setText(QString::fromStdString(pairs.unbound()));
            const PairMatcher& matcher = pairs.matcher();
            const uint64_t events = session->trace->analysedRows();
            const QString over = events <= kPreviewRows
                                     ? tr("in all %1 events").arg(QLocale().toString(qulonglong(events)))
                                     : tr("in the first %1 of %2 events")
                                           .arg(QLocale().toString(qulonglong(kPreviewRows)),
                                                QLocale().toString(qulonglong(events)));
            const auto percent = [](uint64_t part, uint64_t whole) {
                return whole ? QLocale().toString(100.0 * double(part) / double(whole), 'f', 1) + "%" : tr("none");
            };
            const uint64_t made = matcher.pairs().size();
            QString text = tr("%1 pairs %2: %3 of the starts and %4 of the ends paired")
                               .arg(QLocale().toString(qulonglong(made)), over,
                                    percent(made, pairs.startsSeen()), percent(made, pairs.endsSeen()));
            if (const std::string nothing = pairs.nothingPaired(); !nothing.empty())
                text += " · " + QString::fromStdString(nothing);
            m_matchRate->setText(text);
        },
        [this](const QString& message) { m_matchRate->setText(message); });
}

void LatencyPane::recordingGrew()
{
    fillEventLists();
    // A capture's match rate follows it until the sample is whole.
    if (builderShown() && !previewing() && m_previewedRows < kPreviewRows) schedulePreview();
    if (!m_session || m_shown.isEmpty()) return;
    // Made again once what is being made is done: a capture grows faster than it is paired.
    if (running() || !m_refreshing.isEmpty()) {
        m_grewMeanwhile = true;
        return;
    }
    const uint64_t rows = m_session->trace->analysedRows();
    if (rows == m_rowsMade) return;
    for (int tab = 0; tab < m_shown.size(); ++tab) m_refreshing.push_back(tab);
    makeNext();
}

void LatencyPane::choosePreset(const QString& name)
{
    const std::optional<PairSpec> preset = presetPair(name.toStdString());
    m_settingPreset = true;
    if (preset) {
        m_presets->setCurrentIndex(m_presets->findData(name));
        m_from->setCurrentText(QString::fromStdString(preset->from));
        m_to->setCurrentText(QString::fromStdString(preset->to));
        QStringList fields;
        for (const auto& [start, end] : preset->fields)
            fields << QString::fromStdString(start == end ? start : start + "=" + end);
        m_match->setText(fields.join(", "));
        m_sameTask->setChecked(preset->sameTask);
        m_sameCpu->setChecked(preset->sameCpu);
        m_nesting->setChecked(preset->nesting);
        m_filterFrom->setText(QString::fromStdString(preset->filterFrom));
        m_filterTo->setText(QString::fromStdString(preset->filterTo));
    } else {
        m_presets->setCurrentIndex(0);
    }
    m_settingPreset = false;
    updateButtons();
    schedulePreview();
}

void LatencyPane::builderEdited()
{
    if (m_settingPreset) return;
    // An edited preset is the user's own pair.
    if (m_presets->currentIndex() != 0) {
        m_settingPreset = true;
        m_presets->setCurrentIndex(0);
        m_settingPreset = false;
    }
    updateButtons();
    schedulePreview();
}

const Trace::EventFormatNames* LatencyPane::formatOf(const QString& event) const
{
    for (const Trace::EventFormatNames& f : m_formats)
        if (QString::fromStdString(f.system + "/" + f.name) == event) return &f;
    return nullptr;
}

std::vector<std::string> LatencyPane::fieldsOf(const QString& event) const
{
    const Trace::EventFormatNames* format = formatOf(event);
    return format ? format->fields : std::vector<std::string>();
}

void LatencyPane::fillFieldsMenu()
{
    QMenu* menu = m_fields->menu();
    menu->clear();
    const std::vector<std::string> start = fieldsOf(m_from->currentText());
    const std::vector<std::string> end = fieldsOf(m_to->currentText());
    const std::set<std::string> endFields(end.begin(), end.end());
    if (start.empty()) {
        menu->addAction(tr("The start event has no fields to pick"))->setEnabled(false);
        return;
    }
    for (const std::string& field : start) {
        // A field both have pairs by itself; another asks for the end's field to pair with.
        const bool both = endFields.count(field) > 0;
        QAction* action = menu->addAction(QString::fromStdString(field) + (both ? tr("  (both)") : QString()));
        connect(action, &QAction::triggered, this, [this, field, both] {
            QString text = m_match->text().trimmed();
            if (!text.isEmpty()) text += ", ";
            text += QString::fromStdString(field) + (both ? "" : "=");
            m_match->setText(text);
            m_match->setFocus();
            builderEdited();
        });
    }
}

std::optional<PairSpec> LatencyPane::spec(QString* why) const
{
    auto fail = [why](const QString& message) -> std::optional<PairSpec> {
        if (why) *why = message;
        return std::nullopt;
    };
    PairSpec spec;
    spec.from = m_from->currentText().trimmed().toStdString();
    spec.to = m_to->currentText().trimmed().toStdString();
    if (spec.from.empty() || spec.to.empty()) return fail(tr("Choose the start and the end event."));
    for (const std::string* event : {&spec.from, &spec.to})
        if (m_session && m_from->findText(QString::fromStdString(*event)) < 0)
            return fail(tr("The recording has no %1 events.").arg(QString::fromStdString(*event)));
    for (const std::string& field : splitFields(m_match->text())) spec.fields.push_back(PairSpec::parseField(field));
    for (const auto& [start, end] : spec.fields)
        if (start.empty() || end.empty())
            return fail(tr("Name the end event's field after '=' (start_field=end_field)."));
    spec.sameTask = m_sameTask->isChecked();
    spec.sameCpu = m_sameCpu->isChecked();
    spec.nesting = m_nesting->isChecked();
    spec.filterFrom = m_filterFrom->text().trimmed().toStdString();
    spec.filterTo = m_filterTo->text().trimmed().toStdString();
    spec.name = m_presets->currentIndex() > 0
                    ? m_presets->currentData().toString().toStdString()
                    : spec.from.substr(spec.from.find('/') + 1) + " → " + spec.to.substr(spec.to.find('/') + 1);
    // A preset's marks (print's B| and E|) are not in the builder: they come with it.
    const std::optional<PairSpec> preset = presetPair(spec.name);
    if (preset) {
        spec.startText = preset->startText;
        spec.endText = preset->endText;
    }
    // Conditions of the user's own, beyond a preset's, are said in the name.
    const bool ownFilters = preset ? spec.filterFrom != preset->filterFrom || spec.filterTo != preset->filterTo
                                   : !spec.filterFrom.empty() || !spec.filterTo.empty();
    if (ownFilters) spec.name += " (filtered)";
    return spec;
}

void LatencyPane::run()
{
    if (!m_session || running()) return;
    fillEventLists(); // a capture's events so far
    QString why;
    const std::optional<PairSpec> chosen = spec(&why);
    if (!chosen) {
        m_status->setText(why);
        return;
    }
    make(*chosen, Making::New);
}

void LatencyPane::make(const PairSpec& pair, Making making, int tab)
{
    std::shared_ptr<TraceSession> session = m_session;
    const bool restored = making == Making::Restored;
    if (making != Making::Refresh) m_making = pair;
    m_rowsMade = session->trace->analysedRows();
    m_status->setText(tr("Pairing %1…").arg(QString::fromStdString(pair.name)));
    auto timer = std::make_shared<QElapsedTimer>();
    timer->start();
    m_jobs.start(
        [session, pair](JobTracker::Context& context) {
            auto result = std::make_shared<LatencyResult>();
            result->spec = pair;
            result->session = session;
            auto loaded = LoadedPairs::run(*session->trace, pair, [&context](uint64_t done, uint64_t total) {
                context.reportProgress(total ? int(std::min<uint64_t>(done * 100 / total, 99)) : 0);
                return !context.isCancelled();
            });
            if (!loaded) throw std::runtime_error(loaded.error().message);
            if (const std::string& unbound = (*loaded)->pairs().unbound(); !unbound.empty())
                throw std::runtime_error(unbound);
            result->loaded = std::move(loaded.value());
            context.reportProgress(100); // the pairs are sorted now
            result->report = makeLatencyReport(result->loaded->pairs(), SIZE_MAX);
            return std::shared_ptr<const LatencyResult>(std::move(result));
        },
        [this, timer, restored, making, tab](std::shared_ptr<const LatencyResult> result) {
            auto* view = new LatencyResultView(result, m_results);
            connect(view, &LatencyResultView::jumpRequested, this, &LatencyPane::jumpRequested);
            connect(view, &LatencyResultView::trackRequested, this, &LatencyPane::trackRequested);
            const QString title = QString::fromStdString(result->spec.name);
            if (making == Making::Refresh) {
                // The tab made again in place, the one shown kept.
                const int current = m_results->currentIndex();
                QWidget* old = m_results->widget(tab);
                m_results->removeTab(tab);
                delete old;
                m_results->insertTab(tab, view, title);
                m_results->setCurrentIndex(current);
                ++m_refreshes;
                m_status->setText(tr("%1: %2 pairs so far")
                                      .arg(title)
                                      .arg(QLocale().toString(qulonglong(result->report.overall.count))));
                updateButtons();
                return makeNext();
            }
            m_results->setCurrentIndex(m_results->addTab(view, title));
            if (making == Making::New) setBuilderShown(false);
            m_making.reset();
            m_shown.push_back(result->spec);
            if (!restored) {
                const QScopedValueRollback editing(m_editingView, true);
                m_view->addLatency(result->spec);
            }
            m_status->setText(tr("%1: %2 pairs in %3 s")
                                  .arg(QString::fromStdString(result->spec.name))
                                  .arg(QLocale().toString(qulonglong(result->report.overall.count)))
                                  .arg(double(timer->elapsed()) / 1000.0, 0, 'f', 2));
            sayNotMade();
            updateButtons();
            makeNext();
        },
        [this, restored, making, pair](const QString& message) {
            m_status->setText(tr("<span style='color:#b00020'>%1</span>").arg(message.toHtmlEscaped()));
            if (making != Making::Refresh) m_making.reset();
            // A session's analysis the recording cannot make is said, and leaves the list.
            if (restored) {
                m_notMade << QString::fromStdString(pair.name) + ": " + message;
                const QScopedValueRollback editing(m_editingView, true);
                m_view->removeLatency(int(m_shown.size()));
                sayNotMade();
            }
            updateButtons();
            makeNext();
        },
        [this](int percent) {
            m_status->setText(percent < 100 ? tr("Pairing… %1%").arg(percent) : tr("Sorting the pairs…"));
        });
    updateButtons();
}

void LatencyPane::setBuilderShown(bool shown)
{
    // The definition makes the pane taller (its dock grows to hold it); folded, the pane is
    // given back its height from before, which the dock keeps otherwise.
    auto* dock = qobject_cast<QDockWidget*>(parentWidget());
    auto* window = dock ? qobject_cast<QMainWindow*>(dock->parentWidget()) : nullptr;
    if (window && !dock->isFloating() && shown != builderShown()) {
        if (shown) {
            m_heightBeforeBuilder = dock->height();
        } else if (const int before = std::exchange(m_heightBeforeBuilder, 0); before > 0) {
            // Once the folded definition has left the layout, which clamps to its minimum.
            QTimer::singleShot(0, this, [window, dock = QPointer<QDockWidget>(dock), before] {
                if (dock && dock->height() > before) window->resizeDocks({dock}, {before}, Qt::Vertical);
            });
        }
    }
    m_builder->setVisible(shown);
    const QSignalBlocker quiet(m_builderToggle);
    m_builderToggle->setChecked(shown);
    m_builderToggle->setArrowType(shown ? Qt::DownArrow : Qt::RightArrow);
}

void LatencyPane::sayNotMade()
{
    // Once the session's analyses are all made, those that could not be stay said.
    if (!m_queue.isEmpty() || m_notMade.isEmpty()) return;
    m_status->setText(
        tr("<span style='color:#b00020'>Not made again: %1</span>").arg(m_notMade.join("; ").toHtmlEscaped()));
    m_notMade.clear();
}

void LatencyPane::cancel()
{
    if (!running()) return;
    m_jobs.cancel();
    // What was still to be made leaves the list with it.
    const bool restoring = !m_queue.isEmpty() || m_view->latencies().size() > m_shown.size();
    m_making.reset();
    m_queue.clear();
    m_refreshing.clear();
    m_grewMeanwhile = false;
    if (restoring) {
        const QScopedValueRollback editing(m_editingView, true);
        while (m_view->latencies().size() > m_shown.size()) m_view->removeLatency(int(m_shown.size()));
    }
    m_status->setText(tr("Cancelled."));
    updateButtons();
}

LatencyResultView* LatencyPane::currentResult() const
{
    return qobject_cast<LatencyResultView*>(m_results->currentWidget());
}

void LatencyPane::updateButtons()
{
    // What the builder's events amount to, as it is edited.
    auto count = [this](const QString& event) -> QString {
        if (!m_session) return QStringLiteral("–");
        const Trace::EventFormatNames* format = formatOf(event);
        return format ? QLocale().toString(qulonglong(m_session->store().eventTypeCount(format->type))) : tr("none");
    };
    m_counts->setText(tr("%1 starts, %2 ends").arg(count(m_from->currentText()), count(m_to->currentText())));
    m_run->setEnabled(m_session && !running() && !m_from->currentText().isEmpty() && !m_to->currentText().isEmpty());
    m_cancel->setEnabled(running());
}

} // namespace ringside
