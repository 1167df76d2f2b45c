// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "file/datfile.h"

#include <string>
#include <vector>

namespace ringside {

// Reads a trace-cmd data file top to bottom into `out` (its mapping set): the header, the
// options and sections (v7) or the inline metadata (v6), the buffers and their CPU data's
// place, and the metadata into `out`'s libtraceevent handle. False with `error` said when the
// file cannot be read. With `metadataOnly`, stops before the CPU data; with `types`, parses
// only the formats of those event ids (and the ftrace system's), as DatFile::newTep does.
// `knownUnsafe`: the metadata steps an earlier open of the same file found unsafe; without
// it, the steps are checked in a child process.
bool parseDatFile(DatFile& out, const DatFile::OpenOptions& options, std::string* error, bool metadataOnly = false,
                  const std::vector<bool>* types = nullptr, const std::vector<size_t>* knownUnsafe = nullptr);

} // namespace ringside
