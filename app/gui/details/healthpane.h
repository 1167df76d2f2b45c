// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "plugins/analysisnote.h"
#include "state/tracesession.h"

#include <QWidget>

#include <vector>

class QListWidget;
class QTreeWidget;

namespace ringside {

// The "trace health" view: per buffer and CPU the events kept, lost and overrun, and below it
// the plugins' caveats and the import diagnostics. Diagnostics are sentences: their list wraps them to the pane's width
// (re-wrapping as the pane grows or shrinks), and each one's tooltip holds its whole text.
class HealthPane : public QWidget {
    Q_OBJECT
public:
    explicit HealthPane(QWidget* parent = nullptr);

    void setSession(const TraceSession* session);
    // The plugins' caveats, listed first among the diagnostics (a double-click shows the table).
    void setNotes(const std::vector<AnalysisNote>& notes);
    QTreeWidget* streams() const { return m_streams; }
    QListWidget* diagnostics() const { return m_diagnostics; }

signals:
    void noteActivated(const QString& plugin, const QString& tableKey);

private:
    void listDiagnostics();
    const TraceSession* m_session = nullptr;
    std::vector<AnalysisNote> m_notes;
    QTreeWidget* m_streams = nullptr;
    QListWidget* m_diagnostics = nullptr;
};

} // namespace ringside
