// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "export/eventexporter.h"

#include <QDialog>

class QComboBox;
class QLineEdit;
class QPushButton;
class QRadioButton;

namespace ringside {

// File > Export Events: which rows (all, those the filter shows, the selected ones), which
// format, and where. The counts are shown beside each choice; a choice with no rows is off.
class ExportDialog : public QDialog {
    Q_OBJECT
public:
    enum class Rows { All, Filtered, Selected };

    ExportDialog(const QString& recordingPath, size_t all, size_t filtered, bool hasFilter, size_t selected,
                 QWidget* parent = nullptr);

    Rows rows() const;
    ExportFormat format() const;
    QString path() const;
    void setPath(const QString& path);
    // Remembers the folder and format for the next export.
    void accept() override;

private:
    void formatChanged();
    void browse();

    QRadioButton* m_all;
    QRadioButton* m_filtered;
    QRadioButton* m_selected;
    QComboBox* m_format;
    QLineEdit* m_path;
    QPushButton* m_ok = nullptr;
};

} // namespace ringside
