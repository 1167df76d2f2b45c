// SPDX-License-Identifier: GPL-2.0-or-later
// The window's layout: the timeline takes the middle, the panes share one tabbed area below
// it that the user resizes (a visible handle), maximizes and restores; the layout is
// remembered, and View > Reset Layout puts the default back.
#include "mainwindow.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QMenu>
#include <QPainter>
#include <QProxyStyle>
#include <QScreen>
#include <QSettings>
#include <QShowEvent>
#include <QSplitter>

#include <algorithm>

namespace ringside {

namespace {
// Saved layouts of another arrangement (panes beside the timeline, say) are not put back.
constexpr int kLayoutVersion = 2;
// The timeline's share of the window's height by default: more than half.
constexpr double kTimelineShare = 0.56;
// What Maximize Panes leaves of the timeline: its ruler and a row.
constexpr int kTimelineStrip = 90;
// Below this width the window opens maximized.
constexpr int kSmallScreenWidth = 1600;

// The handle between the timeline and the panes, wider and drawn with a grip: the window's
// own style only (a style sheet would restyle every pane's widgets).
class PaneHandleStyle : public QProxyStyle {
public:
    PaneHandleStyle() : QProxyStyle(QApplication::style()->name()) {}
    int pixelMetric(PixelMetric metric, const QStyleOption* option, const QWidget* widget) const override
    {
        if (metric == PM_DockWidgetSeparatorExtent) return 6;
        return QProxyStyle::pixelMetric(metric, option, widget);
    }
    void drawPrimitive(PrimitiveElement element, const QStyleOption* option, QPainter* painter,
                       const QWidget* widget) const override
    {
        if (element != PE_IndicatorDockWidgetResizeHandle)
            return QProxyStyle::drawPrimitive(element, option, painter, widget);
        const QRect r = option->rect;
        painter->fillRect(r, option->palette.color(QPalette::Midlight));
        painter->setPen(Qt::NoPen);
        painter->setBrush(option->palette.color(QPalette::Dark));
        const bool across = r.width() > r.height();
        const QPoint centre = r.center();
        for (int i = -2; i <= 2; ++i) {
            const QPoint dot = across ? QPoint(centre.x() + i * 6, centre.y()) : QPoint(centre.x(), centre.y() + i * 6);
            painter->drawEllipse(dot, 1, 1);
        }
    }
};
} // namespace

QDockWidget* MainWindow::addPane(const QString& title, const char* objectName, QWidget* widget)
{
    auto* dock = new QDockWidget(title, this);
    dock->setObjectName(QString::fromLatin1(objectName));
    dock->setWidget(widget);
    addDockWidget(Qt::BottomDockWidgetArea, dock);
    if (m_eventsDock && dock != m_eventsDock) tabifyDockWidget(m_eventsDock, dock);
    // Asked for from the View menu or its key: in front of the other tabs.
    connect(dock->toggleViewAction(), &QAction::triggered, dock, [dock](bool shown) {
        if (shown) dock->raise();
    });
    return dock;
}

void MainWindow::addLayoutActions(QMenu* view)
{
    setTabPosition(Qt::BottomDockWidgetArea, QTabWidget::North);
    // The filters run the window's whole height, beside the timeline and the panes.
    setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
    auto* handles = new PaneHandleStyle;
    handles->setParent(this);
    setStyle(handles);
    view->addSeparator();
    m_maximizePanes = view->addAction(tr("Maximize Panes"));
    m_maximizePanes->setObjectName("maximizePanesAction");
    m_maximizePanes->setCheckable(true);
    m_maximizePanes->setShortcut(QKeySequence(tr("Ctrl+Shift+M")));
    connect(m_maximizePanes, &QAction::toggled, this, &MainWindow::setPanesMaximized);
    QAction* reset = view->addAction(tr("Reset Layout"), this, &MainWindow::resetLayout);
    reset->setObjectName("resetLayoutAction");
}

void MainWindow::restoreLayout()
{
    m_defaultLayout = saveState(kLayoutVersion);
    QSettings settings;
    const bool geometry = restoreGeometry(settings.value("window/geometry").toByteArray());
    const bool state = restoreState(settings.value("window/state").toByteArray(), kLayoutVersion);
    if (!geometry) {
        // Most of the screen, inside it; a small screen (1280x800) all of it, since a tenth less
        // leaves the table's Info column a few characters.
        const QRect screen = this->screen()->availableGeometry();
        resize(std::min(1700, int(screen.width() * 0.9)), int(screen.height() * 0.9));
        move(screen.center() - rect().center());
        if (screen.width() < kSmallScreenWidth) {
            setGeometry(screen);
            setWindowState(windowState() | Qt::WindowMaximized);
        }
    }
    m_sizeOnShow = !state;
}

void MainWindow::saveLayout()
{
    if (m_maximizePanes && m_maximizePanes->isChecked()) m_maximizePanes->setChecked(false);
    QSettings settings;
    settings.setValue("window/geometry", saveGeometry());
    settings.setValue("window/state", saveState(kLayoutVersion));
}

void MainWindow::showEvent(QShowEvent* event)
{
    QMainWindow::showEvent(event);
    if (std::exchange(m_sizeOnShow, false)) applyDefaultSizes();
}

void MainWindow::applyDefaultSizes()
{
    // What the timeline and the panes share, tabs and handle apart.
    const int shared = centralWidget()->height() + m_eventsDock->height();
    resizeDocks({m_eventsDock}, {std::max(120, shared - int(height() * kTimelineShare))}, Qt::Vertical);
    const int filters = std::max(200, width() / 7);
    resizeDocks({m_filterDock}, {filters}, Qt::Horizontal);
    // The details beside the table get what their columns need, the table the rest: its Info
    // column is what a reader reads.
    if (auto* events = m_eventsDock->findChild<QSplitter*>("eventsSplitter")) {
        const int across = width() - filters - 16;
        const int details = std::clamp(across * 27 / 100, 260, 420);
        events->setSizes({across - details, details});
    }
    m_eventsDock->raise();
}

void MainWindow::resetLayout()
{
    if (m_maximizePanes->isChecked()) m_maximizePanes->setChecked(false);
    restoreState(m_defaultLayout, kLayoutVersion);
    applyDefaultSizes();
}

QDockWidget* MainWindow::currentPane() const
{
    // The tabs behind it are visible too, moved out of sight.
    for (QDockWidget* dock : findChildren<QDockWidget*>())
        if (dockWidgetArea(dock) == Qt::BottomDockWidgetArea && dock->isVisible() && !dock->isFloating() &&
            !dock->visibleRegion().isEmpty())
            return dock;
    return nullptr;
}

void MainWindow::setPanesMaximized(bool maximized)
{
    QDockWidget* pane = currentPane();
    if (maximized) {
        if (!pane) return;
        m_unmaximizedLayout = saveState(kLayoutVersion);
        resizeDocks({pane}, {pane->height() + centralWidget()->height() - kTimelineStrip}, Qt::Vertical);
    } else if (!m_unmaximizedLayout.isEmpty()) {
        // The sizes as they were, exactly (resizing the tabs back can come out a few pixels
        // off); the panes opened or closed meanwhile and the one in front stay as they are.
        std::vector<std::pair<QDockWidget*, bool>> open;
        for (QDockWidget* dock : findChildren<QDockWidget*>())
            open.emplace_back(dock, dock->toggleViewAction()->isChecked());
        restoreState(std::exchange(m_unmaximizedLayout, {}), kLayoutVersion);
        for (const auto& [dock, shown] : open)
            if (dock->toggleViewAction()->isChecked() != shown) dock->setVisible(shown);
        if (pane) pane->raise();
    }
}

} // namespace ringside
