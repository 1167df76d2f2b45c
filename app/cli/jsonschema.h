// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

// The versions of ringside-cli's JSON documents, each document's first key ("schema"): scripts
// read them, so a change of a document's shape (a key added, renamed, moved or retyped) bumps
// its number, on purpose. README's "Machine-readable output" lists them; tst_cli pins each
// version's shape (tests/data/json-shapes/).
namespace ringside::cli::schema {

inline constexpr const char* kInfo = "ringside.info/1";
inline constexpr const char* kCallTree = "ringside.calltree/1";
inline constexpr const char* kCallTreeEach = "ringside.calltree-each/1";
inline constexpr const char* kFunctionHits = "ringside.function-hits/1"; // calltree/funcstats of a function tracer recording
inline constexpr const char* kFuncstats = "ringside.funcstats/1";
// The envelope and how cells are written (a task as {"pid", "comm"}, an event as its time);
// each plugin's tables have a version of their own, "plugin_schema" (Plugin::statisticsVersion).
inline constexpr const char* kStats = "ringside.stats/1";
inline constexpr const char* kKvm = "ringside.kvm/1";
inline constexpr const char* kLatency = "ringside.latency/1";

} // namespace ringside::cli::schema
