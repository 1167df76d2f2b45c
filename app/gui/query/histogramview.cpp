// SPDX-License-Identifier: GPL-2.0-or-later
#include "query/histogramview.h"

#include <QLocale>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace ringside {

HistogramView::HistogramView(QWidget* parent) : QWidget(parent)
{
    setMinimumHeight(120);
}

std::vector<HistogramView::Bin> HistogramView::binsOf(const std::vector<double>& values, bool* logarithmic)
{
    std::vector<Bin> bins;
    *logarithmic = false;
    if (values.empty()) return bins;
    const auto [lowIt, highIt] = std::minmax_element(values.begin(), values.end());
    const double low = *lowIt, high = *highIt;
    double lowPositive = high;
    for (double v : values)
        if (v > 0) lowPositive = std::min(lowPositive, v);
    if (high > 0 && high / lowPositive >= 1000) {
        // Powers of two: [2^k, 2^(k+1)); values of 0 and below (a run still going: dur -1) in
        // a bin of their own before them.
        *logarithmic = true;
        const bool nonPositive = low <= 0;
        if (nonPositive) bins.push_back({low, 0, 0});
        const size_t offset = bins.size();
        const int first = int(std::floor(std::log2(lowPositive))), last = int(std::floor(std::log2(high)));
        for (int k = first; k <= last; ++k) bins.push_back({std::ldexp(1.0, k), std::ldexp(1.0, k + 1), 0});
        for (double v : values) {
            if (v <= 0) {
                ++bins[0].count;
                continue;
            }
            ++bins[offset + size_t(std::clamp(int(std::floor(std::log2(v))) - first, 0, last - first))].count;
        }
        return bins;
    }
    const int n = high > low ? kLinearBins : 1;
    const double width = high > low ? (high - low) / n : 1;
    for (int i = 0; i < n; ++i) bins.push_back({low + i * width, i + 1 == n ? high : low + (i + 1) * width, 0});
    for (double v : values) ++bins[size_t(std::clamp(int((v - low) / width), 0, n - 1))].count;
    return bins;
}

void HistogramView::setValues(const QString& column, const std::vector<double>& values, bool durations)
{
    m_column = column;
    m_values = values.size();
    m_durations = durations;
    m_integers = std::all_of(values.begin(), values.end(), [](double v) { return v == std::floor(v); });
    m_bins = binsOf(values, &m_log);
    makeLabels();
    // A line per bin at least: the pane scrolls when they do not fit.
    setMinimumHeight(fontMetrics().height() * (int(m_bins.size()) + 1) + 2 * int(m_bins.size()) + 16);
    update();
}

void HistogramView::makeLabels()
{
    m_unit.clear();
    m_labels.clear();
    double scale = 1;
    if (m_durations) {
        double largest = 0;
        for (const Bin& b : m_bins) largest = std::max({largest, std::fabs(b.low), std::fabs(b.high)});
        const std::pair<double, const char*> units[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "\u00b5s"}, {1, "ns"}};
        for (const auto& [size, name] : units)
            if (largest >= size || size == 1) {
                scale = size, m_unit = QString::fromUtf8(name);
                break;
            }
    }
    // A duration's to 3 decimals of its unit; fractions to the decimals that tell the narrowest
    // bin's edges apart (3 at most); whole numbers as they are.
    int decimals = scale > 1 ? 3 : 0;
    if (scale == 1 && !m_integers) {
        double narrowest = 0;
        for (const Bin& b : m_bins)
            if (b.high > b.low) narrowest = narrowest > 0 ? std::min(narrowest, b.high - b.low) : b.high - b.low;
        decimals = std::clamp(int(std::ceil(-std::log10(narrowest > 0 ? narrowest : 1))) + 1, 0, 3);
    }
    const QLocale locale;
    auto number = [&](double v) {
        return scale == 1 && m_integers ? locale.toString(qlonglong(std::llround(v)))
                                        : locale.toString(v / scale, 'f', decimals);
    };
    for (const Bin& b : m_bins) m_labels << QStringLiteral("%1 – %2").arg(number(b.low), number(b.high));
}

void HistogramView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    const QFontMetrics fm = fontMetrics();
    const int line = fm.height();
    p.setPen(palette().text().color());
    p.drawText(QRect(8, 4, width() - 16, line), Qt::AlignLeft,
               tr("%1%2: %3 values%4")
                   .arg(m_column, m_unit.isEmpty() ? QString() : tr(" (%1)").arg(m_unit),
                        QLocale().toString(qulonglong(m_values)), m_log ? tr(", bins by powers of two") : QString()));
    if (m_bins.empty()) return;
    size_t most = 1;
    for (const Bin& b : m_bins) most = std::max(most, b.count);
    // One bin a line: its range, a bar as long as its share of the largest, its count.
    const QStringList& ranges = m_labels;
    int labelWidth = fm.horizontalAdvance(QStringLiteral("000,000 – 000,000")) + 8;
    for (const QString& range : ranges) labelWidth = std::max(labelWidth, fm.horizontalAdvance(range) + 8);
    labelWidth = std::min(labelWidth, width() / 2);
    const int countWidth = fm.horizontalAdvance(QStringLiteral("000,000,000")) + 8;
    const int barLeft = 8 + labelWidth, barWidth = std::max(20, width() - barLeft - countWidth - 8);
    const int rowHeight = std::max(line + 2, (height() - line - 12) / int(m_bins.size()));
    int y = line + 8;
    const QColor bar = palette().highlight().color();
    for (size_t i = 0; i < m_bins.size(); ++i) {
        const Bin& b = m_bins[i];
        p.setPen(palette().text().color());
        p.drawText(QRect(8, y, labelWidth - 8, rowHeight), Qt::AlignRight | Qt::AlignVCenter, ranges[qsizetype(i)]);
        const int length = int(double(barWidth) * double(b.count) / double(most));
        p.fillRect(QRect(barLeft, y + 2, std::max(b.count ? 1 : 0, length), rowHeight - 4), bar);
        p.drawText(QRect(barLeft + length + 4, y, countWidth, rowHeight), Qt::AlignLeft | Qt::AlignVCenter,
                   QLocale().toString(qulonglong(b.count)));
        y += rowHeight;
    }
}

} // namespace ringside
