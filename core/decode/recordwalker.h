// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "store/eventstore.h"

#include <functional>

namespace ringside {

// Visits the raw records of one stream whose event type is in `types` (a 65536-entry mask),
// in order, reading each page once: for analyses that need fields of many events (task
// states from sched_switch, call trees), where readRecord per event would re-read pages.
// Safe on any thread: it touches only the stream's page source and columns.
void walkRecords(const EventStore& store, StreamId stream, const std::vector<bool>& types,
                 const std::function<void(uint32_t index, const uint8_t* data, int size)>& visit);

} // namespace ringside
