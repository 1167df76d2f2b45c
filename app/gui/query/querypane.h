// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "jobs/jobtracker.h"
#include "query/queryresultmodel.h"
#include "state/tracesession.h"
#include "state/viewstate.h"

#include <QMap>
#include <QWidget>

#include <memory>
#include <optional>
#include <utility>

class QComboBox;
class QLabel;
class QPushButton;
class QStackedWidget;
class QTableView;
class QToolButton;

namespace ringside {

class HistogramView;
class SqlEditor;

// SQL over the active recording (core/sql): an editor that completes the recording's tables
// and columns, example queries and the history of this recording's queries; a query runs on a
// worker with its progress shown and Cancel at hand, and its result fills a table whose rows go
// to their event (by ts, and cpu or pid when the result has them) on a double-click. A result
// with ts and dur (or ts and value) and a row to draw on (utid, tid/pid or cpu) becomes a
// timeline track; a numeric column a histogram. The text, history and tracks are the view's
// (ViewState), so sessions keep them; the tracks are made again from their SQL.
class QueryPane : public QWidget {
    Q_OBJECT
public:
    struct Example {
        QString title, sql;
    };
    static const std::vector<Example>& examples();

    QueryPane(ViewState* view, QWidget* parent = nullptr);
    ~QueryPane() override;
    // A recording whose analyses finished (its plugins' tables are SQL tables), or null.
    void setSession(std::shared_ptr<TraceSession> session);

    void run();
    void cancel();
    bool running() const { return m_jobs.isRunning(); }
    bool makingTracks() const { return m_trackJobs.isRunning(); }
    // The last result as a track named `name` (kept in the view: made again from its SQL).
    void addTrack(const QString& name);
    // A histogram of the result's `column` in place of the table; false when it is not numeric.
    bool showHistogram(int column);
    void showTable();
    // Goes to the event a result row names.
    void goToRow(int row);
    // The selected rows as Ctrl+C copies them: tab-separated, the columns' names first.
    QString selectedRowsText() const;

    SqlEditor* editor() const { return m_editor; }
    QTableView* results() const { return m_results; }
    QueryResultModel* model() const { return m_model; }
    HistogramView* histogram() const { return m_histogram; }
    QLabel* status() const { return m_status; }
    QPushButton* trackButton() const { return m_addTrack; }

signals:
    void jumpRequested(ringside::EventRef event, std::optional<std::pair<quint64, quint64>> span);
    // The session's query tracks were made again: the timeline looks them up.
    void tracksChanged();
    // The query tracks are being made (`making`), or were: those that failed, by their index
    // in the view, with why.
    void tracksMaking(bool making, QMap<int, QString> problems);

private:
    struct SqlHandle;
    std::shared_ptr<SqlHandle> handle();
    void finished(QueryResult result, QString message, int errorOffset, double seconds);
    void rebuildTracks();
    void updateButtons();
    void fillHistoryMenu();

    ViewState* m_view;
    std::shared_ptr<TraceSession> m_session;
    std::shared_ptr<SqlHandle> m_sql; // the active recording's database, made on first use
    QString m_lastSql;                // the SQL of the result shown
    JobTracker m_jobs, m_trackJobs;
    SqlEditor* m_editor;
    QPushButton* m_run;
    QPushButton* m_cancel;
    QToolButton* m_examples;
    QToolButton* m_history;
    QPushButton* m_addTrack;
    QComboBox* m_histogramColumn;
    QLabel* m_status;
    QStackedWidget* m_stack;
    QTableView* m_results;
    QueryResultModel* m_model;
    HistogramView* m_histogram;
};

} // namespace ringside
