// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "state/tracesession.h"

#include <QTreeWidget>

#include <optional>

namespace ringside {

// Everything about the selected event: its report line, its task, every field by name with
// type and value (decimal and hex, symbol for kernel addresses), and its event format.
class DetailsPane : public QTreeWidget {
    Q_OBJECT
public:
    explicit DetailsPane(QWidget* parent = nullptr);
    void setSession(const TraceSession* session);
    void showEvent(std::optional<EventRef> event);

protected:
    void resizeEvent(QResizeEvent* e) override;

private:
    void fitColumns();
    const TraceSession* m_session = nullptr;
};

} // namespace ringside
