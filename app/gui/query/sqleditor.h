// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <QPlainTextEdit>
#include <QStringList>

class QCompleter;

namespace ringside {

// The Query pane's editor: SQL in a fixed-width font, the recording's tables and columns (and
// a few keywords) completed as they are typed (Tab or Return takes one), Ctrl+Return runs;
// Tab leaves it when no completion is offered.
class SqlEditor : public QPlainTextEdit {
    Q_OBJECT
public:
    explicit SqlEditor(QWidget* parent = nullptr);
    void setWords(QStringList words);
    QCompleter* completer() const { return m_completer; }

signals:
    void runRequested();

protected:
    void keyPressEvent(QKeyEvent* event) override;
    bool focusNextPrevChild(bool next) override;

private:
    QString wordBeforeCursor() const;
    void insertCompletion(const QString& word);

    QCompleter* m_completer;
};

} // namespace ringside
