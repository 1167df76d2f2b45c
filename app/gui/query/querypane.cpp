// SPDX-License-Identifier: GPL-2.0-or-later
#include "query/querypane.h"

#include "query/histogramview.h"
#include "query/sqleditor.h"
#include "sql/resulttrack.h"

#include <QAction>
#include <QClipboard>
#include <QComboBox>
#include <QElapsedTimer>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QTextBlock>
#include <QToolButton>
#include <QVBoxLayout>

#include <traceevent/event-parse.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <mutex>

namespace ringside {

// The recording's database: one query at a time uses it (the pane's query or its tracks).
struct QueryPane::SqlHandle {
    std::mutex lock; // held by the job using the database
    std::unique_ptr<sql::RecordingSql> sql;
    std::string error;
    std::atomic<sql::RecordingSql*> opened{nullptr}; // for interrupt(), from the GUI thread
    // Opens it on first use (on a worker: it builds a tep handle of its own).
    sql::RecordingSql* open(const Trace& trace)
    {
        if (!sql && error.empty()) {
            auto made = sql::RecordingSql::open(trace);
            if (made)
                sql = std::move(made.value());
            else
                error = made.error().message;
            opened.store(sql.get(), std::memory_order_release);
        }
        return sql.get();
    }
    // Stops the query running on it, if any; from any thread.
    void interrupt()
    {
        if (sql::RecordingSql* db = opened.load(std::memory_order_acquire)) db->interrupt();
    }
};

namespace {

// The last statement's result, its first kMaxRows rows.
struct Collect : sql::ResultSink {
    QueryResult result;
    void columns(const std::vector<std::string>& names) override
    {
        result = QueryResult();
        result.columns = names;
    }
    bool row(const std::vector<sql::Value>& values) override
    {
        if (result.rows.size() < QueryResult::kMaxRows) result.rows.push_back(values);
        ++result.totalRows;
        return true;
    }
};

struct QueryOutcome {
    QueryResult result;
    QString message;
    int offset = -1;
    double seconds = 0;
    bool cancelled = false;
};

struct MadeTracks {
    std::vector<std::shared_ptr<AnalysisTables>> tables;
    QMap<int, QString> problems; // by the track's index in the view
    QString error;               // SQL could not be opened
};

// Progress as a share of the recording's events read, and Cancel as an interrupt.
sql::RecordingSql::Progress progressOf(JobTracker::Context& context, sql::RecordingSql& sql)
{
    // In thousands of rows read (a join's lookups may read more rows than the recording has).
    return [&context, &sql](uint64_t done, uint64_t) {
        if (context.isCancelled()) sql.interrupt();
        context.reportProgress(int(std::min<uint64_t>(done / 1000, INT_MAX)));
    };
}

// Which tables a running query reads, for its progress: written by the job, read by the window.
class TablesRead {
public:
    void set(QString text)
    {
        const std::lock_guard lock(m_lock);
        m_text = std::move(text);
    }
    QString text() const
    {
        const std::lock_guard lock(m_lock);
        return m_text;
    }

private:
    mutable std::mutex m_lock;
    QString m_text;
};

// progressOf, and the tables that yielded most since the query began (": syscalls 3,735k,
// thread 3,735k, process 3,735k"): where a slow join spends its rows.
sql::RecordingSql::Progress tablesReadOf(JobTracker::Context& context, sql::RecordingSql& sql,
                                         std::shared_ptr<TablesRead> detail)
{
    auto atStart = sql.rowsYieldedByTable();
    return [&context, &sql, detail, atStart = std::move(atStart), rows = progressOf(context, sql)](uint64_t done,
                                                                                                   uint64_t total) {
        rows(done, total);
        const auto now = sql.rowsYieldedByTable();
        std::vector<std::pair<uint64_t, std::string_view>> read;
        for (size_t i = 0; i < now.size() && i < atStart.size(); ++i)
            if (now[i].second > atStart[i].second) read.emplace_back(now[i].second - atStart[i].second, now[i].first);
        std::sort(read.begin(), read.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
        QStringList parts;
        for (size_t i = 0; i < read.size() && i < 3; ++i)
            parts << QObject::tr("%1 %L2k")
                         .arg(QString::fromUtf8(read[i].second.data(), qsizetype(read[i].second.size())))
                         .arg(qulonglong(read[i].first / 1000));
        detail->set(parts.isEmpty() ? QString() : QStringLiteral(": ") + parts.join(QStringLiteral(", ")));
    };
}

QString lineAndColumn(const QString& sql, int offset)
{
    const QString before = sql.left(offset);
    const int line = int(before.count('\n')) + 1;
    const int column = int(offset - (before.lastIndexOf('\n') + 1)) + 1;
    return QObject::tr("line %1, column %2").arg(line).arg(column);
}

} // namespace

const std::vector<QueryPane::Example>& QueryPane::examples()
{
    static const std::vector<Example> all = {
        {tr("Wakeup latency (a track: each wakeup to the switch that ran the task)"),
         "-- Wakeup latency as the sched plugin measures it (its tables' headers say how): each\n"
         "-- wakeup to the switch that ran the woken task; ts, dur and utid make it a track.\n"
         "SELECT ts, latency AS dur, to_utid AS utid, 'wakeup latency' AS name\n"
         "FROM sched_wakeups ORDER BY dur DESC;"},
        {tr("Wakeup latency per task (p50, p99)"),
         "-- Nearest-rank percentiles (SQLite has no percentile function), of the sched plugin's latencies.\n"
         "WITH r AS (SELECT to_utid AS utid, latency,\n"
         "                  ROW_NUMBER() OVER (PARTITION BY to_utid ORDER BY latency) AS k,\n"
         "                  COUNT(*) OVER (PARTITION BY to_utid) AS n FROM sched_wakeups)\n"
         "SELECT t.tid, t.name, r.n AS wakeups, MAX(CASE WHEN k = (n + 1) / 2 THEN latency END) AS p50_ns,\n"
         "       MAX(CASE WHEN k = (99 * n + 99) / 100 THEN latency END) AS p99_ns, MAX(latency) AS max_ns\n"
         "FROM r JOIN thread t USING (utid) GROUP BY r.utid ORDER BY p99_ns DESC;"},
        {tr("System call latency per name"),
         "SELECT name, count(*) AS calls, sum(failed) AS failed, sum(dur) AS total_ns,\n"
         "       avg(dur) AS avg_ns, max(dur) AS max_ns\n"
         "FROM syscalls GROUP BY name ORDER BY total_ns DESC;"},
        {tr("Failed system calls (the E2BIG hunt)"),
         "SELECT f.at AS ts, f.duration_ns AS dur, f.utid, t.name AS task, f.name AS syscall, f.errno\n"
         "FROM syscalls_failures f JOIN thread t USING (utid) ORDER BY f.at;"},
        {tr("Top tasks by run time"), "SELECT t.tid, t.name, sum(s.dur) AS run_ns, count(*) AS slices\n"
                                      "FROM sched s JOIN thread t USING (utid) WHERE s.utid != 0 AND s.dur >= 0\n"
                                      "GROUP BY s.utid ORDER BY run_ns DESC LIMIT 20;"},
        {tr("Interrupts per CPU"), "SELECT cpu, irq, name, count(*) AS count FROM irq_handler_entry\n"
                                   "GROUP BY cpu, irq ORDER BY cpu, count DESC;"},
        {tr("Events per type"),
         "-- The store's counts: no scan (count(*) FROM ftrace_event GROUP BY name reads every event)\n"
         "SELECT name, system, events FROM event_type ORDER BY events DESC;"},
    };
    return all;
}

QueryPane::QueryPane(ViewState* view, QWidget* parent) : QWidget(parent), m_view(view)
{
    m_editor = new SqlEditor(this);
    m_editor->setObjectName("queryEditor");
    setFocusProxy(m_editor); // the pane opened, typing goes to the SQL
    m_run = new QPushButton(tr("Run"), this);
    m_run->setObjectName("queryRun");
    m_run->setToolTip(tr("Run the query (Ctrl+Return)"));
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->setObjectName("queryCancel");
    m_examples = new QToolButton(this);
    m_examples->setText(tr("Examples"));
    m_examples->setPopupMode(QToolButton::InstantPopup);
    auto* examplesMenu = new QMenu(m_examples);
    for (const Example& e : examples())
        examplesMenu->addAction(e.title, this, [this, sql = e.sql] { m_editor->setPlainText(sql); });
    m_examples->setMenu(examplesMenu);
    m_history = new QToolButton(this);
    m_history->setText(tr("History"));
    m_history->setPopupMode(QToolButton::InstantPopup);
    m_history->setMenu(new QMenu(m_history));
    connect(m_history->menu(), &QMenu::aboutToShow, this, &QueryPane::fillHistoryMenu);
    m_addTrack = new QPushButton(tr("Add as Timeline Track"), this);
    m_addTrack->setObjectName("queryAddTrack");
    m_histogramColumn = new QComboBox(this);
    m_histogramColumn->setObjectName("queryHistogramColumn");
    m_histogramColumn->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_status = new QLabel(this);
    m_status->setObjectName("queryStatus");
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_status->setWordWrap(true);

    auto* buttons = new QHBoxLayout;
    buttons->setContentsMargins(0, 0, 0, 0);
    for (QWidget* w : std::initializer_list<QWidget*>{m_run, m_cancel, m_examples, m_history}) buttons->addWidget(w);
    buttons->addWidget(m_status, 1);
    buttons->addWidget(m_histogramColumn);
    buttons->addWidget(m_addTrack);

    m_model = new QueryResultModel(this);
    m_results = new QTableView(this);
    m_results->setObjectName("queryResults");
    m_results->setModel(m_model);
    m_results->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_results->setAlternatingRowColors(true);
    m_results->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 4);
    m_results->horizontalHeader()->setStretchLastSection(false);
    m_histogram = new HistogramView(this);
    auto* histogramScroll = new QScrollArea(this);
    histogramScroll->setWidget(m_histogram);
    histogramScroll->setWidgetResizable(true);
    m_stack = new QStackedWidget(this);
    m_stack->addWidget(m_results);
    m_stack->addWidget(histogramScroll);

    auto* top = new QWidget(this);
    auto* topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    topLayout->addWidget(m_editor);
    topLayout->addLayout(buttons);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(top);
    split->addWidget(m_stack);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(split);

    connect(m_run, &QPushButton::clicked, this, &QueryPane::run);
    connect(m_editor, &SqlEditor::runRequested, this, &QueryPane::run);
    connect(m_cancel, &QPushButton::clicked, this, &QueryPane::cancel);
    connect(m_addTrack, &QPushButton::clicked, this, [this] {
        bool ok = false;
        const QString name = QInputDialog::getText(this, tr("Add Track"), tr("Name of the track:"), QLineEdit::Normal,
                                                   tr("Query %1").arg(m_view->queryTracks().size() + 1), &ok);
        if (ok && !name.trimmed().isEmpty()) addTrack(name.trimmed());
    });
    connect(m_histogramColumn, qOverload<int>(&QComboBox::activated), this, [this](int index) {
        const int column = m_histogramColumn->itemData(index).toInt();
        if (column < 0)
            showTable();
        else
            showHistogram(column);
    });
    connect(m_results, &QTableView::doubleClicked, this, [this](const QModelIndex& index) { goToRow(index.row()); });
    // Ctrl+C copies the selected rows as tab-separated text, the columns' names first.
    auto* copy = new QAction(tr("Copy Rows"), m_results);
    copy->setShortcut(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetShortcut);
    m_results->addAction(copy);
    m_results->setContextMenuPolicy(Qt::ActionsContextMenu);
    connect(copy, &QAction::triggered, this, [this] { QGuiApplication::clipboard()->setText(selectedRowsText()); });
    connect(m_editor, &QPlainTextEdit::textChanged, this, [this] { m_view->setQueryText(m_editor->toPlainText()); });
    connect(m_view, &ViewState::queryChanged, this, [this] {
        if (m_editor->toPlainText() != m_view->queryText()) m_editor->setPlainText(m_view->queryText());
    });
    connect(m_view, &ViewState::queryTracksChanged, this, &QueryPane::rebuildTracks);
    setSession(nullptr);
}

QueryPane::~QueryPane()
{
    m_jobs.cancel();
    m_trackJobs.cancel();
    if (m_sql) m_sql->interrupt();
    m_jobs.waitForThreads();
    m_trackJobs.waitForThreads();
}

void QueryPane::setSession(std::shared_ptr<TraceSession> session)
{
    m_jobs.cancel();
    m_trackJobs.cancel();
    if (m_sql) m_sql->interrupt();
    m_sql.reset();
    m_session = std::move(session);
    m_model->setResult({});
    m_model->setNanoseconds(!m_session || !m_session->trace || m_session->trace->file().info().timesInUsecs);
    m_lastSql.clear();
    showTable();
    QStringList words;
    if (m_session && m_session->trace) {
        m_status->setText(tr("Tables: every event (ftrace_event), one per event type, thread, process, sched, "
                             "thread_state, slice, and the plugins' tables."));
        // The words to complete: names the tables would have, without making the database.
        words << "ftrace_event"
              << "thread"
              << "process"
              << "sched"
              << "sched_slice"
              << "end_state"
              << "ts_end"
              << "thread_state"
              << "slice"
              << "EXTRACT_ARG"
              << "utid"
              << "upid"
              << "tid"
              << "dur"
              << "ts"
              << "cpu"
              << "name"
              << "common_pid"
              << "arg_set_id";
        for (const char* k : {"SELECT", "FROM", "WHERE", "GROUP", "ORDER", "LIMIT", "JOIN", "USING", "COUNT",
                              "DISTINCT", "BETWEEN", "PARTITION", "OVER"})
            words << k;
        for (const Trace::EventFormatNames& format : m_session->trace->recordedFormats()) {
            words << QString::fromStdString(format.name);
            for (const std::string& field : format.fields) words << QString::fromStdString(field);
        }
        for (const Trace::Analysis& a : m_session->trace->analyses())
            for (const auto& t : a.tables->tables()) words << QString::fromStdString(t->key());
    } else {
        m_status->setText(tr("Open a recording and let its analyses finish to query it."));
    }
    m_editor->setWords(words);
    if (m_editor->toPlainText() != m_view->queryText()) m_editor->setPlainText(m_view->queryText());
    updateButtons();
    if (m_session) rebuildTracks();
}

std::shared_ptr<QueryPane::SqlHandle> QueryPane::handle()
{
    if (!m_sql) m_sql = std::make_shared<SqlHandle>();
    return m_sql;
}

void QueryPane::updateButtons()
{
    const bool ready = m_session && m_session->trace;
    m_run->setEnabled(ready && !m_jobs.isRunning());
    m_cancel->setEnabled(m_jobs.isRunning());
    const sql::TrackShape shape = sql::trackShape(m_model->result().columns);
    m_addTrack->setEnabled(ready && !m_lastSql.isEmpty() && shape.kind != sql::TrackShape::Kind::None);
    m_addTrack->setToolTip(m_lastSql.isEmpty() ? tr("Run a query first")
                           : shape.kind == sql::TrackShape::Kind::None
                               ? QString::fromStdString(shape.why)
                               : tr("Draw this result on the timeline (kept in the session)"));
    m_histogramColumn->clear();
    m_histogramColumn->addItem(tr("Table"), -1);
    for (int c = 0; c < m_model->columnCount(); ++c)
        if (m_model->isNumeric(c))
            m_histogramColumn->addItem(
                tr("Histogram of %1").arg(m_model->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString()), c);
    m_histogramColumn->setEnabled(m_histogramColumn->count() > 1);
}

void QueryPane::fillHistoryMenu()
{
    QMenu* menu = m_history->menu();
    menu->clear();
    const QStringList& history = m_view->queryHistory();
    if (history.isEmpty()) menu->addAction(tr("(no queries run on this recording yet)"))->setEnabled(false);
    for (auto it = history.rbegin(); it != history.rend(); ++it) {
        QString title = it->simplified();
        if (title.size() > 90) title = title.left(87) + "...";
        menu->addAction(title, this, [this, sql = *it] { m_editor->setPlainText(sql); });
    }
}

void QueryPane::run()
{
    if (!m_session || !m_session->trace) return;
    const QString text = m_editor->toPlainText();
    if (text.trimmed().isEmpty()) return;
    m_view->addQueryToHistory(text);
    auto session = m_session;
    auto sql = handle();
    const std::string query = text.toStdString();
    m_status->setText(tr("Running…"));
    auto detail = std::make_shared<TablesRead>();
    // The Latency pane's analyses are views of their own: latency_<name>.
    const std::vector<PairSpec> latencies(m_view->latencies().begin(), m_view->latencies().end());
    m_jobs.start(
        [session, sql, query, detail, latencies](JobTracker::Context& context) {
            QueryOutcome outcome;
            QElapsedTimer timer;
            timer.start();
            const std::lock_guard lock(sql->lock);
            sql::RecordingSql* db = sql->open(*session->trace);
            if (!db) {
                outcome.message = QString::fromStdString(sql->error);
                return outcome;
            }
            db->setLatencyViews(latencies);
            Collect collect;
            const sql::RunOutcome run = db->run(query, collect, tablesReadOf(context, *db, detail));
            outcome.seconds = double(timer.nsecsElapsed()) / 1e9;
            outcome.result = std::move(collect.result);
            outcome.cancelled = run.interrupted;
            if (!run.ok) outcome.message = QString::fromStdString(run.message), outcome.offset = run.offset;
            return outcome;
        },
        [this, text](QueryOutcome outcome) {
            m_lastSql = outcome.message.isEmpty() ? text : QString();
            if (outcome.cancelled) outcome.message = tr("Cancelled.");
            finished(std::move(outcome.result), outcome.message, outcome.offset, outcome.seconds);
        },
        [this](const QString& error) { finished({}, error, -1, 0); },
        [this, detail](int thousands) {
            m_status->setText(tr("Running… %L1k rows read").arg(thousands) + detail->text());
        });
    updateButtons();
}

void QueryPane::cancel()
{
    if (!m_jobs.isRunning()) return;
    m_jobs.cancel(); // the job's progress sees it and interrupts the query
    if (m_sql) m_sql->interrupt();
    m_status->setText(tr("Cancelled."));
    updateButtons();
}

void QueryPane::finished(QueryResult result, QString message, int errorOffset, double seconds)
{
    showTable();
    if (!message.isEmpty()) {
        m_model->setResult({});
        const QString text = m_editor->toPlainText();
        m_status->setText(errorOffset >= 0 ? tr("Error at %1: %2").arg(lineAndColumn(text, errorOffset), message)
                                           : message);
        if (errorOffset >= 0) {
            QTextCursor cursor = m_editor->textCursor();
            cursor.setPosition(std::min(errorOffset, int(text.size())));
            m_editor->setTextCursor(cursor);
        }
        updateButtons();
        return;
    }
    const size_t total = result.totalRows, shown = result.rows.size();
    m_model->setResult(std::move(result));
    m_results->resizeColumnsToContents();
    for (int c = 0; c < m_model->columnCount(); ++c)
        m_results->setColumnWidth(c, std::min(m_results->columnWidth(c), 400));
    m_status->setText(
        total > shown
            ? tr("%1 rows (the first %2 shown) in %3 s")
                  .arg(QLocale().toString(qulonglong(total)), QLocale().toString(qulonglong(shown)))
                  .arg(seconds, 0, 'f', 3)
            : (total == 1 ? tr("1 row in %1 s").arg(seconds, 0, 'f', 3)
                          : tr("%1 rows in %2 s").arg(QLocale().toString(qulonglong(total))).arg(seconds, 0, 'f', 3)));
    updateButtons();
}

bool QueryPane::showHistogram(int column)
{
    if (column < 0 || column >= m_model->columnCount() || !m_model->isNumeric(column)) return false;
    std::vector<double> values;
    for (const auto& row : m_model->result().rows) {
        const sql::Value& v = row[size_t(column)];
        if (v.kind == sql::Value::Kind::Integer) values.push_back(double(v.integer));
        if (v.kind == sql::Value::Kind::Real) values.push_back(v.real);
    }
    const std::string& name = m_model->result().columns[size_t(column)];
    m_histogram->setValues(QString::fromStdString(name), values,
                           QueryResultModel::formatOf(name) == QueryResultModel::Format::Duration);
    m_stack->setCurrentIndex(1);
    m_histogramColumn->setCurrentIndex(std::max(0, m_histogramColumn->findData(column)));
    return true;
}

void QueryPane::showTable()
{
    m_stack->setCurrentWidget(m_results);
    if (m_histogramColumn->count()) m_histogramColumn->setCurrentIndex(0);
}

QString QueryPane::selectedRowsText() const
{
    QStringList lines;
    QStringList header;
    for (const std::string& c : m_model->result().columns) header << QString::fromStdString(c);
    lines << header.join('\t');
    QList<int> rows;
    for (const QModelIndex& index : m_results->selectionModel()->selectedRows()) rows << index.row();
    std::sort(rows.begin(), rows.end());
    for (int row : rows) {
        QStringList cells;
        for (const sql::Value& v : m_model->result().rows[size_t(row)])
            cells << (v.kind == sql::Value::Kind::Null ? QString() : QString::fromStdString(v.toString()));
        lines << cells.join('\t');
    }
    return lines.join('\n') + '\n';
}

void QueryPane::goToRow(int row)
{
    const QueryResult& r = m_model->result();
    const int ts = r.column("ts");
    if (!m_session || row < 0 || size_t(row) >= r.rows.size()) return;
    const auto& values = r.rows[size_t(row)];
    if (ts < 0) {
        // Without a time, an event's id (its row, as ftrace_event and the event tables give it).
        int id = r.column("arg_set_id");
        if (id < 0) id = r.column("id");
        const EventStore& store = m_session->store();
        if (id >= 0 && values[size_t(id)].kind == sql::Value::Kind::Integer && values[size_t(id)].integer >= 0 &&
            uint64_t(values[size_t(id)].integer) < store.eventCount())
            emit jumpRequested(store.eventAt(size_t(values[size_t(id)].integer)), std::nullopt);
        return;
    }
    if (values[size_t(ts)].kind != sql::Value::Kind::Integer) return;
    const uint64_t time = uint64_t(std::max<int64_t>(0, values[size_t(ts)].integer));
    const EventStore& store = m_session->store();
    // The first event at that time, on the row's CPU or of its task when the result says.
    const int cpu = r.column("cpu");
    int pid = r.column("common_pid");
    if (pid < 0) pid = r.column("pid");
    if (pid < 0) pid = r.column("tid");
    const auto wanted = [&](int column, int64_t value) {
        return column < 0 || values[size_t(column)].kind != sql::Value::Kind::Integer ||
               values[size_t(column)].integer == value;
    };
    std::optional<EventRef> found;
    for (size_t i = store.firstRowAtOrAfter(time), end = std::min(store.eventCount(), i + 4096); i < end; ++i) {
        const EventRef e = store.eventAt(i);
        const CpuColumns& columns = store.stream(e.stream).columns;
        if (!found) found = e; // the nearest, should none match
        if (wanted(cpu, columns.cpu) && wanted(pid, columns.pid[e.index])) {
            found = e;
            break;
        }
        if (columns.timestamp[e.index] > time && found) break;
    }
    if (!found) return;
    std::optional<std::pair<quint64, quint64>> span;
    const int dur = r.column("dur");
    if (dur >= 0 && values[size_t(dur)].kind == sql::Value::Kind::Integer && values[size_t(dur)].integer > 0)
        span = std::make_pair(quint64(time), quint64(time + uint64_t(values[size_t(dur)].integer)));
    emit jumpRequested(*found, span);
}

void QueryPane::addTrack(const QString& name)
{
    if (m_lastSql.isEmpty() || !m_session) return;
    // The view's signal makes the tracks again; the new one's row shows at once, saying its
    // query runs, under "query tracks" at the top of the timeline.
    m_view->addQueryTrack({name, m_lastSql});
    m_status->setText(tr("Track \"%1\" added: its row is under \"query tracks\" at the top of the timeline "
                         "(right-click the row to remove it).")
                          .arg(name));
}

void QueryPane::rebuildTracks()
{
    if (!m_session || !m_session->trace) return;
    const QVector<QueryTrackSpec> specs = m_view->queryTracks();
    if (specs.isEmpty() && m_session->queryTracks.empty()) return;
    auto session = m_session;
    auto sql = handle();
    emit tracksMaking(true, {});
    const std::vector<PairSpec> latencies(m_view->latencies().begin(), m_view->latencies().end());
    m_trackJobs.start(
        [session, sql, specs, latencies](JobTracker::Context& context) {
            MadeTracks made;
            const std::lock_guard lock(sql->lock);
            sql::RecordingSql* db = sql->open(*session->trace);
            if (db) db->setLatencyViews(latencies);
            for (int i = 0; i < specs.size() && db; ++i) {
                const QueryTrackSpec& spec = specs[i];
                sql::ResultTrack track(*session->trace, "query_" + std::to_string(i), spec.name.toStdString());
                const sql::RunOutcome run = db->run(spec.sql.toStdString(), track, progressOf(context, *db));
                if (context.isCancelled()) return made;
                auto tables = track.take();
                if (!run.ok || !tables) {
                    made.problems[i] = QString::fromStdString(!run.ok ? run.message : track.error());
                    continue;
                }
                made.tables.push_back(std::move(tables));
            }
            if (!db) made.error = QString::fromStdString(sql->error);
            // SQL's counter and track tables show the new tracks from the next query on (the
            // old ones stay alive while a query reads them).
            if (db) db->setExtraTables({made.tables.begin(), made.tables.end()});
            return made;
        },
        [this](MadeTracks made) {
            if (!m_session) return;
            // The timeline lets go of the old tables before they go.
            std::vector<std::shared_ptr<AnalysisTables>> old = std::move(m_session->queryTracks);
            m_session->queryTracks = std::move(made.tables);
            emit tracksMaking(false, made.problems);
            emit tracksChanged();
            old.clear();
            QStringList problems;
            const QVector<QueryTrackSpec>& specs = m_view->queryTracks();
            for (auto it = made.problems.begin(); it != made.problems.end(); ++it)
                problems << tr("track \"%1\": %2")
                                .arg(it.key() < specs.size() ? specs[it.key()].name : QString(), it.value());
            if (!made.error.isEmpty()) problems << made.error;
            if (!problems.isEmpty()) m_status->setText(problems.join("\n"));
        },
        [this](const QString& error) {
            emit tracksMaking(false, {});
            m_status->setText(error);
        });
}

} // namespace ringside
