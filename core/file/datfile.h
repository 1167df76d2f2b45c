// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "file/fileinfo.h"
#include "store/diagnostics.h"
#include "util/mappedfile.h"
#include "util/result.h"

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

struct tep_handle;
struct tep_plugin_list;

namespace ringside {

// A libtraceevent handle of its own (formats, functions, printk formats, comms and plugins
// as the file's own), for one thread that decodes in parallel with others: libtraceevent
// caches lookups inside the handle, so a handle is never shared between threads.
class TepHandle {
public:
    ~TepHandle();
    TepHandle(const TepHandle&) = delete;
    TepHandle& operator=(const TepHandle&) = delete;
    tep_handle* get() const { return m_tep; }

private:
    friend class DatFile;
    TepHandle() = default;
    tep_handle* m_tep = nullptr;
    tep_plugin_list* m_plugins = nullptr;
};

// A trace-cmd .dat file (version 6 or 7, sectioned, zstd/zlib or uncompressed) opened for
// reading: its header, options, buffers and the event formats, kallsyms, printk formats and
// saved comms parsed into a libtraceevent handle. Owns the mapping the CPU data is read from.
// Immutable after open(); the tep handle is not thread-safe and is used by one thread at a time.
class DatFile {
public:
    struct OpenOptions {
        // Called with the fresh tep handle before libtraceevent's plugins load, so that
        // handlers registered here are overridden by plugins exactly as in trace-cmd.
        std::function<void(tep_handle*)> beforePlugins;
        bool loadPlugins = true;
        // Keep the kallsyms text for the caller to register (see registerDeferredKallsyms)
        // instead of parsing it during open; lets a loader overlap it with page parsing.
        bool deferKallsyms = false;
        // Hand the metadata to libtraceevent only after a child process survived it (see
        // ChildProbe); off only for metadata known to be sound (written from a live kernel).
        bool checkMetadata = true;
        // Check it in a forked copy of this process even when the probe program is there
        // (tests of both ways).
        bool forkMetadataProbe = false;
        // Parse only the ftrace system's event formats and those `eagerFormat` names now, the
        // others once the events present are known (parseDeferredFormats): a recording holds
        // thousands of formats and uses a few dozen, and parsing (and checking) them was most
        // of an open.
        bool deferFormats = false;
        std::function<bool(std::string_view system, std::string_view name)> eagerFormat;
    };

    static Result<std::unique_ptr<DatFile>> open(const std::string& path, const OpenOptions& options);
    static Result<std::unique_ptr<DatFile>> open(const std::string& path) { return open(path, OpenOptions()); }
    ~DatFile();

    const std::string& path() const { return m_file->path(); }
    const FileInfo& info() const { return m_info; }
    const std::vector<BufferInfo>& buffers() const { return m_buffers; }
    const Diagnostics& diagnostics() const { return m_diagnostics; }
    const std::shared_ptr<MappedFile>& mapping() const { return m_file; }

    // Builds another tep handle from the file's metadata (not its CPU data); `beforePlugins`
    // as in OpenOptions. With `types` (a mask by event id), formats of other events outside
    // the ftrace system are skipped: parsing them is most of the cost. Safe on any thread:
    // it reads only the immutable mapping.
    Result<std::unique_ptr<TepHandle>> newTep(const std::function<void(tep_handle*)>& beforePlugins,
                                              const std::vector<bool>* types = nullptr) const;

    // Task names learned after the open (a live capture's tasks as they appear, and the
    // saved_cmdlines text it brings at its end), replacing names known before: registered with
    // the file's handle now (by the thread that holds it) and with every handle newTep() builds
    // from now on.
    void addSavedComms(const std::string& cmdlines) const;
    // The last name addSavedComms gave `pid`, or empty (the tep handle's names may also come
    // from events printed since: those are not the saved ones).
    std::string addedComm(int32_t pid) const;

    // Registers the kallsyms kept by deferKallsyms with the tep handle; call once, while no
    // other thread uses the handle's function table.
    void registerDeferredKallsyms();

    // Parses (after the same check) the deferred formats of the event types that have events
    // (typeCounts by id), adding what it finds to `diagnostics` too, while no other thread uses
    // the handle. A growing load calls it as new types appear; `final` counts are the
    // recording's, and the formats of types without events then stay unparsed for good.
    void parseDeferredFormats(const std::vector<uint64_t>& typeCounts, Diagnostics& diagnostics, bool final = true);

    // A format left for parseDeferredFormats: its system, its text and event id.
    struct DeferredFormat {
        std::string system;
        std::string text;
        size_t ordinal = 0;
        size_t id = 0;
    };
    // Until the final parseDeferredFormats: those not parsed yet.
    const std::vector<DeferredFormat>& deferredFormats() const { return m_deferredFormats; }
    // After the final one: the names of the deferred formats no event used.
    const std::vector<std::string>& formatsWithoutEvents() const { return m_formatsWithoutEvents; }

private:
    friend class DatFileParser;
    // The file's own handle is the trace's, reached through Trace::tep() alone (its lock).
    friend class Trace;
    tep_handle* tep() const { return m_tep; }
    DatFile() = default;

    std::shared_ptr<MappedFile> m_file;
    FileInfo m_info;
    std::vector<BufferInfo> m_buffers;
    Diagnostics m_diagnostics;
    tep_handle* m_tep = nullptr;
    tep_plugin_list* m_plugins = nullptr;
    bool m_loadPlugins = true;
    bool m_checkMetadata = true;
    bool m_forkMetadataProbe = false;
    std::string m_deferredKallsyms;
    // Ordinals of the metadata steps that crashed or hung libtraceevent in a child process.
    std::vector<size_t> m_unsafeMetadata;
    // Formats left for parseDeferredFormats, and the ids of those parsed (empty: all were).
    std::vector<DeferredFormat> m_deferredFormats;
    std::vector<bool> m_parsedTypes;
    std::vector<std::string> m_formatsWithoutEvents;
    mutable std::mutex m_addedCommsLock;
    mutable std::map<int32_t, std::string> m_addedComms; // addSavedComms: each pid's last name
};

} // namespace ringside
