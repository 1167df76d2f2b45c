// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <QByteArray>
#include <QObject>

class QAction;
class QDockWidget;
class QMainWindow;
class QMenu;

namespace ringside {

// A window's layout: its central widget takes the middle, the panes share one tabbed area
// below it that the user resizes (a visible handle), maximizes and restores; the filters run
// the window's height on the left. The layout is remembered, and View > Reset Layout puts the
// default back.
class PaneLayout : public QObject {
    Q_OBJECT
public:
    explicit PaneLayout(QMainWindow* window);

    // A pane: a dock, tabbed with the first pane added.
    QDockWidget* addPane(const QString& title, const char* objectName, QWidget* widget);
    // The dock on the left, the window's whole height.
    QDockWidget* addSidePane(const QString& title, const char* objectName, QWidget* widget);
    // View > Maximize Panes, Reset Layout.
    void addActions(QMenu* view);
    // The layout last left (settings), else the default (sized when first shown). Called once
    // every pane is added.
    void restore();
    void save();
    void reset();
    // The panes take the window's height but a strip of the central widget, or give it back.
    void setPanesMaximized(bool maximized);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void applyDefaultSizes();
    QDockWidget* currentPane() const;

    QMainWindow* m_window;
    QDockWidget* m_firstPane = nullptr;
    QDockWidget* m_sidePane = nullptr;
    QByteArray m_defaultLayout;     // the docks as built, for Reset Layout
    bool m_sizeOnShow = false;      // no layout remembered: the default sizes once shown
    QByteArray m_unmaximizedLayout; // the docks before Maximize Panes
    QAction* m_maximizePanes = nullptr;
};

} // namespace ringside
