// SPDX-License-Identifier: GPL-2.0-or-later
#include "store/chunkedcolumn.h"

#include <new>
#include <sys/mman.h>

namespace ringside {

void* reserveDirectory(size_t bytes)
{
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    return p;
}

void releaseDirectory(void* directory, size_t bytes)
{
    if (directory) munmap(directory, bytes);
}

} // namespace ringside
