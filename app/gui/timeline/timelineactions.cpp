// SPDX-License-Identifier: GPL-2.0-or-later
#include "timeline/timelineactions.h"

#include "state/viewstate.h"
#include "timeline/timelinemath.h"
#include "timeline/timelinewidget.h"

#include <QAction>
#include <QMenu>
#include <QSettings>

namespace ringside {

void addTimelineActions(QMenu* viewMenu, QMenu* goMenu, ViewState& view, TimelineWidget* widget)
{
    // About the middle of what is shown, as the keys do.
    auto zoom = [&view](double factor) {
        const timeline::TimeRange shown = view.visibleRange();
        view.setVisibleRange(timeline::zoomAround(shown, shown.start + shown.span() / 2, factor, view.fullRange()));
    };
    viewMenu->addAction(QObject::tr("Zoom &In"), QKeySequence(QObject::tr("Ctrl+=")), widget, [zoom] { zoom(0.5); })
        ->setObjectName("zoomInAction");
    viewMenu->addAction(QObject::tr("Zoom &Out"), QKeySequence(QObject::tr("Ctrl+-")), widget, [zoom] { zoom(2.0); })
        ->setObjectName("zoomOutAction");
    viewMenu->addAction(QObject::tr("Zoom to &Fit"), QKeySequence(QObject::tr("Ctrl+0")), &view, &ViewState::zoomToFit)
        ->setObjectName("zoomFitAction");
    viewMenu->addAction(QObject::tr("Zoom &Back"), QKeySequence(QObject::tr("Alt+Left")), &view, &ViewState::zoomBack)
        ->setObjectName("zoomBackAction");
    viewMenu
        ->addAction(QObject::tr("Zoom &Forward"), QKeySequence(QObject::tr("Alt+Right")), &view,
                    &ViewState::zoomForward)
        ->setObjectName("zoomForwardAction");
    viewMenu
        ->addAction(QObject::tr("Zoom to Markers A–B"), QKeySequence(QObject::tr("Ctrl+M")), &view,
                    &ViewState::zoomToMarkers)
        ->setObjectName("zoomMarkersAction");
    viewMenu->addAction(QObject::tr("Clear Markers"), &view, &ViewState::clearMarkers)
        ->setObjectName("clearMarkersAction");
    viewMenu->addSeparator();
    QAction* wheel = viewMenu->addAction(QObject::tr("Mouse Wheel Zooms (Ctrl+Wheel Scrolls)"));
    wheel->setObjectName("wheelZoomsAction");
    wheel->setCheckable(true);
    wheel->setChecked(QSettings().value("preferences/wheelZooms", false).toBool());
    widget->setWheelZooms(wheel->isChecked());
    QObject::connect(wheel, &QAction::toggled, widget, [widget](bool on) {
        widget->setWheelZooms(on);
        QSettings().setValue("preferences/wheelZooms", on);
    });
    viewMenu->addSeparator();

    goMenu->addAction(QObject::tr("Previous Selection"), QKeySequence(QObject::tr("Ctrl+[")), &view,
                      &ViewState::selectBack)
        ->setObjectName("selectBackAction");
    goMenu->addAction(QObject::tr("Next Selection"), QKeySequence(QObject::tr("Ctrl+]")), &view,
                      &ViewState::selectForward)
        ->setObjectName("selectForwardAction");
    QAction* previousMarkers =
        goMenu->addAction(QObject::tr("Previous Markers (Before a Go-To)"), QKeySequence(QObject::tr("Ctrl+Alt+M")),
                          &view, &ViewState::restoreMarkers);
    previousMarkers->setObjectName("previousMarkersAction");
    previousMarkers->setEnabled(view.canRestoreMarkers());
    QObject::connect(&view, &ViewState::markersChanged, previousMarkers,
                     [previousMarkers, &view] { previousMarkers->setEnabled(view.canRestoreMarkers()); });
}

} // namespace ringside
