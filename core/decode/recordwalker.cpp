// SPDX-License-Identifier: GPL-2.0-or-later
#include "decode/recordwalker.h"

namespace ringside {

void walkRecords(const EventStore& store, StreamId id, const std::vector<bool>& types,
                 const std::function<void(uint32_t, const uint8_t*, int)>& visit)
{
    forEachRecord(store, id, types, visit);
}

} // namespace ringside
