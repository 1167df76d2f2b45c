// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace ringside {

// Pieces 0..count-1 made on several threads and taken on the calling thread in order: text
// output (a report, an export) formatted in parallel and written as one stream. At most
// `window` pieces are made and not yet taken, so memory stays flat however many there are.
//
// `make(worker, piece, text)` fills `text` (empty on entry) and returns how many items it
// holds; each worker index runs on one thread. `take(piece, text, items)` consumes a piece
// and returns false to stop: the pieces not made yet are skipped, those under way finish.
// With one worker everything runs on the calling thread. Returns the items taken; an exception
// `make` throws on a worker stops the rest and is rethrown here.
size_t makeInOrder(size_t count, size_t workers, const std::function<size_t(size_t, size_t, std::string&)>& make,
                   const std::function<bool(size_t, std::string&, size_t)>& take);

} // namespace ringside
