// SPDX-License-Identifier: GPL-2.0-or-later
#include "testsupport.h"

#include "analysis/tracktables.h"
#include "decode/eventformatter.h"
#include "decode/reportprinter.h"
#include "plugin/statstext.h"
#include "file/datfile.h"
#include "file/datwriter.h"
#include "file/spoolpagesource.h"
#include "load/pageparser.h"
#include "load/storeappender.h"

#include <traceevent/event-parse.h>

#include <QFile>
#include <QProcess>
#include <QTest>

#include <cstdio>

namespace ringside::test {

QString fixture(const QString& name)
{
    return QStringLiteral(RINGSIDE_TEST_DATA) + "/" + name;
}

std::string fixturePath(const QString& name)
{
    return fixture(name).toStdString();
}

bool writeFile(const QString& path, std::string_view bytes)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) &&
           file.write(bytes.data(), qint64(bytes.size())) == qint64(bytes.size());
}

std::string datFormatOf(const QString& path)
{
    auto file = DatFile::open(path.toStdString());
    if (!file) return "unreadable: " + file.error().message;
    return DatFormat{(*file)->info().version, (*file)->info().codec}.name();
}

QByteArray readXz(const QString& path)
{
    QProcess xz;
    xz.start("xz", {"-dc", path});
    if (!xz.waitForFinished(120000) || xz.exitCode() != 0) return {};
    return xz.readAllStandardOutput();
}

QByteArray dump(const Trace& trace)
{
    char* data = nullptr;
    size_t size = 0;
    FILE* out = open_memstream(&data, &size);
    ReportPrinter(trace).dump(out);
    std::fclose(out);
    QByteArray text(data, static_cast<qsizetype>(size));
    std::free(data);
    return text;
}

std::unique_ptr<Trace> openOrFail(const std::string& path)
{
    auto trace = Trace::open(path);
    if (!trace) {
        qWarning("%s", trace.error().message.c_str());
        return nullptr;
    }
    return std::move(trace.value());
}

QString firstDifference(const QByteArray& expected, const QByteArray& actual)
{
    const auto a = expected.split('\n');
    const auto b = actual.split('\n');
    for (qsizetype i = 0; i < std::max(a.size(), b.size()); ++i) {
        const QByteArray x = i < a.size() ? a[i] : "<end>";
        const QByteArray y = i < b.size() ? b[i] : "<end>";
        if (x != y)
            return QString("line %1:\n  expected: %2\n  actual:   %3")
                .arg(i + 1)
                .arg(QString::fromUtf8(x), QString::fromUtf8(y));
    }
    return {};
}

bool appendRunByRun(const DatFile& file, EventStore& store, const std::function<void(size_t)>& afterRound,
                    uint64_t* lateEvents)
{
    const FileInfo& info = file.info();
    auto names = file.newTep({}); // the file's saved comms, in a handle of this function's own
    if (!names) return false;
    tep_handle* tep = (*names)->get();
    StoreAppender appender(store, [tep](int32_t pid) { return std::string(tep_data_comm_from_pid(tep, pid)); });
    appender.addBuffer({"", info.traceClock, info.pageSize, {}, {}});
    appender.setLayout({info.kernelLongSize, info.bigEndian, 8});
    // The file's pages arrive run by run into memory, as a live capture's do from the pipe.
    std::vector<std::unique_ptr<PageSource>> sources;
    std::vector<SpoolPageSource*> live;
    for (const CpuDataInfo& cpu : file.buffers()[0].cpus) {
        sources.push_back(std::make_unique<FilePageSource>(file.mapping(), cpu, info.codec, info.pageSize));
        auto memory = std::make_unique<SpoolPageSource>(info.pageSize);
        live.push_back(memory.get());
        appender.addStream(0, cpu.cpu, std::move(memory));
    }
    TimestampConverter converter(info);
    std::vector<std::unique_ptr<PageParser>> parsers;
    for (size_t s = 0; s < sources.size(); ++s)
        parsers.push_back(std::make_unique<PageParser>(info.kernelLongSize, info.bigEndian, CommonLayout(), converter,
                                                       static_cast<int>(s)));
    std::vector<uint64_t> perType(65536);
    std::vector<uint8_t> buffer, scratch;
    size_t published = 0;
    for (size_t run = 0;; ++run) {
        bool any = false;
        for (size_t s = 0; s < sources.size(); ++s) {
            if (run >= sources[s]->runCount()) continue;
            any = true;
            const PageRun r = sources[s]->run(run);
            std::string reason;
            if (!sources[s]->readRun(r, buffer, scratch, &reason)) {
                QTest::qFail(reason.c_str(), __FILE__, __LINE__);
                return false;
            }
            live[s]->append(buffer.data(), r.pages);
            CpuColumns segment;
            CpuLoadStats stats;
            for (uint32_t p = 0; p < r.pages; ++p)
                parsers[s]->parse(buffer.data() + size_t(p) * info.pageSize, info.pageSize, segment, stats,
                                  perType.data());
            appender.append(StreamId(static_cast<uint16_t>(s)), std::move(segment));
        }
        if (!any) break;
        published += appender.publish(false);
        afterRound(published);
    }
    published += appender.publish(true);
    afterRound(published);
    if (lateEvents) *lateEvents = appender.lateEvents();
    return true;
}

ProgramRun runProgram(const QString& program, const QStringList& args, int timeoutMs)
{
    QProcess p;
    p.start(program, args);
    ProgramRun r;
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        return r;
    }
    r.status = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

std::vector<std::string> analysesText(const Trace& trace, TaskNaming naming)
{
    const EventStore& store = trace.store();
    const TaskIndex& tasks = trace.taskIndex();
    std::vector<std::string> out;
    for (const Trace::Analysis& analysis : trace.analyses()) {
        for (const auto& owned : analysis.tables->tables()) {
            const TrackTable& table = *owned;
            auto task = [&](uint32_t id) {
                if (id >= tasks.size()) return "task" + std::to_string(id); // none (an invalid id)
                const TaskIndex::Task t = tasks.task(TaskId(id));
                return (naming == TaskNaming::ById ? "#" + std::to_string(id) + ":" : std::string()) +
                       std::to_string(t.pid) + "@" + std::to_string(t.firstTime);
            };
            auto owner = [&](uint32_t id) { return table.owner() == RowOwner::Cpu ? "cpu" + std::to_string(id) : task(id); };
            std::vector<std::string> lines;
            auto line = [&](uint32_t o, std::initializer_list<std::string> cells) {
                std::string text = owner(o);
                for (const std::string& cell : cells) text += " " + cell;
                lines.push_back(std::move(text));
            };
            using std::to_string;
            switch (table.kind()) {
            case TrackTable::Kind::Intervals: {
                const auto& t = static_cast<const IntervalTable&>(table);
                auto state = [&](uint32_t s) { return t.spec().statesAreTasks ? task(s) : to_string(s); };
                for (uint32_t o = 0; o < std::max(t.byOwner().owners(), t.openOwners()); ++o) {
                    if (const auto* rows = t.byOwner().of(o))
                        for (size_t r = 0; r < rows->size(); ++r)
                            line(o, {to_string((*rows)[r].start), to_string((*rows)[r].end), state((*rows)[r].state)});
                    const IntervalRow open = t.openOf(o);
                    if (open.end) line(o, {to_string(open.start), "open", state(open.state)});
                }
                break;
            }
            case TrackTable::Kind::Slices: {
                const auto& t = static_cast<const SliceTable&>(table);
                EventFormatter formatter(trace);
                t.forEach(store, &tasks, [&](const SliceTable::View& v) {
                    std::string value = to_string(v.value);
                    if (t.valueFromEvent(v)) // kept in its end event: read as the views read it
                        for (const FieldValue& f : formatter.fields(v.endEvent))
                            if (f.name == t.spec().valueField) value = f.value;
                    line(v.owner, {to_string(v.start), to_string(v.end), t.labelText(v.label), value,
                                   to_string(v.flags), to_string(v.depth)});
                });
                break;
            }
            case TrackTable::Kind::Instants: {
                const auto& t = static_cast<const InstantTable&>(table);
                for (uint32_t o = 0; o < t.byOwner().owners(); ++o)
                    if (const auto* rows = t.byOwner().of(o))
                        for (size_t r = 0; r < rows->size(); ++r)
                            line(o, {to_string((*rows)[r].time), to_string((*rows)[r].label)});
                break;
            }
            case TrackTable::Kind::Counters: {
                const auto& t = static_cast<const CounterTable&>(table);
                for (uint32_t o = 0; o < t.byOwner().owners(); ++o)
                    if (const auto* rows = t.byOwner().of(o))
                        for (size_t r = 0; r < rows->size(); ++r)
                            line(o, {to_string((*rows)[r].time), to_string((*rows)[r].value)});
                break;
            }
            case TrackTable::Kind::Flows: {
                const auto& t = static_cast<const FlowTable&>(table);
                for (size_t r = 0; r < t.flows().size(); ++r) {
                    const FlowRow& f = t.flows()[r];
                    line(f.fromOwner, {to_string(f.fromTime), "->", owner(f.toOwner), to_string(f.toTime),
                                       to_string(f.value)});
                }
                break;
            }
            }
            std::sort(lines.begin(), lines.end());
            out.push_back("== " + analysis.name + " / " + table.key() + ": " + to_string(table.rows()) + " rows");
            out.insert(out.end(), lines.begin(), lines.end());
        }
    }
    const StatsContext context = trace.statsContext();
    for (const Plugin* plugin : trace.plugins()) {
        for (const StatsTable& table : *trace.statistics(*plugin)) {
            // A row a line, in an order of their own.
            std::vector<std::string> rows;
            const std::string json = tableJson(table, context);
            size_t start = 0;
            while (start < json.size()) {
                const size_t end = std::min(json.find('\n', start), json.size());
                std::string row = json.substr(start, end - start);
                if (!row.empty() && row.back() == ',') row.pop_back(); // the last row has none
                rows.push_back(std::move(row));
                start = end + 1;
            }
            std::sort(rows.begin(), rows.end());
            out.push_back("== " + plugin->name() + " / " + table.key);
            out.insert(out.end(), rows.begin(), rows.end());
        }
    }
    return out;
}

} // namespace ringside::test
