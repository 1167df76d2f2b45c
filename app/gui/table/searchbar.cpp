// SPDX-License-Identifier: GPL-2.0-or-later
#include "table/searchbar.h"

#include "query/search.h"
#include "table/eventtablemodel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QRegularExpression>

#include <algorithm>

namespace ringside {

SearchBar::SearchBar(EventTableModel* model, QWidget* parent) : QWidget(parent), m_model(model)
{
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 2, 4, 2);
    m_edit = new QLineEdit(this);
    m_edit->setPlaceholderText(tr("Search the table (Enter: next)"));
    m_edit->setClearButtonEnabled(true);
    m_column = new QComboBox(this);
    m_column->addItem(tr("All columns"), -1);
    for (int c = EventTableModel::Cpu; c < EventTableModel::ColumnCount; ++c)
        m_column->addItem(model->headerData(c, Qt::Horizontal).toString(), c);
    m_regex = new QCheckBox(tr("Regex"), this);
    auto* previousButton = new QPushButton(tr("Previous"), this);
    auto* nextButton = new QPushButton(tr("Next"), this);
    m_lastInTabOrder = nextButton;
    m_label = new QLabel(this);
    m_label->setMinimumWidth(150);
    layout->addWidget(m_edit, 1);
    layout->addWidget(m_column);
    layout->addWidget(m_regex);
    layout->addWidget(previousButton);
    layout->addWidget(nextButton);
    layout->addWidget(m_label);
    connect(m_edit, &QLineEdit::returnPressed, this, [this] {
        if (m_matches.empty() && !m_jobs.isRunning())
            start();
        else
            next(m_current >= 0 ? m_matches[size_t(m_current)] : -1);
    });
    connect(m_edit, &QLineEdit::textChanged, this, [this] {
        cancel();
        m_matches.clear();
        m_current = -1;
        updateLabel();
    });
    connect(m_column, &QComboBox::currentIndexChanged, this, [this] {
        if (!m_edit->text().isEmpty()) start();
    });
    connect(m_regex, &QCheckBox::toggled, this, [this] {
        if (!m_edit->text().isEmpty()) start();
    });
    connect(nextButton, &QPushButton::clicked, this, [this] {
        if (m_matches.empty())
            start();
        else
            next(m_current >= 0 ? m_matches[size_t(m_current)] : -1);
    });
    connect(previousButton, &QPushButton::clicked, this,
            [this] { previous(m_current >= 0 ? m_matches[size_t(m_current)] : m_model->rowCount()); });
    connect(model, &QAbstractItemModel::modelReset, this, [this] {
        cancel();
        m_matches.clear();
        m_current = -1;
        updateLabel();
    });
}

SearchBar::~SearchBar()
{
    cancel();
}

void SearchBar::setSession(std::shared_ptr<TraceSession> session)
{
    cancel();
    m_session = std::move(session);
    m_matches.clear();
    m_current = -1;
    updateLabel();
}

void SearchBar::cancel()
{
    m_jobs.cancel();
}

void SearchBar::start()
{
    cancel();
    m_matches.clear();
    m_current = -1;
    const QString text = m_edit->text();
    if (!m_session || text.isEmpty()) {
        updateLabel();
        return;
    }
    QRegularExpression pattern(m_regex->isChecked() ? text : QRegularExpression::escape(text),
                               QRegularExpression::CaseInsensitiveOption);
    if (!pattern.isValid()) {
        m_label->setText(tr("bad regex: %1").arg(pattern.errorString()));
        return;
    }
    const int column = m_column->currentData().toInt();
    m_label->setText(tr("searching…"));

    SearchRequest request;
    switch (column) {
    case EventTableModel::Cpu: request.column = SearchColumn::Cpu; break;
    case EventTableModel::Time: request.column = SearchColumn::Time; break;
    case EventTableModel::Task: request.column = SearchColumn::Task; break;
    case EventTableModel::Pid: request.column = SearchColumn::Pid; break;
    case EventTableModel::Latency: request.column = SearchColumn::Latency; break;
    case EventTableModel::Event: request.column = SearchColumn::Event; break;
    case EventTableModel::Info: request.column = SearchColumn::Info; break;
    default: request.column = SearchColumn::All; break;
    }
    if (m_regex->isChecked()) {
        // Matched from several threads at once; QRegularExpression is reentrant.
        request.match = [pattern](std::string_view text) {
            return pattern.match(QString::fromUtf8(text.data(), qsizetype(text.size()))).hasMatch();
        };
    } else {
        request.match = containsText(text.toStdString(), false);
    }
    const int fromRow = m_currentRow ? m_currentRow() : -1;
    request.firstFrom = size_t(std::max(fromRow, 0));

    auto session = m_session;
    // The model's rows as they are now: every event, or a filter's (immutable) row set.
    std::shared_ptr<const FilterResult> filter = m_model->sharedFilter();
    auto firstFound = m_firstFound = std::make_shared<std::atomic<long long>>(-1);
    m_shownEarly = -1;
    m_jobs.start(
        [session, filter, request, firstFound](JobTracker::Context& context) mutable {
            request.rows = filter ? &filter->merged : nullptr;
            int lastPercent = 0; // the search calls progress serialized
            // A progress report after the store: the GUI thread reads the row when it shows it.
            request.firstMatch = [&](size_t row) {
                firstFound->store((long long)row);
                context.reportProgress(lastPercent);
            };
            const std::vector<size_t> found =
                searchRows(*session->trace, request, context.cancelFlag(), [&](double done) {
                    const int percent = int(done * 100);
                    if (percent != lastPercent) context.reportProgress(lastPercent = percent);
                });
            return std::vector<int>(found.begin(), found.end());
        },
        [this, fromRow](std::vector<int> matches) { finished(std::move(matches), fromRow); },
        [this](const QString& message) { m_label->setText(tr("search failed: %1").arg(message)); },
        [this](int percent) {
            const long long first = m_firstFound ? m_firstFound->load() : -1;
            if (first >= 0 && m_shownEarly < 0) {
                m_shownEarly = int(first);
                emit rowFound(m_shownEarly);
            }
            m_label->setText(m_shownEarly >= 0 ? tr("first match shown · counting the rest… %1%").arg(percent)
                                               : tr("searching… %1%").arg(percent));
        });
}

void SearchBar::finished(std::vector<int> matches, int fromRow)
{
    m_matches = std::move(matches);
    m_current = -1;
    const int shown = std::exchange(m_shownEarly, -1);
    m_firstFound.reset();
    if (shown >= 0) {
        // Shown while the rest were counted: that match is the current one, not shown again.
        const auto it = std::lower_bound(m_matches.begin(), m_matches.end(), shown);
        if (it != m_matches.end() && *it == shown) m_current = int(it - m_matches.begin());
    }
    updateLabel();
    emit searchFinished();
    if (m_matches.empty() || m_current >= 0) return;
    // The first match at or after the selected row (wrapping): next() looks strictly after.
    next(fromRow - 1);
}

void SearchBar::next(int fromRow)
{
    if (m_matches.empty()) return;
    auto it = std::upper_bound(m_matches.begin(), m_matches.end(), fromRow);
    if (it == m_matches.end()) it = m_matches.begin(); // wrap around
    m_current = int(it - m_matches.begin());
    updateLabel();
    emit rowFound(*it);
}

void SearchBar::previous(int fromRow)
{
    if (m_matches.empty()) return;
    auto it = std::lower_bound(m_matches.begin(), m_matches.end(), fromRow);
    if (it == m_matches.begin()) it = m_matches.end();
    --it;
    m_current = int(it - m_matches.begin());
    updateLabel();
    emit rowFound(*it);
}

void SearchBar::updateLabel()
{
    if (m_jobs.isRunning()) return;
    if (m_edit->text().isEmpty())
        m_label->clear();
    else if (m_matches.empty())
        m_label->setText(tr("no matches"));
    else
        m_label->setText(tr("%1 of %2 matches")
                             .arg(QLocale().toString(m_current + 1), QLocale().toString(qulonglong(m_matches.size()))));
}

} // namespace ringside
