// SPDX-License-Identifier: GPL-2.0-or-later
#include "file/metadatastep.h"

int main(int argc, char** argv)
{
    return ringside::runMetadataProbe(argc, argv);
}
