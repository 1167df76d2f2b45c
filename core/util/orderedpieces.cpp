// SPDX-License-Identifier: GPL-2.0-or-later
#include "util/orderedpieces.h"

#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace ringside {

size_t makeInOrder(size_t count, size_t workers, const std::function<size_t(size_t, size_t, std::string&)>& make,
                   const std::function<bool(size_t, std::string&, size_t)>& take)
{
    size_t taken = 0;
    if (workers <= 1 || count <= 1) {
        std::string text;
        for (size_t p = 0; p < count; ++p) {
            text.clear();
            const size_t items = make(0, p, text);
            taken += items;
            if (!take(p, text, items)) break;
        }
        return taken;
    }

    // Workers take the next piece number and wait while it is too far ahead of the taker.
    const size_t window = workers * 4;
    struct Slot {
        std::string text;
        size_t items = 0;
        bool ready = false;
    };
    std::vector<Slot> slots(window);
    std::mutex mutex;
    std::condition_variable changed;
    size_t next = 0; // the piece the taker waits for
    bool stopped = false;
    std::atomic<size_t> nextPiece{0};
    std::vector<std::thread> pool;
    std::exception_ptr failure; // a worker's exception, rethrown on the calling thread
    for (size_t w = 0; w < workers; ++w) {
        pool.emplace_back([&, w] {
            try {
                std::string text;
                for (size_t p = nextPiece++; p < count; p = nextPiece++) {
                    {
                        std::unique_lock lock(mutex);
                        changed.wait(lock, [&] { return stopped || p < next + window; });
                        if (stopped) return;
                    }
                    text.clear();
                    const size_t items = make(w, p, text);
                    std::lock_guard lock(mutex);
                    Slot& slot = slots[p % window];
                    std::swap(slot.text, text);
                    slot.items = items;
                    slot.ready = true;
                    changed.notify_all();
                }
            } catch (...) {
                std::lock_guard lock(mutex);
                if (!failure) failure = std::current_exception();
                stopped = true;
                changed.notify_all();
            }
        });
    }
    std::string text;
    for (size_t p = 0; p < count; ++p) {
        size_t items = 0;
        {
            std::unique_lock lock(mutex);
            Slot& slot = slots[p % window];
            changed.wait(lock, [&] { return slot.ready || failure; });
            if (failure) break;
            std::swap(text, slot.text);
            items = slot.items;
            slot.ready = false;
            next = p + 1;
        }
        changed.notify_all();
        taken += items;
        bool goOn = false;
        std::exception_ptr takeFailure;
        try {
            goOn = take(p, text, items);
        } catch (...) {
            takeFailure = std::current_exception();
        }
        if (!goOn) {
            std::lock_guard lock(mutex);
            if (takeFailure && !failure) failure = takeFailure;
            stopped = true;
            changed.notify_all();
            break;
        }
    }
    for (auto& t : pool) t.join();
    if (failure) std::rethrow_exception(failure);
    return taken;
}

} // namespace ringside
