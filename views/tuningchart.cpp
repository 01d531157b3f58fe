#include "views/tuningchart.h"

#include "core/common/units.h"
#include "views/jobrunner.h"

#include <QChart>
#include <QChartView>
#include <QFileInfo>
#include <QLabel>
#include <QLineSeries>
#include <QScatterSeries>
#include <QValueAxis>
#include <QVBoxLayout>

#include <algorithm>
#include <any>
#include <memory>

namespace spyglass {

namespace {

struct Finished {
    spyresim::TunedPlan plan;
    std::optional<std::string> recordNote;
};

}  // namespace

TuningChart::TuningChart(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    header_ = new QLabel(tr("No tuning search yet: Spyre > Tune Plan searches the open model's splits and device orders."), this);
    header_->setObjectName(QStringLiteral("tuningHeader"));
    header_->setWordWrap(true);
    chart_ = new QChart;
    chart_->setTitle(tr("Plan tuner: simulated time of every candidate"));
    // Docked under the editor like the Charts: the legend to the side and thin margins leave the height to the plot.
    chart_->legend()->setAlignment(Qt::AlignRight);
    chart_->setMargins(QMargins(2, 2, 2, 2));
    view_ = new QChartView(chart_, this);
    view_->setObjectName(QStringLiteral("tuningChartView"));
    view_->setRenderHint(QPainter::Antialiasing);
    view_->setMinimumSize(320, 280);
    layout->addWidget(header_);
    layout->addWidget(view_, 1);
}

void TuningChart::tune(JobRunner* jobs, const QString& path, const CompileRequest& request, const QString& dbPath, qint64 sessionId,
                       double budgetMs)
{
    jobs->start(
        tr("Tuning %1").arg(QFileInfo(path).fileName()),
        [path, request, dbPath, sessionId, budgetMs](JobControl& control) -> std::any {
            Finished f;
            f.plan = tuneDocument(path, control, request, budgetMs);
            if (!dbPath.isEmpty())
                f.recordNote = recordTuning(f.plan, path.toStdString(), dbPath.toStdString(), sessionId);
            return std::make_shared<Finished>(std::move(f));
        },
        [this, path](std::any result) {
            const auto f = std::any_cast<std::shared_ptr<Finished>>(std::move(result));
            tunedNs_ = f->plan.tunedNs;
            showSearch(tuningSearch(f->plan, path.toStdString()));
            emit tuned(f->plan.gain(), f->recordNote ? QString::fromStdString(*f->recordNote) : QString());
        });
}

QString TuningChart::summary() const
{
    if (search_.points.empty())
        return header_->text();
    double best = search_.costModelNs;
    int kept = 0, orders = 0;
    for (const TuningPoint& p : search_.points) {
        best = std::min(best, p.simulatedNs);
        kept += p.kept;
        orders += p.what == "order";
    }
    return tr("%1: %2 candidates (%3 splits, %4 device orders), %5 kept; cost-model plan %6, tuned %7 (%8x)")
        .arg(QFileInfo(QString::fromStdString(search_.artifactPath)).fileName())
        .arg(search_.points.size())
        .arg(static_cast<int>(search_.points.size()) - orders)
        .arg(orders)
        .arg(kept)
        .arg(QString::fromStdString(formatDuration(search_.costModelNs)), QString::fromStdString(formatDuration(best)))
        .arg(best > 0 ? search_.costModelNs / best : 1.0, 0, 'f', 3);
}

void TuningChart::showSearch(const TuningSearch& search)
{
    search_ = search;
    chart_->removeAllSeries();
    for (QAbstractAxis* axis : chart_->axes()) {
        chart_->removeAxis(axis);
        delete axis;
    }
    header_->setText(summary());
    if (search_.points.empty())
        return;
    auto* splits = new QScatterSeries;
    splits->setName(tr("split candidates"));
    splits->setMarkerSize(8);
    auto* orders = new QScatterSeries;
    orders->setName(tr("device-order candidates"));
    orders->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
    orders->setMarkerSize(8);
    auto* kept = new QScatterSeries;
    kept->setName(tr("kept"));
    kept->setMarkerSize(14);
    kept->setColor(Qt::transparent);
    kept->setBorderColor(QColor(0x2e, 0x7d, 0x32));
    auto* best = new QLineSeries;
    best->setName(tr("best plan so far"));
    auto* costModel = new QLineSeries;
    costModel->setName(tr("cost-model plan"));
    QPen dashed(QColor(0x80, 0x80, 0x80));
    dashed.setStyle(Qt::DashLine);
    costModel->setPen(dashed);
    const double us = 1e-3;
    double lo = search_.costModelNs, hi = search_.costModelNs, bestNs = search_.costModelNs;
    best->append(0, bestNs * us);
    for (size_t i = 0; i < search_.points.size(); ++i) {
        const TuningPoint& p = search_.points[i];
        const double x = static_cast<double>(i + 1), y = p.simulatedNs * us;
        (p.what == "order" ? orders : splits)->append(x, y);
        if (p.kept)
            kept->append(x, y);
        best->append(x, bestNs * us);
        bestNs = std::min(bestNs, p.simulatedNs);
        best->append(x, bestNs * us);
        lo = std::min(lo, p.simulatedNs);
        hi = std::max(hi, p.simulatedNs);
    }
    const double last = static_cast<double>(search_.points.size() + 1);
    best->append(last, bestNs * us);
    costModel->append(0, search_.costModelNs * us);
    costModel->append(last, search_.costModelNs * us);
    for (QAbstractSeries* s : std::initializer_list<QAbstractSeries*>{costModel, best, splits, orders, kept})
        chart_->addSeries(s);
    auto* xAxis = new QValueAxis;
    xAxis->setTitleText(tr("candidate (in search order)"));
    xAxis->setLabelFormat(QStringLiteral("%d"));
    xAxis->setRange(0, last);
    auto* yAxis = new QValueAxis;
    yAxis->setTitleText(tr("kernel time (µs)"));
    const double pad = std::max((hi - lo) * 0.1, hi * 0.01) * us;
    yAxis->setRange(std::max(0.0, lo * us - pad), hi * us + pad);
    chart_->addAxis(xAxis, Qt::AlignBottom);
    chart_->addAxis(yAxis, Qt::AlignLeft);
    for (QAbstractSeries* s : chart_->series()) {
        s->attachAxis(xAxis);
        s->attachAxis(yAxis);
    }
}

}  // namespace spyglass
