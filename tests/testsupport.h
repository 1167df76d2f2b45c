// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "trace.h"

#include <QByteArray>
#include <QString>

#include <memory>
#include <string>

namespace ringside::test {

QString fixture(const QString& name);
std::string fixturePath(const QString& name);

// Decompresses an .xz golden file with the xz tool (always present on Debian).
QByteArray readXz(const QString& path);

// The full `trace-cmd report`-style dump of a trace, as ringside-cli dump prints it.
QByteArray dump(const Trace& trace);

std::unique_ptr<Trace> openOrFail(const std::string& path);

// The first line where two texts differ, for a readable failure message.
QString firstDifference(const QByteArray& expected, const QByteArray& actual);

} // namespace ringside::test
