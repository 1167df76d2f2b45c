// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "state/tracesession.h"

#include <QDialog>

class QTreeWidget;
class QLabel;

namespace ringside {

// View > Plugins: every plugin found with its description, its file, a checkbox to switch it
// on or off (remembered in the settings) and what it made of the open recording (or why it has
// nothing to show, or why it was stopped); below, the modules that could not be used. Applying
// a change reloads the open recording, since plugins read records while it loads.
class PluginsDialog : public QDialog {
    Q_OBJECT
public:
    explicit PluginsDialog(const TraceSession* session, QWidget* parent = nullptr);
    // The list's columns: what a plugin made of the recording comes right after its name, so
    // that it is seen whole; the description and the file take what is left, elided.
    enum Column { kName, kStatus, kDescription, kFile };
    QTreeWidget* list() const { return m_list; }
    // Saves the checkboxes; true when they changed.
    bool apply();

    // What a plugin made of a session, in a few words.
    static QString statusOf(const TraceSession& session, size_t plugin);

private:
    QTreeWidget* m_list;
};

} // namespace ringside
