#include "views/vqeview.h"

#include "views/circuitview.h"
#include "views/document.h"

#include "core/quantum/circuit.h"

#include <QChart>
#include <QChartView>
#include <QFileInfo>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QLegend>
#include <QLineSeries>
#include <QPen>
#include <QSplitter>
#include <QTableWidget>
#include <QValueAxis>
#include <QVBoxLayout>

#include <algorithm>
#include <bit>
#include <cmath>

namespace spyglass {

namespace {

QTableWidgetItem* cell(const QString& text, bool number)
{
    auto* item = new QTableWidgetItem(text);
    item->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
    if (number)
        item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
}

// "X0 X1" for a term's Pauli string, "I" for the identity.
QString pauliString(const quantum::PauliTerm& t)
{
    QStringList ops;
    for (int q = 0; q < 64; ++q) {
        const bool x = t.xMask >> q & 1, z = t.zMask >> q & 1;
        if (x || z)
            ops << QStringLiteral("%1%2").arg(QLatin1Char(x && z ? 'Y' : x ? 'X' : 'Z')).arg(q);
    }
    return ops.isEmpty() ? QStringLiteral("I") : ops.join(QLatin1Char(' '));
}

QTableWidget* table(const QStringList& headers, QWidget* parent)
{
    auto* t = new QTableWidget(0, static_cast<int>(headers.size()), parent);
    t->setHorizontalHeaderLabels(headers);
    t->verticalHeader()->hide();
    t->horizontalHeader()->setStretchLastSection(true);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->verticalHeader()->setDefaultSectionSize(t->fontMetrics().height() + 6);
    return t;
}

QWidget* titled(const QString& title, QWidget* w, QWidget* parent)
{
    auto* box = new QGroupBox(title, parent);
    auto* l = new QVBoxLayout(box);
    l->setContentsMargins(4, 4, 4, 4);
    l->addWidget(w);
    return box;
}

}  // namespace

VqeView::VqeView(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("vqeView"));
    auto* chart = new QChart;
    chart->setTitle(tr("Energy against iteration"));
    energy_ = new QLineSeries;
    energy_->setName(tr("best ⟨H⟩ so far"));
    energy_->setPen(QPen(QColor(0x3f, 0x7f, 0xd6), 2));
    exact_ = new QLineSeries;
    exact_->setName(tr("exact ground energy"));
    exact_->setPen(QPen(QColor(0xc0, 0x39, 0x2b), 1.5, Qt::DashLine));
    chart->addSeries(energy_);
    chart->addSeries(exact_);
    xAxis_ = new QValueAxis;
    xAxis_->setTitleText(tr("iteration"));
    xAxis_->setLabelFormat(QStringLiteral("%d"));
    yAxis_ = new QValueAxis;
    yAxis_->setTitleText(tr("energy (units of J)"));
    yAxis_->setLabelFormat(QStringLiteral("%.3f"));
    yAxis_->setTickCount(7);
    chart->addAxis(xAxis_, Qt::AlignBottom);
    chart->addAxis(yAxis_, Qt::AlignLeft);
    for (QLineSeries* s : {energy_, exact_}) {
        s->attachAxis(xAxis_);
        s->attachAxis(yAxis_);
    }
    chart->legend()->setAlignment(Qt::AlignBottom);
    chartView_ = new QChartView(chart, this);
    chartView_->setRenderHint(QPainter::Antialiasing);
    chartView_->setMinimumSize(360, 260);

    summary_ = new QLabel(this);
    summary_->setObjectName(QStringLiteral("vqeSummary"));
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    ansatz_ = new QLabel(this);
    ansatz_->setWordWrap(true);
    terms_ = table({tr("coefficient"), tr("Pauli string")}, this);
    settings_ = table({tr("setting"), tr("value")}, this);

    auto* side = new QWidget(this);
    auto* sideLayout = new QVBoxLayout(side);
    sideLayout->setContentsMargins(0, 0, 0, 0);
    sideLayout->addWidget(summary_);
    sideLayout->addWidget(titled(tr("Ansatz"), ansatz_, side));
    sideLayout->addWidget(titled(tr("Hamiltonian H = Σ c·P"), terms_, side), 1);
    sideLayout->addWidget(titled(tr("Optimiser"), settings_, side), 1);
    circuit_ = new CircuitView(this);
    circuit_->setObjectName(QStringLiteral("vqeAnsatzCircuit"));
    circuit_->setMinimumHeight(140);
    auto* left = new QSplitter(Qt::Vertical, this);
    left->addWidget(chartView_);
    left->addWidget(titled(tr("The ansatz at the best energy"), circuit_, left));
    left->setStretchFactor(0, 3);
    left->setStretchFactor(1, 1);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(left);
    split->addWidget(side);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setSizes({600, 400});
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(split);
    clear();
}

void VqeView::clear()
{
    report_.reset();
    energy_->clear();
    exact_->clear();
    xAxis_->setRange(0, 1);
    yAxis_->setRange(-1, 0);
    terms_->setRowCount(0);
    settings_->setRowCount(0);
    ansatz_->clear();
    circuit_->setCircuit(nullptr);
    summary_->setText(tr("No VQE run yet. Quantum > Run VQE… runs one here; Quantum > Open VQE Run… shows one recorded in the session "
                         "history (e.g. by spyglass-cli vqe --session NAME)."));
}

void VqeView::setReport(quantum::VqeReport r, const QString& origin)
{
    const quantum::VqeOptions& o = r.options;
    const auto& history = r.result.history;
    QList<QPointF> points;
    points.reserve(static_cast<qsizetype>(history.size()));
    for (size_t i = 0; i < history.size(); ++i)
        points.append(QPointF(double(i + 1), history[i]));
    energy_->replace(points);
    const double last = std::max<double>(1, double(history.size()));
    exact_->clear();
    if (r.exactEnergy)
        exact_->replace(QList<QPointF>{{1, *r.exactEnergy}, {last, *r.exactEnergy}});
    xAxis_->setRange(1, last);
    xAxis_->applyNiceNumbers();
    // The axis spans the data (and the exact line), not zero: the first energies are far above the rest, so the
    // range is [lowest, highest] with 5 % either side.
    double lo = history.empty() ? r.result.energy : *std::min_element(history.begin(), history.end());
    double hi = history.empty() ? r.result.energy : *std::max_element(history.begin(), history.end());
    if (r.exactEnergy) {
        lo = std::min(lo, *r.exactEnergy);
        hi = std::max(hi, *r.exactEnergy);
    }
    const double pad = std::max(1e-9, (hi - lo) * 0.05);
    yAxis_->setRange(lo - pad, hi + pad);

    QString text = tr("<b>%1</b>, %2 qubits — %3<br>").arg(QString::fromStdString(r.hamiltonianName).toHtmlEscaped()).arg(o.qubits).arg(origin.toHtmlEscaped());
    text += tr("Energy reached: <b>%1</b> after %2 iterations (%3 energy evaluations, %4 ms)")
                .arg(r.result.energy, 0, 'f', 6)
                .arg(history.size())
                .arg(r.result.evaluations)
                .arg(r.result.wallMs, 0, 'f', 1);
    if (r.exactEnergy) {
        const double gap = r.result.energy - *r.exactEnergy;
        text += tr("<br>Exact ground energy: <b>%1</b>; the optimiser is %2 above it (%3 % of |E₀|)")
                    .arg(*r.exactEnergy, 0, 'f', 6)
                    .arg(gap, 0, 'g', 3)
                    .arg(100 * gap / std::max(1e-300, std::fabs(*r.exactEnergy)), 0, 'g', 3);
    } else {
        text += tr("<br>No exact ground energy: it is computed for up to %1 qubits.").arg(quantum::kVqeExactMaxQubits);
    }
    summary_->setText(text);
    ansatz_->setText(QString::fromStdString(quantum::vqeAnsatzText(o.qubits, o.layers)) +
                     tr(". The energy is the exact expectation from the state vector (no shot noise)."));

    terms_->setRowCount(0);
    if (o.hamiltonian) {
        terms_->setRowCount(static_cast<int>(o.hamiltonian->terms.size()));
        for (int i = 0; i < terms_->rowCount(); ++i) {
            const quantum::PauliTerm& t = o.hamiltonian->terms[static_cast<size_t>(i)];
            terms_->setItem(i, 0, cell(QString::number(t.coeff, 'g', 6), true));
            terms_->setItem(i, 1, cell(pauliString(t), false));
        }
    }
    const auto settings = quantum::vqeOptimizerSettings(o.optimizer);
    settings_->setRowCount(static_cast<int>(settings.size()) + 3);
    int row = 0;
    auto put = [&](const QString& name, const QString& value) {
        settings_->setItem(row, 0, cell(name, false));
        settings_->setItem(row++, 1, cell(value, true));
    };
    put(tr("optimiser"), QString::fromStdString(o.optimizer));
    put(tr("iterations"), QString::number(o.iterations));
    put(tr("seed"), QString::number(o.seed));
    for (const auto& [name, value] : settings)
        put(QString::fromStdString(name), QString::number(value, 'g', 6));
    settings_->resizeColumnsToContents();
    terms_->resizeColumnsToContents();
    if (r.result.parameters.size() == static_cast<size_t>(o.qubits * (o.layers + 1)))
        circuit_->setCircuit(std::make_shared<const quantum::Circuit>(quantum::vqeAnsatz(o.qubits, o.layers, r.result.parameters)));
    else
        circuit_->setCircuit(nullptr);
    report_ = std::move(r);
}

void followDocument(VqeView* view, const Document* document)
{
    QObject::connect(document, &Document::documentChanged, view, [view, document] {
        if (const auto& run = document->compiled().vqe)
            view->setReport(run->report, VqeView::tr("the VQE document %1").arg(QFileInfo(document->path()).fileName()));
    });
}

}  // namespace spyglass
