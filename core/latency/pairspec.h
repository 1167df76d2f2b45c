// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ringside {

// What an event-pair analysis pairs: each end event closes the open start event with the same
// key. The key is made of the fields named in `fields` (the start's field, the end's field:
// irq and irq, or sched_waking's pid and sched_switch's next_pid), plus the task of both
// records (`sameTask`) and their CPU (`sameCpu`).
//
// When a start comes while another start of its key is open, the newer one replaces it and the
// older counts as an unmatched start, as the kernel's histogram triggers keep the latest value
// of a key; with `nesting`, both stay open and an end closes the innermost (re-entrant pairs).
// An end with no open start of its key is an unmatched end; starts still open at the
// recording's end are unmatched starts. Nothing is guessed.
struct PairSpec {
    std::string name;     // what the analysis is called ("irq", or the user's)
    std::string from, to; // "system/event", or "event" alone when only one system has it
    std::vector<std::pair<std::string, std::string>> fields;
    bool sameTask = false;
    bool sameCpu = false;
    bool nesting = false;
    // Conditions each side's records must meet, in libtraceevent's filter syntax ("prio < 100",
    // as after the ':' of `trace-cmd report -F`); empty: every record. Only a recording already
    // loaded is paired with them (LoadedPairs). With one event on both sides, a record is an end
    // when it meets filterTo and a start when it meets filterFrom.
    std::string filterFrom = {}, filterTo = {};
    // A text field's beginning each side's records must have: trace_marker's print events keep
    // their text in a flexible array (`char buf[]`) that libtraceevent's filters read as empty,
    // so the print preset's B| and E| marks are told apart here. Empty: every record. Like the
    // filters, only a recording already loaded is paired with them.
    struct TextPrefix {
        std::string field, prefix;
        bool operator==(const TextPrefix&) const = default;
        bool empty() const { return prefix.empty(); }
    };
    TextPrefix startText = {}, endText = {};

    bool operator==(const PairSpec&) const = default;

    // "irq" or "pid=next_pid" as --match takes it.
    static std::pair<std::string, std::string> parseField(std::string_view text);
    // How the spec matches, for people: "irq, on the same CPU".
    std::string matchDescription() const;
    // The same as a sentence goes on: "matched by irq, on the same CPU", or "paired on the
    // same task" when no field is matched.
    std::string pairingDescription() const { return (fields.empty() ? "paired " : "matched by ") + matchDescription(); }
    // Adds conditions to each side's own (a preset's): a record must meet both.
    void refineFilters(const std::string& from, const std::string& to);
};

// The common pairs by name (irq, softirq, block, wakeup, waking, syscall, workqueue, kmalloc,
// offcpu, print).
std::optional<PairSpec> presetPair(std::string_view name);
std::vector<std::string> presetPairNames();

} // namespace ringside
