// SPDX-License-Identifier: GPL-2.0-or-later
#include "help/helpmenu.h"

#include <QAction>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFile>
#include <QMenu>
#include <QMessageBox>
#include <QRegularExpression>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace ringside {

namespace {

// The keys and mouse actions of the timeline (not menu items, so listed here) and the
// window's, in the words of the README's Navigation section.
const char* const kKeys[][2] = {
    {"W / S, + / −", "Zoom in / out around the selected event, kept in view (else the pointer)"},
    {"Ctrl+wheel", "Zoom around the pointer"},
    {"A / D, ← / →", "Pan left / right"},
    {"Wheel, Shift+wheel", "Scroll the rows, pan"},
    {"Drag on the ruler", "Zoom into that range"},
    {"Drag on the rows", "Pan"},
    {"0, Home", "Show the whole recording"},
    {"Backspace", "Zoom back"},
    {"Alt+← / Alt+→", "Zoom back / forward"},
    {"Click", "Select the nearest event (table and details follow)"},
    {"Shift+click / Ctrl+click", "Set marker A / marker B"},
    {"Double-click a CPU row", "Add a row for the task that ran there"},
    {"Ctrl+[ / Ctrl+]", "Previous / next selection"},
    {"Ctrl+M", "Zoom to markers A–B"},
    {"Ctrl+Alt+M", "Previous markers: those a go-to (a double-clicked row) replaced"},
    {"Ctrl+F", "Search the table"},
    {"Ctrl+Shift+F", "Filters"},
    {"Ctrl+Shift+E / P / T", "Events, Plugin statistics, Call trees panes"},
    {"Ctrl+H", "Trace health"},
    {"Ctrl+Shift+M", "Maximize the panes, or give the timeline its height back"},
    {"Ctrl+R", "New capture"},
    {"Ctrl+O", "Open a recording"},
    {"Ctrl+E", "Export events"},
    {"Ctrl+C (in the table)", "Copy the selected rows"},
    {"F1", "This list"},
};

QDialog* textWindow(QWidget* parent, const QString& title, const char* objectName, const QSize& size)
{
    auto* dialog = new QDialog(parent);
    dialog->setObjectName(QString::fromLatin1(objectName));
    dialog->setWindowTitle(title);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    auto* layout = new QVBoxLayout(dialog);
    auto* text = new QTextBrowser(dialog);
    text->setOpenExternalLinks(true);
    layout->addWidget(text);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
    QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::close);
    layout->addWidget(buttons);
    dialog->resize(size);
    return dialog;
}

} // namespace

void addHelpActions(QMenu* help, QWidget* parent)
{
    QAction* keys = help->addAction(QObject::tr("&Keys and Mouse"), parent, [parent] {
        QDialog* dialog = textWindow(parent, QObject::tr("Keys and Mouse"), "keysDialog", QSize(640, 560));
        QString html = QStringLiteral("<table cellpadding=3>");
        for (const auto& [key, action] : kKeys)
            html += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>")
                        .arg(QString::fromUtf8(key).toHtmlEscaped(), QString::fromUtf8(action).toHtmlEscaped());
        dialog->findChild<QTextBrowser*>()->setHtml(html + QStringLiteral("</table>"));
        dialog->show();
    });
    keys->setObjectName("keysAction");
    keys->setShortcut(QKeySequence::HelpContents);
    help->addAction(QObject::tr("&Manual"), parent, [parent] {
        QDialog* dialog = textWindow(parent, QObject::tr("Ringside manual"), "manualDialog", QSize(900, 760));
        QFile readme(QStringLiteral(":/help/README.md"));
        QString text = readme.open(QIODevice::ReadOnly) ? QString::fromUtf8(readme.readAll()) : QString();
        // What a user reads: the application and the command line, not how to build, test or
        // measure the project.
        const qsizetype from = text.indexOf(QStringLiteral("\n## The desktop application"));
        const qsizetype to = text.indexOf(QStringLiteral("\n## Layout"));
        if (from >= 0 && to > from) text = QStringLiteral("# Ringside\n") + text.mid(from, to - from);
        // The screenshots stay in the source tree: their captions would stand alone here.
        text.remove(QRegularExpression(QStringLiteral("^\\s*!\\[[^\\n]*\\]\\([^)]*\\)\\s*$"),
                                       QRegularExpression::MultilineOption));
        dialog->findChild<QTextBrowser*>()->setMarkdown(text);
        dialog->show();
    })->setObjectName("manualAction");
    help->addAction(QObject::tr("&About Ringside"), parent, [parent] {
        QMessageBox::about(
            parent, QObject::tr("About Ringside"),
            QObject::tr("<h3>Ringside %1</h3><p>A timeline of what the Linux kernel did, from trace-cmd "
                        "recordings and live captures.</p>"
                        "<p>Qt %2 (built with %3)<br>libtraceevent %4<br>libtracefs %5</p>"
                        "<p>GPL-2.0-or-later</p>")
                .arg(QStringLiteral(RINGSIDE_VERSION), QString::fromLatin1(qVersion()),
                     QStringLiteral(QT_VERSION_STR), QStringLiteral(RINGSIDE_TRACEEVENT_VERSION),
                     QStringLiteral(RINGSIDE_TRACEFS_VERSION)));
    })->setObjectName("aboutAction");
}

} // namespace ringside
