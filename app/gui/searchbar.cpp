// SPDX-License-Identifier: GPL-2.0-or-later
#include "searchbar.h"

#include "eventtablemodel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMetaObject>
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
    m_label = new QLabel(this);
    m_label->setMinimumWidth(150);
    layout->addWidget(m_edit, 1);
    layout->addWidget(m_column);
    layout->addWidget(m_regex);
    layout->addWidget(previousButton);
    layout->addWidget(nextButton);
    layout->addWidget(m_label);
    connect(m_edit, &QLineEdit::returnPressed, this, [this] {
        if (m_matches.empty() && !m_running) start();
        else next(m_current >= 0 ? m_matches[size_t(m_current)] : -1);
    });
    connect(m_edit, &QLineEdit::textChanged, this, [this] { cancel(); m_matches.clear(); m_current = -1; updateLabel(); });
    connect(m_column, &QComboBox::currentIndexChanged, this, [this] { if (!m_edit->text().isEmpty()) start(); });
    connect(m_regex, &QCheckBox::toggled, this, [this] { if (!m_edit->text().isEmpty()) start(); });
    connect(nextButton, &QPushButton::clicked, this, [this] {
        if (m_matches.empty()) start();
        else next(m_current >= 0 ? m_matches[size_t(m_current)] : -1);
    });
    connect(previousButton, &QPushButton::clicked, this, [this] {
        previous(m_current >= 0 ? m_matches[size_t(m_current)] : m_model->rowCount());
    });
    connect(model, &QAbstractItemModel::modelReset, this, [this] { cancel(); m_matches.clear(); m_current = -1; updateLabel(); });
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
    if (m_cancel) m_cancel->store(true);
    ++m_generation;
    m_running = false;
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
    const int generation = m_generation;
    auto cancelFlag = std::make_shared<std::atomic<bool>>(false);
    m_cancel = cancelFlag;
    m_running = true;
    m_label->setText(tr("searching…"));
    // The model's rows as they are now: all events or a filter's.
    auto session = m_session;
    const int rows = m_model->rowCount();
    QPointer<SearchBar> self(this);
    // Rows are mapped to events on the worker through the model's (immutable) filter.
    std::shared_ptr<const FilterResult> filter = m_model->sharedFilter();
    m_workers.start([self, session, filter, rows, column, pattern, generation, cancelFlag] {
        const EventStore& store = session->store();
        std::vector<int> matches;
        for (int row = 0; row < rows && !cancelFlag->load(); ++row) {
            const size_t storeRow = filter ? filter->merged.select(size_t(row)) : size_t(row);
            const EventRef e = store.eventAt(storeRow);
            auto cell = [&](int col) { return EventTableModel::cellText(*session, e, col); };
            bool hit = false;
            if (column >= 0) hit = pattern.match(cell(column)).hasMatch();
            else
                for (int col = EventTableModel::Cpu; col < EventTableModel::ColumnCount && !hit; ++col)
                    hit = pattern.match(cell(col)).hasMatch();
            if (hit) matches.push_back(row);
        }
        if (cancelFlag->load()) return;
        QMetaObject::invokeMethod(self, [self, generation, matches = std::move(matches)]() mutable {
            if (!self || self->m_generation != generation) return;
            self->m_running = false;
            self->m_matches = std::move(matches);
            self->m_current = -1;
            self->updateLabel();
            emit self->searchFinished();
            if (!self->m_matches.empty()) self->next(-1);
        }, Qt::QueuedConnection);
    });
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
    if (m_running) return;
    if (m_edit->text().isEmpty()) m_label->clear();
    else if (m_matches.empty()) m_label->setText(tr("no matches"));
    else m_label->setText(tr("%1 of %2 matches").arg(m_current + 1).arg(m_matches.size()));
}

} // namespace ringside
