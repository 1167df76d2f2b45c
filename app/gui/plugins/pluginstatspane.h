// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "plugins/analysisnote.h"
#include "plugins/statstablemodel.h"
#include "state/tracesession.h"

#include <QWidget>

#include <optional>
#include <utility>

class QComboBox;
class QLabel;
class QTreeView;

namespace ringside {

// The analyses' statistics tables, drawn generically: choose a table (a headline table with
// rows comes first: the syscalls plugin marks its failed system calls so), sort by any column,
// copy. A row that names an event goes to exactly that event on a double-click. While the
// analyses run (a recording just opened, a capture growing) the pane says so and fills in as
// their tables arrive, keeping the table chosen. Its table is filled while it is shown.
class PluginStatsPane : public QWidget {
    Q_OBJECT
public:
    explicit PluginStatsPane(QWidget* parent = nullptr);
    void setSession(const TraceSession* session);
    // The analyses published more: the tables are read again.
    void refresh();
    QLabel* summary() const { return m_summary; }
    // Shows the first headline table that has rows; false when none has.
    bool showHeadline();
    // The headline table with rows, if any: its plugin's name and title, and its rows.
    struct Headline {
        QString title;
        size_t rows = 0;
    };
    std::optional<Headline> headline() const;
    // Every plugin's caveats, as last read (refresh()).
    const std::vector<AnalysisNote>& notes() const { return m_notes; }
    // Shows a plugin's table by its key; false when the pane has no such table.
    bool showTable(const QString& plugin, const QString& tableKey);
    QLabel* notesLabel() const { return m_notesLabel; }
    QTreeView* table() const { return m_table; }
    StatsTableModel* model() const { return m_model; }
    QComboBox* chooser() const { return m_chooser; }

signals:
    // Go to `event`; `span` (start and end, ns) is the interval it ends or begins, when known.
    void jumpRequested(ringside::EventRef event, std::optional<std::pair<quint64, quint64>> span);
    // refresh() read the plugins' caveats again.
    void notesChanged();

private:
    struct Choice {
        size_t plugin, table;
        std::string key;
    };
    std::vector<Choice> choices() const;
    void fill();
    void showEvent(QShowEvent* event) override;
    bool m_stale = true; // filled while hidden (or never filled): fill when shown
    const TraceSession* m_session = nullptr;
    std::vector<std::shared_ptr<const std::vector<StatsTable>>> m_tables; // per plugin, as read last
    std::vector<Choice> m_choices;
    QComboBox* m_chooser;
    QLabel* m_summary;
    QLabel* m_failures; // what failed in the analyses, above the tables
    QLabel* m_notesLabel; // the plugins' caveats, each with a link to its table
    std::vector<AnalysisNote> m_notes;
    QTreeView* m_table;
    StatsTableModel* m_model;
};

} // namespace ringside
