// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <QDialog>
#include <QStringList>

#include <string>
#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QTreeWidget;
class QTreeWidgetItem;

namespace ringside {

// Capture > New Capture: what to record, from what the kernel offers (ringside-capture
// --list): the tracer, events in a searchable tree (systems and their events, a filter per
// event, how many are chosen), function filters for a function tracer (traced, not traced,
// graph roots and depth for function_graph), pids (with their
// children or not), the buffer size per CPU, the clock, and a command to run while recording.
// What the kernel then refuses (a filter it rejects) is said by the start, with its reason.
class CaptureDialog : public QDialog {
    Q_OBJECT
public:
    // `offer`: the --list text.
    CaptureDialog(const QString& offer, QWidget* parent = nullptr);

    // ringside-capture's arguments for what is chosen.
    std::vector<std::string> helperArguments() const;
    // The command to run while recording (a shell command line), or empty.
    QString command() const;
    // Chooses events by "system:event" or "system" (tests, remembered choices).
    void choose(const QStringList& events);
    int chosenCount() const;
    QTreeWidget* eventTree() const { return m_events; }

private:
    void filterTree(const QString& text);
    void updateCount();

    QComboBox* m_tracer = nullptr;
    QLineEdit* m_search = nullptr;
    QTreeWidget* m_events = nullptr;
    QLabel* m_count = nullptr;
    QLineEdit* m_functions = nullptr;
    QLineEdit* m_notraceFunctions = nullptr;
    QLineEdit* m_graphFunctions = nullptr;
    QSpinBox* m_graphDepth = nullptr;
    QLineEdit* m_pids = nullptr;
    QCheckBox* m_children = nullptr;
    QSpinBox* m_bufferKb = nullptr;
    QComboBox* m_clock = nullptr;
    QLineEdit* m_command = nullptr;
};

} // namespace ringside
