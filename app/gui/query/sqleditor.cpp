// SPDX-License-Identifier: GPL-2.0-or-later
#include "query/sqleditor.h"

#include <QAbstractItemView>
#include <QCompleter>
#include <QFontDatabase>
#include <QKeyEvent>
#include <QScrollBar>
#include <QStringListModel>
#include <QTextBlock>

namespace ringside {

SqlEditor::SqlEditor(QWidget* parent) : QPlainTextEdit(parent), m_completer(new QCompleter(this))
{
    setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    setLineWrapMode(QPlainTextEdit::NoWrap);
    // Tab leaves for Run and the results, as in a form: an editor that kept Tab for indenting
    // held a keyboard-only user in it. Tab still takes a completion while one is offered.
    setTabChangesFocus(true);
    setPlaceholderText(tr("SELECT name, count(*) FROM ftrace_event GROUP BY name ORDER BY 2 DESC  (Ctrl+Return runs)"));
    m_completer->setWidget(this);
    m_completer->setCaseSensitivity(Qt::CaseInsensitive);
    m_completer->setCompletionMode(QCompleter::PopupCompletion);
    m_completer->setModelSorting(QCompleter::CaseInsensitivelySortedModel);
    connect(m_completer, qOverload<const QString&>(&QCompleter::activated), this, &SqlEditor::insertCompletion);
}

void SqlEditor::setWords(QStringList words)
{
    words.removeDuplicates();
    std::sort(words.begin(), words.end(),
              [](const QString& a, const QString& b) { return a.compare(b, Qt::CaseInsensitive) < 0; });
    m_completer->setModel(new QStringListModel(words, m_completer));
}

QString SqlEditor::wordBeforeCursor() const
{
    const QTextCursor cursor = textCursor();
    const QString line = cursor.block().text().left(cursor.positionInBlock());
    int start = int(line.size());
    while (start > 0 && (line[start - 1].isLetterOrNumber() || line[start - 1] == '_')) --start;
    return line.mid(start);
}

void SqlEditor::insertCompletion(const QString& word)
{
    QTextCursor cursor = textCursor();
    cursor.movePosition(QTextCursor::Left, QTextCursor::KeepAnchor, int(wordBeforeCursor().size()));
    cursor.insertText(word);
    setTextCursor(cursor);
}

bool SqlEditor::focusNextPrevChild(bool next)
{
    // While a completion is offered, Tab is the completer's (it takes the completion).
    if (m_completer->popup()->isVisible()) return false;
    return QPlainTextEdit::focusNextPrevChild(next);
}

void SqlEditor::keyPressEvent(QKeyEvent* event)
{
    QAbstractItemView* popup = m_completer->popup();
    if (popup->isVisible()) {
        switch (event->key()) {
        case Qt::Key_Enter:
        case Qt::Key_Return:
        case Qt::Key_Tab:
        case Qt::Key_Escape:
        case Qt::Key_Backtab: event->ignore(); return; // the popup takes them
        default: break;
        }
    }
    if ((event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter) &&
        (event->modifiers() & Qt::ControlModifier)) {
        emit runRequested();
        return;
    }
    QPlainTextEdit::keyPressEvent(event);
    const QString prefix = wordBeforeCursor();
    const bool typed = !event->text().isEmpty() && (event->text()[0].isLetterOrNumber() || event->text()[0] == '_');
    if (!typed || prefix.size() < 2) {
        popup->hide();
        return;
    }
    m_completer->setCompletionPrefix(prefix);
    if (m_completer->completionCount() == 0 ||
        (m_completer->completionCount() == 1 &&
         m_completer->currentCompletion().compare(prefix, Qt::CaseInsensitive) == 0)) {
        popup->hide();
        return;
    }
    popup->setCurrentIndex(m_completer->completionModel()->index(0, 0));
    QRect rect = cursorRect();
    rect.setWidth(popup->sizeHintForColumn(0) + popup->verticalScrollBar()->sizeHint().width() + 8);
    m_completer->complete(rect);
}

} // namespace ringside
