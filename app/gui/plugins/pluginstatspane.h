// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "plugins/statstablemodel.h"
#include "state/tracesession.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QTreeView;

namespace ringside {

// The plugins' statistics tables, drawn generically: choose a table (the syscalls plugin's
// failed system calls come first when there are any), sort by any column, copy. A row with a
// time and a pid (a failed call) jumps to its event on a double-click.
class PluginStatsPane : public QWidget {
    Q_OBJECT
public:
    explicit PluginStatsPane(QWidget* parent = nullptr);
    // `source`, when given, says what the tables are of (a live capture's events so far); the
    // table chosen then stays chosen.
    void setSession(const TraceSession* session, const QString& source = QString());
    QLabel* summary() const { return m_summary; }
    // Shows the table `key` of plugin `plugin`; false when there is none.
    bool showTable(const std::string& plugin, const std::string& key);
    QTreeView* table() const { return m_table; }
    StatsTableModel* model() const { return m_model; }
    QComboBox* chooser() const { return m_chooser; }
    // Whether any plugin has a table with rows.
    bool hasRows() const;

signals:
    void jumpRequested(uint64_t time, int32_t pid);

private:
    void fill();
    const TraceSession* m_session = nullptr;
    QString m_source;
    QComboBox* m_chooser;
    QLabel* m_summary;
    QTreeView* m_table;
    StatsTableModel* m_model;
};

} // namespace ringside
