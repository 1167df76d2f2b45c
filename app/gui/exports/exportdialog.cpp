// SPDX-License-Identifier: GPL-2.0-or-later
#include "exports/exportdialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QSettings>
#include <QRadioButton>
#include <QVBoxLayout>

namespace ringside {

namespace {

QString suffixOf(ExportFormat format)
{
    switch (format) {
    case ExportFormat::Csv: return "csv";
    case ExportFormat::JsonLines: return "jsonl";
    case ExportFormat::Perfetto: return "json";
    }
    return {};
}

const char* const kLastDirKey = "exports/lastDir";
const char* const kFormatKey = "exports/format";

} // namespace

ExportDialog::ExportDialog(const QString& recordingPath, size_t all, size_t filtered, bool hasFilter, size_t selected,
                           QWidget* parent)
    : QDialog(parent)
{
    setWindowTitle(tr("Export Events"));
    setObjectName("exportDialog");
    const QLocale locale;
    m_all = new QRadioButton(tr("All events (%1)").arg(locale.toString(qulonglong(all))), this);
    m_filtered =
        new QRadioButton(hasFilter ? tr("Events the filter shows (%1)").arg(locale.toString(qulonglong(filtered)))
                                   : tr("Events the filter shows (no filter applied)"),
                         this);
    m_selected = new QRadioButton(tr("Selected rows (%1)").arg(locale.toString(qulonglong(selected))), this);
    m_all->setObjectName("exportAll");
    m_filtered->setObjectName("exportFiltered");
    m_selected->setObjectName("exportSelected");
    m_filtered->setEnabled(hasFilter);
    m_selected->setEnabled(selected > 0);
    (hasFilter ? m_filtered : m_all)->setChecked(true);

    m_format = new QComboBox(this);
    m_format->setObjectName("exportFormat");
    m_format->addItem(tr("CSV (a column per field)"), int(ExportFormat::Csv));
    m_format->addItem(tr("JSON Lines (an object per event)"), int(ExportFormat::JsonLines));
    m_format->addItem(tr("Perfetto / Chrome JSON trace (tracks and slices)"), int(ExportFormat::Perfetto));

    m_path = new QLineEdit(this);
    m_path->setObjectName("exportPath");
    m_path->setMinimumWidth(fontMetrics().averageCharWidth() * 60);
    // The folder and format of the last export, else the recording's folder (a capture not
    // saved yet has none: the home folder), named after the recording.
    const QSettings settings;
    const QFileInfo recording(recordingPath);
    QString folder = settings.value(kLastDirKey).toString();
    if (folder.isEmpty() || !QDir(folder).exists())
        folder = recording.exists() ? recording.absolutePath() : QDir::homePath();
    const int lastFormat = m_format->findData(settings.value(kFormatKey, int(ExportFormat::Csv)).toInt());
    if (lastFormat >= 0) m_format->setCurrentIndex(lastFormat);
    m_path->setText(QDir(folder).filePath(recording.completeBaseName() + "." + suffixOf(format())));
    auto* browse = new QPushButton(tr("Browse…"), this);
    auto* pathRow = new QHBoxLayout;
    pathRow->addWidget(m_path, 1);
    pathRow->addWidget(browse);

    auto* rows = new QVBoxLayout;
    rows->addWidget(m_all);
    rows->addWidget(m_filtered);
    rows->addWidget(m_selected);
    auto* form = new QFormLayout;
    form->addRow(tr("Rows:"), rows);
    form->addRow(tr("Format:"), m_format);
    form->addRow(tr("File:"), pathRow);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_ok = buttons->button(QDialogButtonBox::Ok);
    m_ok->setText(tr("Export"));
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(buttons);

    connect(m_format, &QComboBox::currentIndexChanged, this, &ExportDialog::formatChanged);
    connect(browse, &QPushButton::clicked, this, &ExportDialog::browse);
    connect(m_path, &QLineEdit::textChanged, this, [this] { m_ok->setEnabled(!m_path->text().trimmed().isEmpty()); });
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
}

void ExportDialog::accept()
{
    QSettings settings;
    settings.setValue(kLastDirKey, QFileInfo(path()).absolutePath());
    settings.setValue(kFormatKey, int(format()));
    QDialog::accept();
}

ExportDialog::Rows ExportDialog::rows() const
{
    return m_selected->isChecked() ? Rows::Selected : m_filtered->isChecked() ? Rows::Filtered : Rows::All;
}

ExportFormat ExportDialog::format() const
{
    return ExportFormat(m_format->currentData().toInt());
}

QString ExportDialog::path() const
{
    return m_path->text().trimmed();
}

void ExportDialog::setPath(const QString& path)
{
    m_path->setText(path);
}

// The file's suffix follows the format, unless the user named another.
void ExportDialog::formatChanged()
{
    const QString path = m_path->text();
    for (ExportFormat other : {ExportFormat::Csv, ExportFormat::JsonLines, ExportFormat::Perfetto})
        if (path.endsWith("." + suffixOf(other))) {
            m_path->setText(path.left(path.size() - suffixOf(other).size()) + suffixOf(format()));
            return;
        }
}

void ExportDialog::browse()
{
    const QString filter =
        format() == ExportFormat::Csv ? tr("CSV (*.csv);;All files (*)") : tr("JSON Lines (*.jsonl);;All files (*)");
    const QString chosen = QFileDialog::getSaveFileName(this, tr("Export events to"), path(), filter);
    if (!chosen.isEmpty()) m_path->setText(chosen);
}

} // namespace ringside
