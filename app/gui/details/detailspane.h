// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "state/tracesession.h"

#include <QTreeWidget>

#include <optional>

namespace ringside {

// Everything about the selected event: its report line, its task, every field by name with
// type and value (decimal and hex, symbol for kernel addresses), and its event format. A
// selected call comes first: its function, times, depth, return value, parent and children.
// A number field's context menu plots it as a counter, per task or per CPU.
class DetailsPane : public QTreeWidget {
    Q_OBJECT
public:
    explicit DetailsPane(QWidget* parent = nullptr);
    void setSession(const TraceSession* session);
    void showEvent(std::optional<EventRef> event, std::optional<uint32_t> call = std::nullopt);
    // The actions the context menu of a field row offers (none for a text or common field).
    QList<QAction*> fieldActions(QTreeWidgetItem* item, QObject* parent);

signals:
    // "Plot FIELD as a counter": a query track's name and SQL (sql::fieldCounterQuery); per
    // task, the task of the event shown gets a row.
    void plotFieldRequested(QString name, QString sql, bool perTask, int32_t pid);

protected:
    void resizeEvent(QResizeEvent* e) override;
    void contextMenuEvent(QContextMenuEvent* e) override;

private:
    void fitColumns();
    void addCall(uint32_t call);
    const TraceSession* m_session = nullptr;
    QTreeWidgetItem* m_fields = nullptr; // the event's own fields' parent
    uint16_t m_type = 0;                 // of the event shown
    int32_t m_pid = -1;
};

} // namespace ringside
