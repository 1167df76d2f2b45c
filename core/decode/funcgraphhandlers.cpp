// SPDX-License-Identifier: GPL-2.0-or-later
#include "decode/funcgraphhandlers.h"

#include "decode/recordpeek.h"

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include <string>

namespace ringside {

namespace {

constexpr int kIndentPerLevel = 2;

bool fieldValue(tep_event* event, const char* name, tep_record* record, unsigned long long* value)
{
    tep_format_field* field = tep_find_field(event, name);
    if (!field) field = tep_find_common_field(event, name);
    return field && tep_read_number_field(field, record->data, value) == 0;
}

void printFunction(trace_seq* s, tep_handle* tep, unsigned long long address, const char* suffix)
{
    const char* name = tep_find_function(tep, address);
    if (name)
        trace_seq_printf(s, "%s%s", name, suffix);
    else
        trace_seq_printf(s, "%llx%s", address, suffix);
}

// The marker before a duration: how long the call took, at a glance.
void printOverhead(trace_seq* s, unsigned long long duration, bool known)
{
    const char* mark = "  ";
    if (known) {
        if (duration > 1000000000ULL)
            mark = "$ ";
        else if (duration > 1000000ULL)
            mark = "# ";
        else if (duration > 100000ULL)
            mark = "! ";
        else if (duration > 10000ULL)
            mark = "+ ";
    }
    trace_seq_puts(s, mark);
}

// "12.345 us   |  ": microseconds with three decimals while they fit in seven characters.
void printDuration(trace_seq* s, unsigned long long duration)
{
    std::string text = std::to_string(duration / 1000);
    if (text.size() < 7) {
        char ns[8];
        snprintf(ns, sizeof ns, ".%03llu", duration % 1000);
        text += ns;
    }
    trace_seq_puts(s, text.c_str());
    trace_seq_puts(s, " us ");
    for (size_t i = text.size(); i < 7; ++i) trace_seq_putc(s, ' ');
    trace_seq_puts(s, "|  ");
}

void printIndent(trace_seq* s, unsigned long long depth, const FuncGraphContext* ctx)
{
    if (depth > (ctx ? ctx->indentLimit : kDumpIndentLimit)) {
        trace_seq_printf(s, "[depth %llu] ", depth);
        return;
    }
    for (long long i = 0; i < static_cast<long long>(depth) * kIndentPerLevel; ++i) trace_seq_putc(s, ' ');
}

int functionHandler(trace_seq* s, tep_record* record, tep_event* event, void*)
{
    unsigned long long ip = 0, parent = 0;
    if (!fieldValue(event, "ip", record, &ip)) return trace_seq_putc(s, '!');
    const char* name = tep_find_function(event->tep, ip);
    if (name)
        trace_seq_printf(s, "%s <-- ", name);
    else
        trace_seq_printf(s, "0x%llx", ip);
    if (!fieldValue(event, "parent_ip", record, &parent)) return trace_seq_putc(s, '!');
    name = tep_find_function(event->tep, parent);
    if (name)
        trace_seq_printf(s, "%s", name);
    else
        trace_seq_printf(s, "0x%llx", parent);
    return 0;
}

// Is `next` the exit of the call that `record` enters?
bool isOwnExit(tep_event* exitEvent, tep_record* record, tep_event* entry, tep_record* next)
{
    unsigned long long type = 0, pid = 0, nextPid = 0, func = 0, nextFunc = 0;
    if (!fieldValue(exitEvent, "common_type", next, &type) || type != static_cast<unsigned long long>(exitEvent->id))
        return false;
    return fieldValue(entry, "common_pid", record, &pid) && fieldValue(exitEvent, "common_pid", next, &nextPid) &&
           pid == nextPid && fieldValue(entry, "func", record, &func) &&
           fieldValue(exitEvent, "func", next, &nextFunc) && func == nextFunc;
}

int entryHandler(trace_seq* s, tep_record* record, tep_event* event, void* context)
{
    auto* ctx = static_cast<FuncGraphContext*>(context);
    tep_event* exitEvent =
        ctx && ctx->exitEvent ? ctx->exitEvent : tep_find_event_by_name(event->tep, "ftrace", "funcgraph_exit");
    if (ctx) ctx->exitEvent = exitEvent;
    unsigned long long depth = 0, func = 0;
    if (!exitEvent) return -1;
    if (!fieldValue(event, "func", record, &func)) return trace_seq_putc(s, '!');

    tep_record next{};
    const uint8_t* nextData = nullptr;
    bool leaf = false;
    if (ctx && ctx->peek && ctx->peek->peekNext(&nextData, &next.size)) {
        next.data = const_cast<uint8_t*>(nextData);
        leaf = isOwnExit(exitEvent, record, event, &next);
    }
    if (leaf) {
        ctx->peek->consumeNext();
        unsigned long long rettime = 0, calltime = 0;
        if (!fieldValue(exitEvent, "rettime", &next, &rettime) || !fieldValue(exitEvent, "calltime", &next, &calltime))
            return trace_seq_putc(s, '!');
        printOverhead(s, rettime - calltime, true);
        printDuration(s, rettime - calltime);
        if (!fieldValue(event, "depth", record, &depth)) return trace_seq_putc(s, '!');
        printIndent(s, depth, ctx);
        printFunction(s, event->tep, func, "();");
        return 0;
    }
    printOverhead(s, 0, false);
    trace_seq_puts(s, "           |  ");
    if (!fieldValue(event, "depth", record, &depth)) return trace_seq_putc(s, '!');
    printIndent(s, depth, ctx);
    printFunction(s, event->tep, func, "() {");
    return 0;
}

int exitHandler(trace_seq* s, tep_record* record, tep_event* event, void* context)
{
    unsigned long long rettime = 0, calltime = 0, depth = 0;
    if (!fieldValue(event, "rettime", record, &rettime) || !fieldValue(event, "calltime", record, &calltime))
        return trace_seq_putc(s, '!');
    printOverhead(s, rettime - calltime, true);
    printDuration(s, rettime - calltime);
    if (!fieldValue(event, "depth", record, &depth)) return trace_seq_putc(s, '!');
    printIndent(s, depth, static_cast<const FuncGraphContext*>(context));
    trace_seq_putc(s, '}');
    return 0;
}

} // namespace

bool funcGraphFolds(tep_handle* tep, tep_record* entry, tep_record* next)
{
    tep_event* entryEvent = tep_find_event_by_name(tep, "ftrace", "funcgraph_entry");
    tep_event* exitEvent = tep_find_event_by_name(tep, "ftrace", "funcgraph_exit");
    if (!entryEvent || !exitEvent) return false;
    unsigned long long type = 0;
    if (!fieldValue(entryEvent, "common_type", entry, &type) || type != static_cast<unsigned long long>(entryEvent->id))
        return false;
    return isOwnExit(exitEvent, entry, entryEvent, next);
}

void useOwnFunctionHandler(tep_handle* tep)
{
    tep_register_event_handler(tep, -1, "ftrace", "function", functionHandler, nullptr);
}

void registerFuncGraphHandlers(tep_handle* tep, FuncGraphContext* context)
{
    tep_register_event_handler(tep, -1, "ftrace", "function", functionHandler, nullptr);
    tep_register_event_handler(tep, -1, "ftrace", "funcgraph_entry", entryHandler, context);
    tep_register_event_handler(tep, -1, "ftrace", "funcgraph_exit", exitHandler, context);
}

} // namespace ringside
