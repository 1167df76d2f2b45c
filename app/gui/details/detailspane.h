// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "state/tracesession.h"

#include <QTreeWidget>

#include <optional>

namespace ringside {

// Everything about the selected event: its report line, its task, every field by name with
// type and value (decimal and hex, symbol for kernel addresses), and its event format. A
// selected call comes first: its function, times, depth, return value, parent and children.
class DetailsPane : public QTreeWidget {
    Q_OBJECT
public:
    explicit DetailsPane(QWidget* parent = nullptr);
    void setSession(const TraceSession* session);
    void showEvent(std::optional<EventRef> event, std::optional<uint32_t> call = std::nullopt);

protected:
    void resizeEvent(QResizeEvent* e) override;

private:
    void fitColumns();
    void addCall(uint32_t call);
    const TraceSession* m_session = nullptr;
};

} // namespace ringside
