// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include "jobs/jobtracker.h"
#include "latency/pairspec.h"
#include "state/tracesession.h"
#include "state/viewstate.h"

#include <QWidget>

#include <memory>
#include <optional>
#include <utility>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTabWidget;
class QTimer;
class QToolButton;

namespace ringside {

class LatencyResultView;

// Latency between two events (core/latency), in the window: a builder (a preset, or the start
// and end events picked from those recorded, the fields that match them picked from their
// formats, same task, same CPU, nesting) and a tab per analysis run, each with its statistics,
// histogram, slowest pairs and groups (LatencyResultView). An analysis pairs the recording's
// events on a worker, with its progress shown and Cancel at hand; several stay open at once.
class LatencyPane : public QWidget {
    Q_OBJECT
public:
    // The analyses shown are the view's (ViewState::latencies): a session keeps them.
    explicit LatencyPane(ViewState* view, QWidget* parent = nullptr);
    ~LatencyPane() override;
    // A recording whose store is complete, or null; the results of another recording go.
    void setSession(std::shared_ptr<TraceSession> session);
    // The builder set to a preset ("irq"), or to the custom pair when `name` is none.
    void choosePreset(const QString& name);
    // The pair the builder describes, or nullopt with why.
    std::optional<PairSpec> spec(QString* why = nullptr) const;
    void run();
    void cancel();
    // Unfolds the pair's definition (folded once a pair is made).
    void setBuilderShown(bool shown);
    bool builderShown() const { return m_builder->isVisibleTo(this); }
    bool running() const { return m_jobs.isRunning(); }
    // The recording's analyses went further (a capture grew, a load's analyses ended): the
    // tabs are made again over what they have now, one after another.
    void recordingGrew();
    // How many times a tab was made again so.
    int refreshes() const { return m_refreshes; }

    QComboBox* presets() const { return m_presets; }
    QComboBox* fromEvent() const { return m_from; }
    QComboBox* toEvent() const { return m_to; }
    QLineEdit* match() const { return m_match; }
    QLabel* status() const { return m_status; }
    // How well the pair being edited matches, over the recording's first events.
    QLabel* matchRate() const { return m_matchRate; }
    bool previewing() const;
    QTabWidget* results() const { return m_results; }
    LatencyResultView* currentResult() const;

signals:
    void jumpRequested(ringside::EventRef event, std::optional<std::pair<quint64, quint64>> span);
    void trackRequested(const QString& name, const QString& sql);

private:
    // New: the user's, a tab added and the view told; Restored: the view's, a tab added;
    // Refresh: tab `tab` made again over what the recording has now.
    enum class Making { New, Restored, Refresh };
    void make(const PairSpec& spec, Making making, int tab = -1);
    void makeNext();
    void sayNotMade();
    void followView();
    // What the tabs show, are being made and wait, in order.
    QVector<PairSpec> planned() const;
    void builderEdited();
    // The match rate of the pair as edited, made a moment after the last edit.
    void schedulePreview();
    void preview();
    void fillFieldsMenu();
    void fillEventLists();
    void updateButtons();
    std::vector<std::string> fieldsOf(const QString& event) const;
    const Trace::EventFormatNames* formatOf(const QString& event) const;

    ViewState* m_view;
    std::shared_ptr<TraceSession> m_session;
    // The recording's event formats with records, as fillEventLists() last read them (each
    // read walks every type under the handle's lock: not per keystroke).
    std::vector<Trace::EventFormatNames> m_formats;
    QVector<PairSpec> m_shown; // each tab's
    std::optional<PairSpec> m_making;
    QVector<PairSpec> m_queue; // a session's analyses still to be made
    bool m_editingView = false;
    QStringList m_notMade;     // the session's analyses that failed, with why
    QVector<int> m_refreshing; // tabs to make again
    bool m_grewMeanwhile = false;
    uint64_t m_rowsMade = 0; // the analysed rows the last making began with
    int m_refreshes = 0;
    JobTracker m_jobs;
    JobTracker m_preview;
    QTimer* m_previewTimer;
    uint64_t m_previewedRows = 0; // the events the match rate was last worked out over
    bool m_settingPreset = false;
    QWidget* m_builder;
    QToolButton* m_builderToggle;
    // The pane's height before the definition unfolded: given back when it folds, so that the
    // timeline is not left squeezed.
    int m_heightBeforeBuilder = 0;
    QComboBox* m_presets;
    QComboBox* m_from;
    QComboBox* m_to;
    QLineEdit* m_match;
    QLabel* m_counts;
    QToolButton* m_fields;
    QLineEdit* m_filterFrom;
    QLineEdit* m_filterTo;
    QCheckBox* m_sameTask;
    QCheckBox* m_sameCpu;
    QCheckBox* m_nesting;
    QPushButton* m_run;
    QPushButton* m_cancel;
    QLabel* m_status;
    QLabel* m_matchRate;
    QTabWidget* m_results;
};

} // namespace ringside
