// SPDX-License-Identifier: GPL-2.0-or-later
#include "testsupport.h"

#include "decode/reportprinter.h"

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
                .arg(i + 1).arg(QString::fromUtf8(x), QString::fromUtf8(y));
    }
    return {};
}

} // namespace ringside::test
