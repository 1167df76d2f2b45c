// SPDX-License-Identifier: GPL-2.0-or-later
#include "layout/panelayout.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QMainWindow>
#include <QMenu>
#include <QPainter>
#include <QProxyStyle>
#include <QScreen>
#include <QSettings>
#include <QShowEvent>
#include <QSplitter>
#include <QStyleOption>

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

PaneLayout::PaneLayout(QMainWindow* window) : QObject(window), m_window(window)
{
    m_window->setTabPosition(Qt::BottomDockWidgetArea, QTabWidget::North);
    // The filters run the window's whole height, beside the timeline and the panes.
    m_window->setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
    auto* handles = new PaneHandleStyle;
    handles->setParent(m_window);
    m_window->setStyle(handles);
    m_window->installEventFilter(this);
}

QDockWidget* PaneLayout::addPane(const QString& title, const char* objectName, QWidget* widget)
{
    auto* dock = new QDockWidget(title, m_window);
    dock->setObjectName(QString::fromLatin1(objectName));
    dock->setWidget(widget);
    m_window->addDockWidget(Qt::BottomDockWidgetArea, dock);
    if (m_firstPane)
        m_window->tabifyDockWidget(m_firstPane, dock);
    else
        m_firstPane = dock;
    // Asked for from the View menu or its key: in front of the other tabs.
    connect(dock->toggleViewAction(), &QAction::triggered, dock, [dock](bool shown) {
        if (shown) dock->raise();
    });
    return dock;
}

QDockWidget* PaneLayout::addSidePane(const QString& title, const char* objectName, QWidget* widget)
{
    m_sidePane = new QDockWidget(title, m_window);
    m_sidePane->setObjectName(QString::fromLatin1(objectName));
    m_sidePane->setWidget(widget);
    m_window->addDockWidget(Qt::LeftDockWidgetArea, m_sidePane);
    return m_sidePane;
}

void PaneLayout::addActions(QMenu* view)
{
    view->addSeparator();
    m_maximizePanes = view->addAction(tr("Maximize Panes"));
    m_maximizePanes->setObjectName("maximizePanesAction");
    m_maximizePanes->setCheckable(true);
    m_maximizePanes->setShortcut(QKeySequence(tr("Ctrl+Shift+M")));
    connect(m_maximizePanes, &QAction::toggled, this, &PaneLayout::setPanesMaximized);
    QAction* reset = view->addAction(tr("Reset Layout"), this, &PaneLayout::reset);
    reset->setObjectName("resetLayoutAction");
}

void PaneLayout::restore()
{
    m_defaultLayout = m_window->saveState(kLayoutVersion);
    QSettings settings;
    const bool geometry = m_window->restoreGeometry(settings.value("window/geometry").toByteArray());
    const bool state = m_window->restoreState(settings.value("window/state").toByteArray(), kLayoutVersion);
    if (!geometry) {
        // Most of the screen, inside it; a small screen (1280x800) all of it, since a tenth less
        // leaves the table's Info column a few characters.
        const QRect screen = m_window->screen()->availableGeometry();
        m_window->resize(std::min(1700, int(screen.width() * 0.9)), int(screen.height() * 0.9));
        m_window->move(screen.center() - m_window->rect().center());
        if (screen.width() < kSmallScreenWidth) {
            m_window->setGeometry(screen);
            m_window->setWindowState(m_window->windowState() | Qt::WindowMaximized);
        }
    }
    m_sizeOnShow = !state;
}

void PaneLayout::save()
{
    if (m_maximizePanes && m_maximizePanes->isChecked()) m_maximizePanes->setChecked(false);
    QSettings settings;
    settings.setValue("window/geometry", m_window->saveGeometry());
    settings.setValue("window/state", m_window->saveState(kLayoutVersion));
}

bool PaneLayout::eventFilter(QObject* watched, QEvent* event)
{
    // Once shown (the sizes are known then).
    if (watched == m_window && event->type() == QEvent::Show && std::exchange(m_sizeOnShow, false))
        applyDefaultSizes();
    return false;
}

void PaneLayout::applyDefaultSizes()
{
    if (!m_firstPane) return;
    // What the central widget and the panes share, tabs and handle apart.
    const int shared = m_window->centralWidget()->height() + m_firstPane->height();
    m_window->resizeDocks({m_firstPane}, {std::max(120, shared - int(m_window->height() * kTimelineShare))},
                          Qt::Vertical);
    const int side = std::max(200, m_window->width() / 7);
    if (m_sidePane) m_window->resizeDocks({m_sidePane}, {side}, Qt::Horizontal);
    // The details beside the table get what their columns need, the table the rest: its Info
    // column is what a reader reads.
    if (auto* events = m_firstPane->findChild<QSplitter*>("eventsSplitter")) {
        const int across = m_window->width() - side - 16;
        const int details = std::clamp(across * 27 / 100, 260, 420);
        events->setSizes({across - details, details});
    }
    m_firstPane->raise();
}

void PaneLayout::reset()
{
    if (m_maximizePanes && m_maximizePanes->isChecked()) m_maximizePanes->setChecked(false);
    m_window->restoreState(m_defaultLayout, kLayoutVersion);
    applyDefaultSizes();
}

QDockWidget* PaneLayout::currentPane() const
{
    // The tabs behind it are visible too, moved out of sight.
    for (QDockWidget* dock : m_window->findChildren<QDockWidget*>())
        if (m_window->dockWidgetArea(dock) == Qt::BottomDockWidgetArea && dock->isVisible() && !dock->isFloating() &&
            !dock->visibleRegion().isEmpty())
            return dock;
    return nullptr;
}

void PaneLayout::setPanesMaximized(bool maximized)
{
    QDockWidget* pane = currentPane();
    if (maximized) {
        if (!pane) return;
        m_unmaximizedLayout = m_window->saveState(kLayoutVersion);
        m_window->resizeDocks({pane}, {pane->height() + m_window->centralWidget()->height() - kTimelineStrip},
                              Qt::Vertical);
    } else if (!m_unmaximizedLayout.isEmpty()) {
        // The sizes as they were, exactly (resizing the tabs back can come out a few pixels
        // off); the panes opened or closed meanwhile and the one in front stay as they are.
        std::vector<std::pair<QDockWidget*, bool>> open;
        for (QDockWidget* dock : m_window->findChildren<QDockWidget*>())
            open.emplace_back(dock, dock->toggleViewAction()->isChecked());
        m_window->restoreState(std::exchange(m_unmaximizedLayout, {}), kLayoutVersion);
        for (const auto& [dock, shown] : open)
            if (dock->toggleViewAction()->isChecked() != shown) dock->setVisible(shown);
        if (pane) pane->raise();
    }
}

} // namespace ringside
