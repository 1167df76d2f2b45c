// SPDX-License-Identifier: GPL-2.0-or-later
#include "memorypolicy.h"

#include <malloc.h>

namespace ringside {

void returnLargeBuffersWhenFreed()
{
    // A fixed threshold: glibc otherwise raises it after each large free, which puts the
    // next large buffers back in the heap.
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
}

void returnFreedMemory()
{
    malloc_trim(0);
}

} // namespace ringside
