// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

class QMenu;
class QWidget;

namespace ringside {

// Help > Keys and Mouse, Manual (the README, as the package's users read it) and About
// (the versions of Ringside, Qt, libtraceevent and libtracefs). Each opens a window of its
// own, not modal; `parent` owns them.
void addHelpActions(QMenu* help, QWidget* parent);

} // namespace ringside
