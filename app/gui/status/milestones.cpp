// SPDX-License-Identifier: GPL-2.0-or-later
#include "status/milestones.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>

namespace ringside::milestones {

namespace {
bool g_wanted = false;
std::chrono::steady_clock::time_point g_start;
std::set<std::string> g_reached;
} // namespace

void start()
{
    g_wanted = std::getenv("RINGSIDE_MILESTONES") != nullptr;
    g_start = std::chrono::steady_clock::now();
}

void reached(const char* name)
{
    if (!g_wanted || !g_reached.insert(name).second) return;
    const std::chrono::duration<double> since = std::chrono::steady_clock::now() - g_start;
    std::fprintf(stderr, "ringside milestone %s %.3f\n", name, since.count());
    std::fflush(stderr);
}

} // namespace ringside::milestones
