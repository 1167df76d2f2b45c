// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "util/result.h"

#include <memory>
#include <string>
#include <sys/types.h>
#include <vector>

namespace ringside {

// A running ringside-capture, started by the program that reads its stream: directly when
// this process is root, through pkexec (the polkit policy in packaging/) when it is not, so
// that only the helper runs privileged. Its stdin is this side's pipe: stop() writes the word
// to stop, and if this process dies the pipe closes and the helper stops by itself, removing
// its tracing instance.
class CaptureProcess {
public:
    static Result<std::unique_ptr<CaptureProcess>> start(const std::vector<std::string>& arguments);
    ~CaptureProcess();

    // The helper's stream (captureprotocol.h).
    int streamFd() const { return m_stream; }
    pid_t pid() const { return m_pid; }
    // Asks the helper to stop: it sends what the buffers hold, the end's metadata and End.
    void stop();
    // Waits for the helper to exit; its exit status (-1 when it was killed by a signal).
    int wait();
    // Why a helper that ended with `status` before saying anything did not record: pkexec's
    // refusal (or no polkit to ask) named as such.
    std::string endedBeforeRecording(int status) const;

    // What the kernel offers (ringside-capture --list): "tracer NAME", "clock NAME" and
    // "event SYSTEM:NAME" lines; or why tracefs cannot be read.
    static Result<std::string> listOffer();

    // The helper program: installed beside the programs, or as built.
    static std::string helperPath();

private:
    pid_t m_pid = -1;
    int m_stream = -1;
    int m_control = -1;
    bool m_waited = false;
    bool m_throughPkexec = false;
};

} // namespace ringside
