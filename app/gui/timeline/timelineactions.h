// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

class QMenu;

namespace ringside {

class TimelineWidget;
class ViewState;

// The View menu's zoom and marker entries and the Go menu's selection history, acting on the
// view the timeline shows; the wheel's preference, remembered.
void addTimelineActions(QMenu* viewMenu, QMenu* goMenu, ViewState& view, TimelineWidget* widget);

} // namespace ringside
