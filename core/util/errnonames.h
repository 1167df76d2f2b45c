// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <cstdint>
#include <cstring>

namespace ringside {

// The name of a kernel error return value (-ret), or null. Beside the C library's names, those
// the kernel keeps to itself (include/linux/errno.h): a system call interrupted by a signal
// returns -ERESTARTSYS to the tracepoint before it is restarted or turned into EINTR.
// Header-only: plugins name errors with it too.
inline const char* kernelErrnoName(int64_t ret)
{
    if (ret >= 0 || ret < -4095) return nullptr;
    static const char* const kInternal[] = {
        "ERESTARTSYS",    "ERESTARTNOINTR", "ERESTARTNOHAND", "ENOIOCTLCMD", "ERESTART_RESTARTBLOCK",
        "EPROBE_DEFER",   "EOPENSTALE",     "ENOPARAM",       nullptr,       "EBADHANDLE",
        "ENOTSYNC",       "EBADCOOKIE",     "ENOTSUPP",       "ETOOSMALL",   "ESERVERFAULT",
        "EBADTYPE",       "EJUKEBOX",       "EIOCBQUEUED",    "ERECALLCONFLICT", "ENOGRACE"};
    const int64_t error = -ret;
    if (error >= 512 && error < 512 + int64_t(sizeof kInternal / sizeof kInternal[0])) return kInternal[error - 512];
    return strerrorname_np(int(error));
}

} // namespace ringside
