// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "tracesession.h"

#include <QTreeWidget>

namespace ringside {

// Trace health: per CPU how many events were loaded, lost in the ring buffer and overrun
// (from the kernel's stats), and every load diagnostic.
class HealthPane : public QTreeWidget {
    Q_OBJECT
public:
    explicit HealthPane(QWidget* parent = nullptr);
    void setSession(const TraceSession* session);

protected:
    void resizeEvent(QResizeEvent* e) override;
};

} // namespace ringside
