#include "views/chartsview.h"

#include "core/session/session_export.h"

#include "core/common/diagnostics.h"
#include "core/session/session_store.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QDateTimeAxis>
#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QImage>
#include <QInputDialog>
#include <QLineEdit>
#include <QLabel>
#include <QFileInfo>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QMessageBox>
#include <QPainter>
#include <QPushButton>
#include <QScatterSeries>
#include <QSettings>
#include <QTabWidget>
#include <QTimer>
#include <QValueAxis>
#include <QVBoxLayout>

#include <algorithm>
#include <map>

namespace spyglass {

using session::RowId;

namespace {

const QString kDatabaseKey = QStringLiteral("sessions/databasePath");

QString qs(const std::string& s) { return QString::fromStdString(s); }

// CSV needs full precision and a dot decimal separator whatever the locale.
QString num(double v) { return QString::number(v, 'g', 17); }

// The session export's quoting (and its formula-injection escape): one CSV dialect for the CLI and the GUI.
QString csvField(const QString& s) { return QString::fromStdString(session::csvField(s.toStdString())); }

QString runLabel(const session::RunInfo& r)
{
    QString label = QStringLiteral("#%1 %2").arg(r.id).arg(qs(r.kind));
    if (!r.artifact.path.empty())
        label += QLatin1Char(' ') + qs(r.artifact.path);
    label += QStringLiteral("  ") + qs(r.startedAt).left(19).replace(QLatin1Char('T'), QLatin1Char(' '));
    if (r.status != session::RunStatus::Ok)
        label += QStringLiteral(" [") + QString::fromLatin1(session::runStatusName(r.status)) + QLatin1Char(']');
    return label;
}

qint64 msSinceEpoch(const std::string& iso)
{
    return QDateTime::fromString(qs(iso), Qt::ISODateWithMs).toMSecsSinceEpoch();
}

// Replaces the chart's series and axes; Qt Charts keeps axes attached to a chart until removed.
void clearChart(QChart* chart)
{
    chart->removeAllSeries();
    for (QAbstractAxis* axis : chart->axes()) {
        chart->removeAxis(axis);
        delete axis;
    }
}

QValueAxis* valueAxis(const QString& title, double maxValue)
{
    auto* axis = new QValueAxis;
    axis->setTitleText(title);
    axis->setRange(0, maxValue > 0 ? maxValue * 1.1 : 1.0);
    axis->setLabelFormat(QStringLiteral("%.4g"));
    return axis;
}

RowId comboId(const QComboBox* c)
{
    return c->currentIndex() >= 0 ? c->currentData().toLongLong() : 0;
}

RowId comboId(const QComboBox* c, int index) { return c->itemData(index).toLongLong(); }

// Where the combos keep the artifact path of an entry, so the open document's can be found.
constexpr int kPathRole = Qt::UserRole + 1;

void selectComboId(QComboBox* c, RowId id)
{
    const int i = c->findData(QVariant::fromValue<qlonglong>(id));
    if (i >= 0)
        c->setCurrentIndex(i);
}

}  // namespace

QString sessionDatabasePath()
{
    const QString configured = QSettings().value(kDatabaseKey).toString();
    return configured.isEmpty() ? qs(session::SessionStore::defaultPath()) : configured;
}

void setSessionDatabasePath(const QString& path)
{
    if (path.isEmpty())
        QSettings().remove(kDatabaseKey);
    else
        QSettings().setValue(kDatabaseKey, path);
}

WindowSession::WindowSession(const QString& name, const QString& databasePath)
    : store_(std::make_unique<session::SessionStore>((databasePath.isEmpty() ? sessionDatabasePath() : databasePath).toStdString()))
{
    const QString sessionName =
        name.isEmpty() ? QStringLiteral("window ") + QDateTime::currentDateTime().toString(QStringLiteral("yyyy-MM-dd HH:mm")) : name;
    id_ = store_->createSession(sessionName.toStdString());
}

WindowSession::~WindowSession()
{
    try {
        store_->endSession(id_);
    } catch (const std::exception&) {
        // The database went away (disk full, file deleted): the session keeps its last run's end time.
    }
}

void WindowSession::rename(const QString& name)
{
    if (!name.trimmed().isEmpty())
        store_->renameSession(id_, name.trimmed().toStdString());
}

ChartsView::ChartsView(session::SessionStore* store, QWidget* parent) : QWidget(parent)
{
    buildUi();
    poll_ = new QTimer(this);
    poll_->setInterval(2000);
    connect(poll_, &QTimer::timeout, this, &ChartsView::pollForChanges);
    poll_->start();
    setStore(store);
}

ChartsView::~ChartsView() = default;

void ChartsView::buildUi()
{
    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Session:"), this));
    sessionCombo_ = new QComboBox(this);
    sessionCombo_->setObjectName(QStringLiteral("sessionCombo"));
    sessionCombo_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    top->addWidget(sessionCombo_, 1);
    renameButton_ = new QPushButton(tr("Rename…"), this);
    auto* refresh = new QPushButton(tr("Refresh"), this);
    auto* png = new QPushButton(tr("Export PNG…"), this);
    auto* csv = new QPushButton(tr("Export CSV…"), this);
    for (QPushButton* b : {renameButton_, refresh, png, csv})
        top->addWidget(b);

    tabs_ = new QTabWidget(this);
    const std::array<QString, 4> titles = {tr("Kernels"), tr("History"), tr("Compare"), tr("Quantum")};
    std::array<QHBoxLayout*, 4> selectors{};
    for (int i = 0; i < 4; ++i) {
        auto* page = new QWidget(tabs_);
        auto* layout = new QVBoxLayout(page);
        layout->setContentsMargins(2, 2, 2, 2);
        selectors[i] = new QHBoxLayout;
        layout->addLayout(selectors[i]);
        auto* chart = new QChart;
        // Docked, the charts are wide and short: the legend goes to the side and the margins shrink, so the
        // vertical room is the plot's and the axis labels are not elided.
        chart->legend()->setAlignment(Qt::AlignRight);
        chart->setMargins(QMargins(2, 2, 2, 2));
        views_[i] = new QChartView(chart, page);
        views_[i]->setRenderHint(QPainter::Antialiasing);
        // 200 px left a 90 px plot in the default 1600x1000 layout, with the kernel names and the axis titles
        // elided (tests/gui/tst_docked_charts).
        views_[i]->setMinimumSize(320, 280);
        layout->addWidget(views_[i], 1);
        tabs_->addTab(page, titles[i]);
    }
    auto addCombo = [this](QHBoxLayout* row, const QString& label, const char* name) {
        row->addWidget(new QLabel(label, this));
        auto* combo = new QComboBox(this);
        combo->setObjectName(QLatin1String(name));
        combo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
        row->addWidget(combo, 1);
        return combo;
    };
    kernelRunCombo_ = addCombo(selectors[0], tr("Run:"), "kernelRunCombo");
    artifactCombo_ = addCombo(selectors[1], tr("Artifact:"), "artifactCombo");
    metricCombo_ = addCombo(selectors[1], tr("Metric:"), "metricCombo");
    for (auto m : {session::RunMetric::SimulatedTime, session::RunMetric::CompileWallTime, session::RunMetric::SimulationWallTime})
        metricCombo_->addItem(QString::fromLatin1(session::runMetricName(m)), static_cast<int>(m));
    followPath_ = new QCheckBox(tr("All versions of this file"), this);
    followPath_->setObjectName(QStringLiteral("followPathCheck"));
    followPath_->setToolTip(tr("Include runs of earlier and later contents of the same path, not only these exact bytes"));
    selectors[1]->addWidget(followPath_);
    compareFirstCombo_ = addCombo(selectors[2], tr("Run A:"), "compareFirstCombo");
    compareSecondCombo_ = addCombo(selectors[2], tr("Run B:"), "compareSecondCombo");
    selectors[3]->addWidget(new QLabel(tr("Simulation wall time of every circuit run in the session, by qubit count"), this));

    status_ = new QLabel(this);
    status_->setWordWrap(true);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(tabs_, 1);
    layout->addWidget(status_);

    connect(sessionCombo_, &QComboBox::currentIndexChanged, this, [this] {
        if (reloading_)
            return;
        reloadRunChoices();
        emit sessionSelected(selectedSession());
    });
    connect(kernelRunCombo_, &QComboBox::currentIndexChanged, this, [this] { if (!reloading_) drawKernels(); });
    connect(artifactCombo_, &QComboBox::currentIndexChanged, this, [this] {
        if (reloading_)
            return;
        pickMetricWithData();
        drawHistory();
    });
    connect(metricCombo_, &QComboBox::currentIndexChanged, this, [this] { if (!reloading_) drawHistory(); });
    connect(followPath_, &QCheckBox::toggled, this, [this] { if (!reloading_) drawHistory(); });
    connect(compareFirstCombo_, &QComboBox::currentIndexChanged, this, [this] { if (!reloading_) drawCompare(); });
    connect(compareSecondCombo_, &QComboBox::currentIndexChanged, this, [this] { if (!reloading_) drawCompare(); });
    connect(renameButton_, &QPushButton::clicked, this, &ChartsView::renameDialog);
    connect(refresh, &QPushButton::clicked, this, &ChartsView::reload);
    connect(png, &QPushButton::clicked, this, &ChartsView::exportPngDialog);
    connect(csv, &QPushButton::clicked, this, &ChartsView::exportCsvDialog);
}

void ChartsView::setStore(session::SessionStore* store)
{
    store_ = store;
    lastDataVersion_ = -1;
    reload();
}

void ChartsView::reload()
{
    if (store_) {
        try {
            lastDataVersion_ = store_->dataVersion();
            lastLocalChanges_ = store_->localChanges();
        } catch (const std::exception&) {
            lastDataVersion_ = lastLocalChanges_ = -1;
        }
    }
    reloadSessionChoices();
    reloadRunChoices();
}

void ChartsView::pollForChanges()
{
    if (!store_ || !isVisible())
        return;
    try {
        if (store_->dataVersion() != lastDataVersion_ || store_->localChanges() != lastLocalChanges_)
            reload();
    } catch (const std::exception& e) {
        status_->setText(tr("Cannot read the session database: %1").arg(QString::fromLocal8Bit(e.what())));
    }
}

void ChartsView::reloadSessionChoices()
{
    const RowId keep = selectedSession();
    reloading_ = true;
    sessionCombo_->clear();
    if (store_) {
        try {
            for (const auto& s : store_->listSessions())
                sessionCombo_->addItem(QStringLiteral("#%1 %2 (%3 runs, %4)")
                                           .arg(s.id)
                                           .arg(qs(s.name))
                                           .arg(s.runCount)
                                           .arg(qs(s.startedAt).left(16).replace(QLatin1Char('T'), QLatin1Char(' '))),
                                       QVariant::fromValue<qlonglong>(s.id));
        } catch (const std::exception& e) {
            status_->setText(tr("Cannot read the session database: %1").arg(QString::fromLocal8Bit(e.what())));
        }
    }
    // Keep the user's choice; otherwise show the newest session.
    sessionCombo_->setCurrentIndex(sessionCombo_->count() - 1);
    if (keep)
        selectComboId(sessionCombo_, keep);
    renameButton_->setEnabled(sessionCombo_->count() > 0);
    reloading_ = false;
}

void ChartsView::reloadRunChoices()
{
    const RowId session = selectedSession();
    // A selection on the newest run follows new runs as they arrive; any other selection stays put.
    auto kept = [](const QComboBox* c) { return c->currentIndex() == c->count() - 1 ? RowId(0) : comboId(c); };
    const RowId keepKernelRun = kept(kernelRunCombo_), keepArtifact = comboId(artifactCombo_);
    const RowId keepFirst = comboId(compareFirstCombo_), keepSecond = kept(compareSecondCombo_);
    reloading_ = true;
    for (QComboBox* c : {kernelRunCombo_, artifactCombo_, compareFirstCombo_, compareSecondCombo_})
        c->clear();
    if (store_ && session) {
        try {
            for (const auto& r : store_->runs(session)) {
                const auto d = store_->runDetail(r.id);
                const QString label = runLabel(r);
                if (d && !d->kernels.empty())
                    kernelRunCombo_->addItem(label, QVariant::fromValue<qlonglong>(r.id));
                if (d && (!d->kernels.empty() || !d->passes.empty()))
                    for (QComboBox* c : {compareFirstCombo_, compareSecondCombo_}) {
                        c->addItem(label, QVariant::fromValue<qlonglong>(r.id));
                        c->setItemData(c->count() - 1, qs(r.artifact.path), kPathRole);
                    }
            }
            for (const auto& a : session::sessionArtifacts(*store_, session))
            {
                artifactCombo_->addItem(QStringLiteral("%1 (%2, %3)").arg(qs(a.path), qs(a.kind), qs(a.contentHash).left(12)),
                                        QVariant::fromValue<qlonglong>(a.id));
                artifactCombo_->setItemData(artifactCombo_->count() - 1, qs(a.path), kPathRole);
            }
        } catch (const std::exception& e) {
            status_->setText(tr("Cannot read the session database: %1").arg(QString::fromLocal8Bit(e.what())));
        }
    }
    // Defaults: the latest run with kernels, the most recently used artifact, the last two runs.
    kernelRunCombo_->setCurrentIndex(kernelRunCombo_->count() - 1);
    const int n = compareFirstCombo_->count();
    compareFirstCombo_->setCurrentIndex(std::max(0, n - 2) < n ? std::max(0, n - 2) : -1);
    compareSecondCombo_->setCurrentIndex(n - 1);
    if (keepKernelRun)
        selectComboId(kernelRunCombo_, keepKernelRun);
    if (keepArtifact)
        selectComboId(artifactCombo_, keepArtifact);
    if (keepFirst)
        selectComboId(compareFirstCombo_, keepFirst);
    if (keepSecond)
        selectComboId(compareSecondCombo_, keepSecond);
    if (comboId(artifactCombo_) != keepArtifact)
        pickMetricWithData();
    reloading_ = false;
    drawKernels();
    drawHistory();
    drawCompare();
    drawQuantum();
}

namespace {

bool samePath(const QString& a, const QString& b) { return !a.isEmpty() && QFileInfo(a).absoluteFilePath() == QFileInfo(b).absoluteFilePath(); }

}  // namespace

void ChartsView::showArtifact(const QString& path)
{
    reload();
    // The artifacts are most recently used first: the first with this path is the bytes just compiled.
    for (int i = 0; i < artifactCombo_->count(); ++i)
        if (samePath(artifactCombo_->itemData(i, kPathRole).toString(), path)) {
            artifactCombo_->setCurrentIndex(i);
            break;
        }
    std::vector<int> runs;   // this artifact's comparable runs, in start order
    for (int i = 0; i < compareFirstCombo_->count(); ++i)
        if (samePath(compareFirstCombo_->itemData(i, kPathRole).toString(), path))
            runs.push_back(i);
    if (runs.size() >= 2)
        selectComparison(comboId(compareFirstCombo_, runs[runs.size() - 2]), comboId(compareFirstCombo_, runs.back()));
}

QString ChartsView::shownArtifactPath() const { return artifactCombo_->currentData(kPathRole).toString(); }

void ChartsView::selectSession(RowId id)
{
    if (selectedSession() != id) {
        selectComboId(sessionCombo_, id);
        if (selectedSession() != id) {   // a session created after our last reload
            reload();
            selectComboId(sessionCombo_, id);
        }
    }
}

RowId ChartsView::selectedSession() const { return comboId(sessionCombo_); }

void ChartsView::renameSelectedSession(const QString& name)
{
    if (!store_ || !selectedSession() || name.trimmed().isEmpty())
        return;
    store_->renameSession(selectedSession(), name.trimmed().toStdString());
    reload();
}

void ChartsView::renameDialog()
{
    if (!selectedSession())
        return;
    const auto s = store_->session(selectedSession());
    bool ok = false;
    const QString name = QInputDialog::getText(this, tr("Rename session"), tr("Name:"), QLineEdit::Normal,
                                               s ? qs(s->name) : QString(), &ok);
    if (ok)
        renameSelectedSession(name);
}

void ChartsView::pickMetricWithData()
{
    // A new artifact: keep the metric if it has points, else take the first that has (a circuit has no
    // simulated kernel time, a compile-only model no simulation time).
    const RowId artifactId = comboId(artifactCombo_);
    if (!store_ || !artifactId)
        return;
    const auto current = static_cast<session::RunMetric>(metricCombo_->currentData().toInt());
    if (!session::artifactHistory(*store_, artifactId, current).empty())
        return;
    const bool wasReloading = reloading_;
    reloading_ = true;
    for (int i = 0; i < metricCombo_->count(); ++i)
        if (!session::artifactHistory(*store_, artifactId, static_cast<session::RunMetric>(metricCombo_->itemData(i).toInt())).empty()) {
            metricCombo_->setCurrentIndex(i);
            break;
        }
    reloading_ = wasReloading;
}

void ChartsView::selectKernelRun(RowId runId) { selectComboId(kernelRunCombo_, runId); }
void ChartsView::selectArtifact(RowId artifactId) { selectComboId(artifactCombo_, artifactId); }

void ChartsView::setHistoryMetric(session::RunMetric metric)
{
    metricCombo_->setCurrentIndex(metricCombo_->findData(static_cast<int>(metric)));
}

void ChartsView::setHistoryFollowsPath(bool followPath) { followPath_->setChecked(followPath); }

void ChartsView::selectComparison(RowId firstRun, RowId secondRun)
{
    selectComboId(compareFirstCombo_, firstRun);
    selectComboId(compareSecondCombo_, secondRun);
}

void ChartsView::showChart(Chart c) { tabs_->setCurrentIndex(static_cast<int>(c)); }
ChartsView::Chart ChartsView::currentChart() const { return static_cast<Chart>(tabs_->currentIndex()); }
QChart* ChartsView::chart(Chart c) const { return views_[static_cast<size_t>(c)]->chart(); }
QChartView* ChartsView::chartView(Chart c) const { return views_[static_cast<size_t>(c)]; }

void ChartsView::drawKernels()
{
    QChart* chart = this->chart(Chart::Kernels);
    clearChart(chart);
    kernels_.clear();
    const RowId runId = comboId(kernelRunCombo_);
    const auto d = store_ && runId ? store_->runDetail(runId) : std::nullopt;
    if (!d) {
        chart->setTitle(tr("No run with simulated kernels in this session"));
        return;
    }
    kernels_ = d->kernels;
    chart->setTitle(tr("Simulated time per kernel, run #%1").arg(runId));
    auto* set = new QBarSet(tr("simulated time (ns)"));
    QStringList names;
    double maxValue = 0;
    for (const auto& k : kernels_) {
        *set << k.simNs;
        names << qs(k.name);
        maxValue = std::max(maxValue, k.simNs);
    }
    auto* series = new QBarSeries;
    series->append(set);
    chart->addSeries(series);
    auto* x = new QBarCategoryAxis;
    x->append(names);
    x->setLabelsAngle(names.size() > 6 ? -60 : 0);
    auto* y = valueAxis(tr("simulated time (ns)"), maxValue);
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(x);
    series->attachAxis(y);
}

void ChartsView::drawHistory()
{
    QChart* chart = this->chart(Chart::History);
    clearChart(chart);
    history_.clear();
    const RowId artifactId = comboId(artifactCombo_);
    const auto metric = static_cast<session::RunMetric>(metricCombo_->currentData().toInt());
    if (!store_ || !artifactId) {
        chart->setTitle(tr("No artifact in this session"));
        return;
    }
    history_ = session::artifactHistory(*store_, artifactId, metric, session::kRegressionThreshold,
                                        followPath_->isChecked() ? session::ArtifactMatch::SamePath : session::ArtifactMatch::SameContent);
    const auto a = store_->artifact(artifactId);
    const QString unit = QString::fromLatin1(session::runMetricUnit(metric));
    chart->setTitle(tr("%1 of %2 across sessions").arg(QString::fromLatin1(session::runMetricName(metric)), a ? qs(a->path) : QString()));
    if (history_.empty()) {
        chart->setTitle(chart->title() + tr(" — no successful run has this measurement"));
        return;
    }
    auto* line = new QLineSeries;
    line->setName(tr("runs (%1)").arg(unit));
    line->setPointsVisible(true);
    auto* flagged = new QScatterSeries;
    flagged->setName(tr("more than 5% slower than the best earlier run"));
    flagged->setColor(Qt::red);
    flagged->setMarkerSize(12);
    auto* whatIf = new QScatterSeries;
    whatIf->setName(tr("tagged run (what-if or tuning): not compared"));
    whatIf->setColor(QColor(0xe0, 0x90, 0x20));
    whatIf->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
    whatIf->setMarkerSize(11);
    double maxValue = 0;
    for (const auto& p : history_) {
        const auto x = static_cast<qreal>(msSinceEpoch(p.startedAt));
        // The line joins the ordinary runs; tagged runs stand beside it.
        if (!p.tag.empty())
            whatIf->append(x, p.value);
        else
            line->append(x, p.value);
        if (p.regression)
            flagged->append(x, p.value);
        maxValue = std::max(maxValue, p.value);
    }
    chart->addSeries(line);
    chart->addSeries(flagged);
    chart->addSeries(whatIf);
    auto* x = new QDateTimeAxis;
    const qint64 first = msSinceEpoch(history_.front().startedAt), last = msSinceEpoch(history_.back().startedAt);
    // Label precision follows the span: runs minutes apart need seconds, weeks of history need dates.
    const qint64 span = last - first;
    const bool seconds = span <= 10 * 60 * 1000, minutes = span <= 2 * 86400 * 1000LL;
    x->setFormat(seconds ? QStringLiteral("HH:mm:ss") : minutes ? QStringLiteral("MM-dd HH:mm") : QStringLiteral("yyyy-MM-dd"));
    x->setTitleText(tr("run start (UTC)"));
    // The range runs from one whole label step to another, in at most 4 equal whole steps, so that every tick sits
    // on the time its label says: runs a second apart had five ticks in three seconds, two with the same label.
    const qint64 step = seconds ? 1000 : minutes ? 60 * 1000 : 86400 * 1000LL;
    const qint64 pad = std::max<qint64>(span / 20, 1000);
    const qint64 lo = (first - pad) / step * step;
    qint64 steps = std::max<qint64>((last + pad - lo + step - 1) / step, 1);
    if (steps > 4)
        steps = (steps + 3) / 4 * 4;
    x->setRange(QDateTime::fromMSecsSinceEpoch(lo, Qt::UTC), QDateTime::fromMSecsSinceEpoch(lo + steps * step, Qt::UTC));
    x->setTickCount(static_cast<int>(std::min<qint64>(steps, 4) + 1));
    auto* y = valueAxis(QStringLiteral("%1 (%2)").arg(QString::fromLatin1(session::runMetricName(metric)), unit), maxValue);
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    for (QAbstractSeries* s : {static_cast<QAbstractSeries*>(line), static_cast<QAbstractSeries*>(flagged), static_cast<QAbstractSeries*>(whatIf)}) {
        s->attachAxis(x);
        s->attachAxis(y);
    }
    const auto flags = flaggedRuns();
    status_->setText(flags.empty() ? tr("No regression in %1 runs of this artifact.").arg(history_.size())
                                   : tr("%1 of %2 runs of this artifact were more than 5% slower than the best run before them.")
                                         .arg(flags.size())
                                         .arg(history_.size()));
}

void ChartsView::drawCompare()
{
    QChart* chart = this->chart(Chart::Compare);
    clearChart(chart);
    comparison_ = {};
    const RowId a = comboId(compareFirstCombo_), b = comboId(compareSecondCombo_);
    const auto da = store_ && a ? store_->runDetail(a) : std::nullopt;
    const auto db = store_ && b ? store_->runDetail(b) : std::nullopt;
    if (!da || !db) {
        chart->setTitle(tr("Pick two runs to compare"));
        return;
    }
    comparison_ = session::compareRuns(*da, *db);
    chart->setTitle(tr("Run #%1 against run #%2: %3").arg(a).arg(b).arg(qs(comparison_.quantity)));
    auto* setA = new QBarSet(tr("run #%1").arg(a));
    auto* setB = new QBarSet(tr("run #%1").arg(b));
    QStringList names;
    double maxValue = 0;
    for (const auto& row : comparison_.rows) {
        names << qs(row.name);
        *setA << row.first.value_or(0.0);   // a kernel the run does not have takes no time in it
        *setB << row.second.value_or(0.0);
        maxValue = std::max({maxValue, row.first.value_or(0.0), row.second.value_or(0.0)});
    }
    auto* series = new QBarSeries;
    series->append(setA);
    series->append(setB);
    chart->addSeries(series);
    auto* x = new QBarCategoryAxis;
    x->append(names);
    x->setLabelsAngle(names.size() > 6 ? -60 : 0);
    auto* y = valueAxis(qs(comparison_.quantity), maxValue);
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(x);
    series->attachAxis(y);
}

void ChartsView::drawQuantum()
{
    QChart* chart = this->chart(Chart::Quantum);
    clearChart(chart);
    quantum_.clear();
    const RowId session = selectedSession();
    if (store_ && session)
        quantum_ = session::quantumPoints(*store_, session);
    if (quantum_.empty()) {
        chart->setTitle(tr("No circuit simulation in this session"));
        return;
    }
    chart->setTitle(tr("State-vector simulation wall time by qubit count"));
    auto* points = new QScatterSeries;
    points->setName(tr("circuit runs (ms)"));
    points->setMarkerSize(9);
    auto* best = new QLineSeries;
    best->setName(tr("fastest per qubit count (ms)"));
    std::map<int, double> fastest;
    int minQ = quantum_.front().qubits, maxQ = minQ;
    double maxValue = 0;
    for (const auto& p : quantum_) {
        points->append(p.qubits, p.simMs);
        auto [it, inserted] = fastest.emplace(p.qubits, p.simMs);
        if (!inserted)
            it->second = std::min(it->second, p.simMs);
        minQ = std::min(minQ, p.qubits);
        maxQ = std::max(maxQ, p.qubits);
        maxValue = std::max(maxValue, p.simMs);
    }
    for (const auto& [q, ms] : fastest)
        best->append(q, ms);
    chart->addSeries(best);
    chart->addSeries(points);
    auto* x = new QValueAxis;
    x->setTitleText(tr("qubits"));
    x->setRange(minQ - 1, maxQ + 1);
    x->setLabelFormat(QStringLiteral("%d"));
    x->setTickType(QValueAxis::TicksDynamic);
    x->setTickAnchor(0);
    x->setTickInterval(std::max(1, (maxQ - minQ + 2) / 10));
    // State-vector time grows as 2^qubits: across a wide range a log axis keeps the small circuits visible.
    double minValue = maxValue;
    for (const auto& p : quantum_)
        minValue = std::min(minValue, p.simMs);
    QAbstractAxis* y = nullptr;
    if (minValue > 0 && maxValue / minValue > 50) {
        auto* log = new QLogValueAxis;
        log->setBase(10);
        log->setTitleText(tr("wall time (ms, log)"));
        log->setLabelFormat(QStringLiteral("%.3g"));
        log->setRange(minValue / 2, maxValue * 2);
        y = log;
    } else {
        y = valueAxis(tr("wall time (ms)"), maxValue);
    }
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    for (QAbstractSeries* s : {static_cast<QAbstractSeries*>(best), static_cast<QAbstractSeries*>(points)}) {
        s->attachAxis(x);
        s->attachAxis(y);
    }
}

std::vector<RowId> ChartsView::flaggedRuns() const
{
    std::vector<RowId> out;
    for (const auto& p : history_)
        if (p.regression)
            out.push_back(p.runId);
    return out;
}

QString ChartsView::chartCsv(Chart c) const
{
    QString out;
    switch (c) {
    case Chart::Kernels:
        out = QStringLiteral("kernel,sim_ns,bytes_moved,lx_peak_bytes\n");
        for (const auto& k : kernels_)
            out += csvField(qs(k.name)) + QLatin1Char(',') + num(k.simNs) + QLatin1Char(',') + QString::number(k.bytesMoved) +
                   QLatin1Char(',') + QString::number(k.lxPeakBytes) + QLatin1Char('\n');
        break;
    case Chart::History:
        // `tag` says which runs are experiments (what-if, tuning): never flagged, never the best_earlier.
        out = QStringLiteral("run_id,session_id,started,value,best_earlier,regression,tag\n");
        for (const auto& p : history_)
            out += QString::number(p.runId) + QLatin1Char(',') + QString::number(p.sessionId) + QLatin1Char(',') + qs(p.startedAt) +
                   QLatin1Char(',') + num(p.value) + QLatin1Char(',') + (p.bestEarlier ? num(*p.bestEarlier) : QString()) +
                   QLatin1Char(',') + (p.regression ? QStringLiteral("yes") : QStringLiteral("no")) + QLatin1Char(',') + csvField(qs(p.tag)) +
                   QLatin1Char('\n');
        break;
    case Chart::Compare:
        out = QStringLiteral("name,first,second\n");
        for (const auto& r : comparison_.rows)
            out += csvField(qs(r.name)) + QLatin1Char(',') + (r.first ? num(*r.first) : QString()) + QLatin1Char(',') +
                   (r.second ? num(*r.second) : QString()) + QLatin1Char('\n');
        break;
    case Chart::Quantum:
        out = QStringLiteral("run_id,name,qubits,gates,sim_ms\n");
        for (const auto& p : quantum_)
            out += QString::number(p.runId) + QLatin1Char(',') + csvField(qs(p.name)) + QLatin1Char(',') + QString::number(p.qubits) +
                   QLatin1Char(',') + QString::number(p.gates) + QLatin1Char(',') + num(p.simMs) + QLatin1Char('\n');
        break;
    }
    return out;
}

bool ChartsView::exportPng(const QString& path, QString* error)
{
    QChartView* view = chartView(currentChart());
    // Render at least at a readable size even when the dock is small or hidden.
    const QSize size = view->size().expandedTo(QSize(800, 500));
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    {
        QPainter painter(&image);
        painter.setRenderHint(QPainter::Antialiasing);
        view->scene()->render(&painter, QRectF(QPointF(0, 0), QSizeF(size)), view->chart()->geometry());
    }
    if (!image.save(path, "PNG")) {
        if (error)
            *error = tr("cannot write %1").arg(path);
        return false;
    }
    return true;
}

bool ChartsView::exportCsv(const QString& path, QString* error)
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate | QIODevice::Text)) {
        if (error)
            *error = tr("cannot write %1: %2").arg(path, f.errorString());
        return false;
    }
    f.write(chartCsv(currentChart()).toUtf8());
    if (!f.flush()) {
        if (error)
            *error = tr("cannot write %1: %2").arg(path, f.errorString());
        return false;
    }
    return true;
}

void ChartsView::exportPngDialog()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Export chart as PNG"), QString(), tr("PNG images (*.png)"));
    QString error;
    if (!path.isEmpty() && !exportPng(path, &error))
        QMessageBox::warning(this, tr("Export failed"), error);
}

void ChartsView::exportCsvDialog()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Export chart data as CSV"), QString(), tr("CSV files (*.csv)"));
    QString error;
    if (!path.isEmpty() && !exportCsv(path, &error))
        QMessageBox::warning(this, tr("Export failed"), error);
}

}  // namespace spyglass
