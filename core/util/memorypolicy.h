// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

namespace ringside {

// Buffers of a megabyte and more get pages of their own, returned to the system when freed.
// A load builds and drops many such buffers (columns grown in steps, tables sealed, statistics
// made again) on several threads; in the heap their freed space stayed with the process and
// raised its peak by about a tenth. Call once, first thing in main().
void returnLargeBuffersWhenFreed();

// Hands the heap's free pages back to the system. Each thread allocates from its own arena,
// whose freed space no other thread reuses: what the loader's threads freed (pages read, the
// pieces' records) stayed resident through the analyses, about 60 MB of a 23M-event load. Call
// between phases that different threads run, not per batch (it walks the heaps).
void returnFreedMemory();

} // namespace ringside
