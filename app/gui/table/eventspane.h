// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <QSplitter>

#include <memory>

class QComboBox;
class QVBoxLayout;

namespace ringside {

class DetailsPane;
class ElidedLabel;
class EventTableModel;
class EventTableView;
class RecordingSet;
class SearchBar;
class ViewState;
struct TraceSession;

// The Events pane: the events table of the active recording with, above it, which recording
// it is (when several are open), the filter bar and the search bar; the selected event's
// details beside it. The table follows the view's selection and sets it; its context menu
// copies rows, sets markers and adds task rows.
class EventsPane : public QSplitter {
    Q_OBJECT
public:
    EventsPane(ViewState* view, QWidget* parent);

    EventTableView* table() const { return m_table; }
    EventTableModel* model() const { return m_model; }
    SearchBar* search() const { return m_search; }
    DetailsPane* details() const { return m_details; }
    // Above the search bar: the filters applied.
    void setFilterBar(QWidget* bar);
    // The recording shown; null lets go of it. The columns fit its widest values.
    void setSession(std::shared_ptr<TraceSession> session);
    // The recordings open, `active` the one shown; the box shows with more than one.
    void showRecordings(const RecordingSet& recordings, size_t active);
    // The table's row of the view's selection, without selecting it again.
    void followSelection();
    // The details say what is now known of the selection (names, tables).
    void refreshDetails();
    // Columns as wide as the recording's values need (again once a recording read while shown
    // is complete).
    void fitColumns();

signals:
    // The user chose another recording in the box.
    void recordingChosen(size_t index);

private:
    void addEventActions();
    void copySelectedRows();

    ViewState* m_view;
    std::shared_ptr<TraceSession> m_session;
    EventTableView* m_table = nullptr;
    EventTableModel* m_model = nullptr;
    SearchBar* m_search = nullptr;
    DetailsPane* m_details = nullptr;
    QWidget* m_recordingBar = nullptr;
    QComboBox* m_recordingBox = nullptr;
    ElidedLabel* m_recordingNote = nullptr;
    QVBoxLayout* m_tableLayout = nullptr;
    bool m_syncingSelection = false;
};

} // namespace ringside
