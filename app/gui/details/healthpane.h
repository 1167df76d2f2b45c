// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "state/tracesession.h"

#include <QWidget>

class QListWidget;
class QTreeWidget;

namespace ringside {

// The "trace health" view: per buffer and CPU the events kept, lost and overrun, and below it
// the import diagnostics. Diagnostics are sentences: their list wraps them to the pane's width
// (re-wrapping as the pane grows or shrinks), and each one's tooltip holds its whole text.
class HealthPane : public QWidget {
    Q_OBJECT
public:
    explicit HealthPane(QWidget* parent = nullptr);

    void setSession(const TraceSession* session);
    QTreeWidget* streams() const { return m_streams; }
    QListWidget* diagnostics() const { return m_diagnostics; }

private:
    QTreeWidget* m_streams = nullptr;
    QListWidget* m_diagnostics = nullptr;
};

} // namespace ringside
