// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "plugin/plugintables.h"
#include "store/ids.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ringside {

// One event format a consumer reads, by name, and the fields it needs from each of its
// records. The request is bound only when the recording has the format and every field.
struct EventRequest {
    std::string system;
    std::string event;
    std::vector<std::string> fields;
    // Every event of `system` whose name starts with `event` (syscalls/sys_enter_*), each
    // bound when it has the fields; records say which by ConsumedRecord::type.
    bool prefix = false;
    // Per field, optional: the bytes of a number the consumer needs (its low bytes,
    // sign-extended as the format says), when the format's type is wider than the values
    // (a system call's number in a long). Records are kept until the load ends: millions of
    // them make every byte count. 0 or absent: the whole field.
    std::vector<uint8_t> narrow = {};
    // Fields, among `fields` or not, whose number is a pid naming a task other than the
    // record's own (sched_switch's next_pid, a woken pid, a created child): the core gives
    // every pid so named its task before the batch is fed, so that RecordingInfo::taskAt finds
    // it and task ids are the same in every run. A pid read from a field not listed here has a
    // task only when it has events of its own.
    std::vector<std::string> tasks = {};
};

// A field's value, decoded once by the registry so that consumers read numbers and text,
// never raw record bytes. Text views point into memory that lives until consume() returns.
class TypedValue {
public:
    static TypedValue number(uint64_t raw, bool isSigned, int bytes)
    {
        TypedValue v;
        v.setNumber(raw, isSigned, bytes);
        return v;
    }
    static TypedValue text(std::string_view text)
    {
        TypedValue v;
        v.setText(text);
        return v;
    }
    // In place: the registry decodes millions of fields into the same values, and a copied
    // temporary stalled on every one (its halves stored apart, then loaded as one).
    void setNumber(uint64_t raw, bool isSigned, int bytes)
    {
        m_kind = isSigned ? Kind::Signed : Kind::Unsigned;
        m_bits = raw;
        if (isSigned && bytes > 0 && bytes < 8 && (raw >> (bytes * 8 - 1)) & 1)
            m_bits = raw | (~uint64_t(0) << (bytes * 8)); // sign-extend
    }
    void setText(std::string_view text)
    {
        m_kind = Kind::Text;
        m_text = text;
    }

    bool isText() const { return m_kind == Kind::Text; }
    bool isSigned() const { return m_kind == Kind::Signed; }
    int64_t asSigned() const { return static_cast<int64_t>(m_bits); }
    uint64_t asUnsigned() const { return m_bits; }
    std::string_view asText() const { return m_text; }

private:
    enum class Kind { Unsigned, Signed, Text };
    Kind m_kind = Kind::Unsigned;
    uint64_t m_bits = 0;
    std::string_view m_text;
};

// Bits of common_flags, as the kernel's trace_flag_type has them.
enum TraceFlag : uint8_t {
    kFlagIrqsOff = 0x01,
    kFlagHardIrq = 0x08,
    kFlagSoftIrq = 0x10,
    kFlagNmi = 0x40,
    kFlagInterrupt = kFlagHardIrq | kFlagSoftIrq | kFlagNmi,
};

// One record delivered to a consumer: which of its requests it answers, where the event is,
// and the requested fields in the order the request named them.
struct ConsumedRecord {
    size_t request = 0;
    uint16_t type = 0; // the event's type (its format's id)
    uint64_t timestamp = 0;
    StreamId stream;
    uint32_t index = 0; // the event's index in its stream
    int32_t pid = 0;    // common_pid
    // The task the record is of: one life of `pid` (a pid handed to a new task later in the
    // recording is another task). What tables own rows by. Invalid when fed in pieces.
    TaskId task;
    uint8_t flags = 0; // common_flags: irqs-off, hardirq, softirq, NMI... (TraceFlag)
    const TypedValue* values = nullptr;
    size_t valueCount = 0;

    const TypedValue& field(size_t i) const { return values[i]; }
};

// What a consumer knows of a stream (one CPU of one buffer).
struct StreamInfo {
    int cpu = 0;
    uint16_t buffer = 0;
    uint64_t firstTimestamp = 0; // of its first event, 0 while it has none
    uint64_t lastTimestamp = 0;  // of its last event given so far
    // Its events stop before the recording's end (the file was cut inside them, or their load
    // was stopped): nothing is known of the CPU after lastTimestamp.
    bool endsEarly = false;
};

// A consumer's share of one stretch of one stream, fed while the pages are parsed (see
// RecordConsumer::fedInPieces): the stretch's records in stream order, on the parser's thread.
// Pieces of different stretches are fed at the same time. Rows a piece adds to its tables may
// name events by their index in the stretch (see Slice::endEvent).
class StreamPiece {
public:
    virtual ~StreamPiece() = default;
    // `record.index` counts from the stretch's first event (FedPiece::firstIndex places it).
    virtual void consume(const ConsumedRecord& record) = 0;
    // The kernel lost events of the stream just before `timestamp`.
    virtual void eventsLost(uint64_t timestamp) { (void)timestamp; }
    // The stretch's last record was given, on the same thread, before that thread asks for
    // another piece: what a piece holds may be handed on.
    virtual void end() {}
};

// A fed piece, and where its stretch sits in its stream.
struct FedPiece {
    StreamId stream;
    uint32_t firstIndex = 0;
    std::unique_ptr<StreamPiece> piece;
};

// An analysis fed with typed records in batches, as the store grows: a recording's pages once
// loaded (a recording is a capture that ends at once), a live capture's as they arrive. It
// needs no second pass over the pages and writes what it finds into typed tables. The
// registry calls setTables() and bind() once, then for each batch setStreams() and consume()
// for every record of its bound requests in merged time order (ties in stream order), then
// flush(); after the last batch, finish(). One consumer's calls never overlap, but different
// consumers may be fed at the same time on different threads: a consumer keeps to its own
// state. Readers may use the consumer between batches, never during one. Its logic takes plain
// values, so a test can drive it without a recording.
class RecordConsumer {
public:
    virtual ~RecordConsumer() = default;

    // A stable name: the registry's key, and what users and the CLI call it by.
    virtual std::string name() const = 0;
    virtual std::vector<EventRequest> requests() const = 0;

    // Where its track tables go: declare them here (the sinks stay valid as long as the
    // consumer) and add rows as records come. Before bind().
    virtual void setTables(TableSink& tables) { (void)tables; }
    // Which requests the recording satisfies, in the order requests() gave them.
    virtual void bind(const std::vector<bool>& bound) { (void)bound; }
    virtual void setStreams(const std::vector<StreamInfo>& streams) { (void)streams; }
    virtual void consume(const ConsumedRecord& record) = 0;
    // The kernel lost events of `stream` just before `timestamp` (in merged order among the
    // records): state that needs every record of that CPU is broken there.
    virtual void eventsLost(StreamId stream, uint64_t timestamp) { (void)stream, (void)timestamp; }
    // The end of a batch: derived state is brought up to date here.
    virtual void flush() {}
    // After the last batch (the recording's end, the capture stopped): what is still open (a
    // call not returned, a work item not run) goes into the tables as it stands.
    virtual void finish() {}

    // A consumer whose state needs each stream's records in order, never the merged order (a
    // system call enters and returns on its task's CPU, mostly), may be fed while the pages are
    // parsed, in parallel and without keeping its records until the load ends: it says so
    // here. newPiece() is then asked for a piece per stretch of a stream (from several threads
    // at once), and join() gets the pieces of a load or batch, in stream order and stretches in
    // order, after setStreams() and before flush(), on one thread. Such a consumer still takes
    // records in merged order through consume() where a caller feeds it that way.
    virtual bool fedInPieces() const { return false; }
    virtual std::unique_ptr<StreamPiece> newPiece(StreamId stream)
    {
        (void)stream;
        return nullptr;
    }
    virtual void join(std::vector<FedPiece> pieces) { (void)pieces; }
};

} // namespace ringside
