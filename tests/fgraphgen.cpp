// SPDX-License-Identifier: GPL-2.0-or-later
// ringside-fgraph-gen: writes a made-up function_graph recording of a chosen shape and size,
// for the call-tree tests and the 1M/10M-record benchmark (see FuncGraphShape).
#include "support/funcgraphwriter.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

int main(int argc, char** argv)
{
    ringside::test::FuncGraphShape shape;
    const char* out = nullptr;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const bool value = i + 1 < argc;
        if (a == "--records" && value)
            shape.records = std::strtoull(argv[++i], nullptr, 10);
        else if (a == "--cpus" && value)
            shape.cpus = std::max(1, std::atoi(argv[++i]));
        else if (a == "--tasks" && value)
            shape.tasks = std::max(1, std::atoi(argv[++i]));
        else if (a == "--depth" && value)
            shape.maxDepth = std::max(1, std::atoi(argv[++i]));
        else if (a == "--migrate" && value)
            shape.migrateChance = std::atof(argv[++i]);
        else if (a == "--lost" && value)
            shape.lostChance = std::atof(argv[++i]);
        else if (a == "--interrupts" && value)
            shape.interruptChance = std::atof(argv[++i]);
        else if (a == "--seed" && value)
            shape.seed = uint32_t(std::strtoul(argv[++i], nullptr, 10));
        else if (a == "--retval")
            shape.retval = true;
        else if (a == "--unbalanced")
            shape.unbalanced = true;
        else if (!out && a[0] != '-')
            out = argv[i];
        else {
            out = nullptr;
            break;
        }
    }
    if (!out) {
        std::fputs("usage: ringside-fgraph-gen OUT.dat [--records N] [--cpus C] [--tasks T] [--depth D]\n"
                   "       [--retval] [--migrate P] [--lost P] [--interrupts P] [--unbalanced] [--seed S]\n",
                   stderr);
        return 2;
    }
    const std::string bytes = ringside::test::writeFuncGraphRecording(shape);
    FILE* f = std::fopen(out, "wb");
    if (!f || std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size() || std::fclose(f) != 0) {
        std::fprintf(stderr, "ringside-fgraph-gen: cannot write %s: %s\n", out, std::strerror(errno));
        return 1;
    }
    return 0;
}
