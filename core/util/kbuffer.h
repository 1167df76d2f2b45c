// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

// libtraceevent's kbuffer.h has no C++ linkage guard of its own.
extern "C" {
#include <traceevent/kbuffer.h>
}
