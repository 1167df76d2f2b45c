// SPDX-License-Identifier: GPL-2.0-or-later
// A steady load for the capture benchmark: getppid() RATE times a second for SECONDS, each call
// two raw_syscalls events. usage: ringside-syscall-load [RATE [SECONDS]]
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
int main(int argc, char** argv) {
    double rate = argc > 1 ? atof(argv[1]) : 600000, seconds = argc > 2 ? atof(argv[2]) : 30;
    double start = now();
    long done = 0;
    for (;;) {
        double t = now() - start;
        if (t >= seconds) break;
        long due = (long)(t * rate);
        while (done < due) { syscall(SYS_getppid); ++done; }
    }
    fprintf(stderr, "%ld calls in %.2f s: %.0f/s\n", done, now() - start, done / (now() - start));
    return 0;
}
