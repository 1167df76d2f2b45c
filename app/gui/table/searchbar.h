// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "jobs/jobtracker.h"
#include "query/eventfilter.h"
#include "state/tracesession.h"

#include <QList>
#include <QThread>
#include <QWidget>

#include <atomic>
#include <functional>
#include <memory>
#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;

namespace ringside {

class EventTableModel;

// Search in the event table: text or a regular expression in one column or all of them,
// next/previous, and the number of matches. The core search (query/search.h) runs from a
// worker thread on all cores, with its own tep handles (the session's handle and its lock
// are not used); progress shows in the label, and a new text cancels it. The first match
// shown is the first at or after the current row (setCurrentRowProvider), else the first.
class SearchBar : public QWidget {
    Q_OBJECT
public:
    SearchBar(EventTableModel* model, QWidget* parent = nullptr);
    ~SearchBar() override;

    void setSession(std::shared_ptr<TraceSession> session);
    QLineEdit* edit() const { return m_edit; }
    // The last of its widgets that Tab reaches (the table comes after it).
    QWidget* lastInTabOrder() const { return m_lastInTabOrder; }
    int matchCount() const { return int(m_matches.size()); }
    // Moves to the next/previous match after/before `fromRow`; emits rowFound.
    void next(int fromRow);
    void previous(int fromRow);
    void start(); // runs the search for the current text
    // Where "the selected row" is: the first match shown is at or after it. Without one, the
    // first match shown is the first of the table.
    void setCurrentRowProvider(std::function<int()> provider) { m_currentRow = std::move(provider); }

signals:
    void rowFound(int row);
    void searchFinished();

private:
    void cancel();
    void updateLabel();
    void finished(std::vector<int> matches, int fromRow);

    EventTableModel* m_model;
    std::shared_ptr<TraceSession> m_session;
    QLineEdit* m_edit = nullptr;
    QComboBox* m_column = nullptr;
    QCheckBox* m_regex = nullptr;
    QLabel* m_label = nullptr;
    QWidget* m_lastInTabOrder = nullptr;
    std::vector<int> m_matches;
    int m_current = -1;
    std::function<int()> m_currentRow;
    // The running search's first match from the selected row on, once its worker found it
    // (-1 until then); shown at once, then counted among the rest.
    std::shared_ptr<std::atomic<long long>> m_firstFound;
    int m_shownEarly = -1; // the row shown before the search ended, or -1
    JobTracker m_jobs; // last: its destructor waits for the running search
};

} // namespace ringside
