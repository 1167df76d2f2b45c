// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <QObject>

#include <functional>

class QWidget;

namespace ringside {

class TimelineWidget;

// The timeline's keys (W/S, A/D, markers, ...) anywhere in its window but in text fields:
// lists keep the arrows and Home they move by, and a widget with the kKeepsKeys property all
// its keys (kKeepsArrows: the arrows and Home). An application event filter; while
// `active` says no recording is shown, keys go where they were sent.
class TimelineKeys : public QObject {
    Q_OBJECT
public:
    static constexpr const char* kKeepsKeys = "ringsideKeepsKeys";
    static constexpr const char* kKeepsArrows = "ringsideKeepsArrows";

    TimelineKeys(QWidget* window, TimelineWidget* timeline, std::function<bool()> active);
    ~TimelineKeys() override;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QWidget* m_window;
    TimelineWidget* m_timeline;
    std::function<bool()> m_active;
};

} // namespace ringside
