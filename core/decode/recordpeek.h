// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <cstdint>

namespace ringside {

// How a printer lets the function_graph handlers look one record ahead: trace-cmd prints an
// entry whose very next record (in the buffer's merged order) is its own exit as a leaf
// "func();" and then does not print that exit. The handlers ask for that next record and,
// when they fold it into the leaf, say so with consumeNext().
class RecordPeek {
public:
    virtual ~RecordPeek() = default;
    // The next record, valid until the next call; false when there is none or it is unreadable.
    virtual bool peekNext(const uint8_t** data, int* size) = 0;
    virtual void consumeNext() = 0;
};

} // namespace ringside
