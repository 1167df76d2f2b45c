// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "store/eventstore.h"

#include <traceevent/event-parse.h>

namespace ringside {

// The libtraceevent view of a stored event whose raw record was read into `raw`.
inline tep_record toTepRecord(const EventStore& store, EventRef e, const RawRecord& raw)
{
    const Stream& stream = store.stream(e.stream);
    tep_record record{};
    record.ts = stream.columns.timestamp[e.index];
    record.cpu = stream.cpu;
    record.data = const_cast<uint8_t*>(raw.data);
    record.size = raw.size;
    return record;
}

} // namespace ringside
