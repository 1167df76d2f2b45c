// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "file/metadatastep.h"
#include "store/diagnostics.h"

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct tep_handle;

namespace ringside {

// The event id of a format's "ID: n" line, or nullopt.
std::optional<size_t> formatId(std::string_view format);
// The event name of a format's first line ("name: sched_switch").
std::string_view formatName(std::string_view format);

enum class ProbeVerdict { Checked, Unchecked, GaveUp };
// Past this many steps that crash or hang libtraceevent, the metadata is taken as garbage.
constexpr size_t kMaxUnsafeSteps = 32;

// Hands `steps` to libtraceevent through `apply`: each one after a child process survived it
// (ChildProbe: the probe program, or a forked copy when `fork` or the program is missing).
// Those that crash or hang the child are skipped, and recorded in `unsafe` (their ordinals)
// and in `diagnostics`.
ProbeVerdict probeAndApplySteps(std::vector<size_t>& unsafe, Diagnostics& diagnostics,
                                const std::vector<MetadataStep>& steps, const MetadataLayout& layout, bool fork,
                                const std::function<void(const MetadataStep&)>& apply);

// The events of `tep` whose print format libtraceevent could not parse (it keeps them, flagged
// as failed), among `ids` (all of them when null); said in `diagnostics` when there are any.
uint64_t countUnparsedFormats(tep_handle* tep, const std::vector<size_t>* ids, Diagnostics& diagnostics);

} // namespace ringside
