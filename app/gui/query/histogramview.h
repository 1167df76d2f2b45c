// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <QString>
#include <QStringList>
#include <QWidget>

#include <vector>

namespace ringside {

// A numeric column of a query's result as a histogram: equal bins between its smallest and
// largest value, or powers of two when the values are positive and span three decades or more
// (latencies), each bar labelled with its range and count. Every range reads in one format:
// a duration column's in one unit (the largest edge's: "48.950 – 67.304 ms"), integers with
// separators, fractions to the decimals their bins' width needs; never in e-notation.
class HistogramView : public QWidget {
    Q_OBJECT
public:
    struct Bin {
        double low = 0, high = 0;
        size_t count = 0;
    };
    static constexpr int kLinearBins = 20;

    explicit HistogramView(QWidget* parent = nullptr);
    // `durations`: the values are nanoseconds.
    void setValues(const QString& column, const std::vector<double>& values, bool durations = false);
    // Each bin's range as drawn, and the unit they are in (empty for plain numbers).
    const QStringList& labels() const { return m_labels; }
    const QString& unit() const { return m_unit; }
    const std::vector<Bin>& bins() const { return m_bins; }
    bool logarithmic() const { return m_log; }
    // The bins of `values`, as drawn.
    static std::vector<Bin> binsOf(const std::vector<double>& values, bool* logarithmic);

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    QString m_column;
    std::vector<Bin> m_bins;
    bool m_log = false;
    bool m_durations = false;
    bool m_integers = true; // every value is a whole number
    // Made with the bins, not per paint.
    void makeLabels();
    QString m_unit;
    QStringList m_labels;
    size_t m_values = 0;
};

} // namespace ringside
