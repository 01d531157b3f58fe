#include "views/stateview.h"

#include "views/document.h"

#include "core/workbench/workbench.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSlider>
#include <QLabel>
#include <QPainter>
#include <QScrollArea>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <numeric>

namespace spyglass {

namespace {

// Basis state index as a ket with qubit n-1 leftmost (Qiskit's order).
QString ket(uint64_t index, int qubits)
{
    QString s;
    for (int q = qubits - 1; q >= 0; --q)
        s += (index >> q) & 1 ? QLatin1Char('1') : QLatin1Char('0');
    return QStringLiteral("|") + s + QStringLiteral("⟩");
}

// Two decimals without "-0.00".
QString fixed2(double v) { return QString::number(std::fabs(v) < 0.005 ? 0.0 : v, 'f', 2); }

QTableWidgetItem* cell(const QString& text, bool number = true)
{
    auto* item = new QTableWidgetItem(text);
    item->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
    if (number)
        item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
}

}  // namespace

class ProbabilityHistogram : public QWidget {
public:
    explicit ProbabilityHistogram(QWidget* parent) : QWidget(parent) { setMinimumHeight(200); }
    void setBars(std::vector<StateView::Bar> bars, QString xTitle)
    {
        bars_ = std::move(bars);
        xTitle_ = std::move(xTitle);
        update();
    }
    int bars() const { return static_cast<int>(bars_.size()); }
    const std::vector<StateView::Bar>& data() const { return bars_; }

protected:
    void paintEvent(QPaintEvent*) override
    {
        QPainter p(this);
        p.fillRect(rect(), Qt::white);
        p.setRenderHint(QPainter::Antialiasing);
        if (bars_.empty()) {
            p.setPen(palette().color(QPalette::Disabled, QPalette::Text));
            p.drawText(rect(), Qt::AlignCenter, tr("No state to show"));
            return;
        }
        int longest = 0;
        for (const auto& b : bars_)
            longest = std::max(longest, p.fontMetrics().horizontalAdvance(b.label));
        const bool shots = std::any_of(bars_.begin(), bars_.end(), [](const auto& b) { return b.shotFraction >= 0; });
        const int left = 64, top = shots ? 26 : 10;
        // Labels at 60 degrees (their length times sin 60, plus half a line), then a line for the axis title.
        const int line = p.fontMetrics().height();
        const int bottom = 8 + static_cast<int>(longest * 0.87) + line / 2 + line + 6;
        double maxP = 1e-12;
        for (const auto& b : bars_)
            maxP = std::max({maxP, b.probability, b.shotFraction});
        // The axis fits the data: the next tenth above the tallest bar (or shot fraction), at most 1.
        const double scaleTop = std::min(1.0, std::ceil(maxP * 10 - 1e-9) / 10);
        const double w = (width() - left - 10) / static_cast<double>(bars_.size());
        const double h = std::max(20, height() - bottom - top);
        p.setPen(QColor(0xbb, 0xbb, 0xbb));
        for (int t = 0; t <= 4; ++t) {
            const double y = top + h * (1 - t / 4.0);
            p.drawLine(QPointF(left, y), QPointF(width() - 10, y));
            p.setPen(Qt::black);
            p.drawText(QRectF(line + 4, y - 8, left - line - 8, 16), Qt::AlignRight | Qt::AlignVCenter, QString::number(scaleTop * t / 4.0, 'g', 3));
            p.setPen(QColor(0xbb, 0xbb, 0xbb));
        }
        p.save();
        p.setPen(Qt::black);
        p.translate(line / 2 + 2, top + h / 2);
        p.rotate(-90);
        p.drawText(QRectF(-h / 2, -8, h, 16), Qt::AlignCenter, tr("probability"));
        p.restore();
        for (size_t i = 0; i < bars_.size(); ++i) {
            const double bh = h * bars_[i].probability / scaleTop;
            const QRectF bar(left + w * i + w * 0.15, top + h - bh, w * 0.7, bh);
            p.fillRect(bar, QColor(0x3f, 0x7f, 0xd6));
            if (bars_[i].shotFraction >= 0) {
                // The shots' estimate of the same probability, as a black tick across the bar.
                const double y = top + h - h * bars_[i].shotFraction / scaleTop;
                p.setPen(QPen(Qt::black, 2));
                p.drawLine(QPointF(bar.left() - w * 0.1, y), QPointF(bar.right() + w * 0.1, y));
            }
            p.save();
            p.translate(left + w * (i + 0.5) - 3, top + h + 6);
            p.rotate(60);
            p.setPen(Qt::black);
            p.drawText(QPointF(0, 0), bars_[i].label);
            p.restore();
        }
        p.setPen(Qt::black);
        p.drawText(QRectF(left, height() - line - 4, width() - left - 10, line + 2), Qt::AlignCenter, xTitle_);
        if (shots) {
            p.fillRect(QRectF(left, 6, 12, 10), QColor(0x3f, 0x7f, 0xd6));
            p.drawText(QPointF(left + 16, 15), tr("from the state"));
            const double x = left + 40 + p.fontMetrics().horizontalAdvance(tr("from the state"));
            p.setPen(QPen(Qt::black, 2));
            p.drawLine(QPointF(x, 11), QPointF(x + 14, 11));
            p.setPen(Qt::black);
            p.drawText(QPointF(x + 18, 15), tr("fraction of the shots"));
        }
    }

private:
    std::vector<StateView::Bar> bars_;
    QString xTitle_;
};

class BlochGrid : public QWidget {
public:
    explicit BlochGrid(QWidget* parent) : QWidget(parent) {}
    void setVectors(std::vector<std::array<double, 3>> v)
    {
        vectors_ = std::move(v);
        const int cols = std::max(1, std::min(6, static_cast<int>(vectors_.size())));
        const int rows = (static_cast<int>(vectors_.size()) + cols - 1) / cols;
        setMinimumSize(cols * kCell, std::max(1, rows) * kCell);
        update();
    }

protected:
    static constexpr int kCell = 170;
    void paintEvent(QPaintEvent*) override
    {
        QPainter p(this);
        p.fillRect(rect(), Qt::white);
        p.setRenderHint(QPainter::Antialiasing);
        const int cols = std::max(1, std::min(6, std::max(1, width() / kCell)));
        for (size_t q = 0; q < vectors_.size(); ++q) {
            const QPointF c(kCell * (q % cols) + kCell / 2.0, kCell * (q / cols) + kCell / 2.0 - 4);
            const double r = kCell * 0.3;
            p.setPen(QPen(QColor(0x99, 0x99, 0x99), 1));
            p.setBrush(QColor(0xf4, 0xf7, 0xfb));
            p.drawEllipse(c, r, r);
            p.setBrush(Qt::NoBrush);
            p.setPen(QPen(QColor(0xbb, 0xbb, 0xbb), 1, Qt::DashLine));
            p.drawEllipse(c, r, r * 0.3);   // the equator seen from slightly above
            // Oblique projection: x to the lower left, y to the right, z up.
            auto project = [&](double x, double y, double z) { return c + QPointF(y * r - x * r * 0.35, -z * r + x * r * 0.3); };
            p.setPen(QPen(QColor(0x88, 0x88, 0x88), 1));
            for (const auto& [axis, name] : {std::pair{std::array<double, 3>{1, 0, 0}, QStringLiteral("x")}, std::pair{std::array<double, 3>{0, 1, 0}, QStringLiteral("y")}}) {
                const QPointF end = project(axis[0], axis[1], axis[2]);
                p.drawLine(c, end);
                p.drawText(QRectF(end.x() - 8, end.y() - 2, 16, 14), Qt::AlignCenter, name);
            }
            p.drawText(QRectF(c.x() + 4, c.y() - r - 2, 30, 14), Qt::AlignLeft | Qt::AlignVCenter, QStringLiteral("|0⟩"));
            p.drawText(QRectF(c.x() + 4, c.y() + r - 12, 30, 14), Qt::AlignLeft | Qt::AlignVCenter, QStringLiteral("|1⟩"));
            const auto& v = vectors_[q];
            const QPointF tip = project(v[0], v[1], v[2]);
            p.setPen(QPen(QColor(0xd0, 0x40, 0x30), 2.2));
            p.drawLine(c, tip);
            p.setBrush(QColor(0xd0, 0x40, 0x30));
            p.drawEllipse(tip, 3.5, 3.5);
            p.setPen(Qt::black);
            QFont bold = p.font();
            bold.setBold(true);
            p.save();
            p.setFont(bold);
            p.drawText(QRectF(c.x() - kCell / 2.0, c.y() - r - 22, kCell, 16), Qt::AlignCenter, QStringLiteral("q[%1]").arg(q));
            p.restore();
            const double len = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
            p.drawText(QRectF(c.x() - kCell / 2.0, c.y() + r + 4, kCell, 14), Qt::AlignCenter,
                       QStringLiteral("x %1  y %2  z %3").arg(fixed2(v[0]), fixed2(v[1]), fixed2(v[2])));
            // Shorter than 1: the qubit is entangled with others (its reduced state is mixed).
            p.drawText(QRectF(c.x() - kCell / 2.0, c.y() + r + 18, kCell, 14), Qt::AlignCenter,
                       len > 0.995 ? tr("|r| = %1 (pure)").arg(len, 0, 'f', 2) : tr("|r| = %1 (entangled)").arg(len, 0, 'f', 2));
        }
    }

private:
    std::vector<std::array<double, 3>> vectors_;
};

StateView::StateView(Document* document, QWidget* parent) : QWidget(parent), document_(document)
{
    setObjectName(QStringLiteral("stateView"));
    summary_ = new QLabel(this);
    summary_->setWordWrap(true);
    bitOrder_ = new QLabel(this);
    bitOrder_->setObjectName(QStringLiteral("bitOrder"));
    bitOrder_->setWordWrap(true);
    ancillas_ = new QLabel(this);
    ancillas_->setObjectName(QStringLiteral("ancillas"));
    ancillas_->setWordWrap(true);
    step_ = new QSlider(Qt::Horizontal, this);
    step_->setObjectName(QStringLiteral("stepSlider"));
    step_->setPageStep(1);
    step_->setTickPosition(QSlider::TicksBelow);
    stepLabel_ = new QLabel(this);
    finalButton_ = new QPushButton(tr("Final state"), this);
    auto* stepRow = new QHBoxLayout;
    stepRow->addWidget(new QLabel(tr("Step:"), this));
    stepRow->addWidget(step_, 1);
    stepRow->addWidget(stepLabel_);
    stepRow->addWidget(finalButton_);
    tabs_ = new QTabWidget(this);
    histogram_ = new ProbabilityHistogram(tabs_);
    amplitudes_ = new QTableWidget(tabs_);
    amplitudes_->setObjectName(QStringLiteral("amplitudeTable"));
    amplitudes_->setColumnCount(6);
    amplitudes_->setHorizontalHeaderLabels({tr("basis state"), tr("re"), tr("im"), tr("|a|"), tr("phase"), tr("probability")});
    amplitudes_->verticalHeader()->hide();
    amplitudes_->horizontalHeader()->setStretchLastSection(true);
    bloch_ = new BlochGrid(tabs_);
    auto* blochScroll = new QScrollArea(tabs_);
    blochScroll->setWidget(bloch_);
    blochScroll->setWidgetResizable(true);
    counts_ = new QTableWidget(tabs_);
    counts_->setObjectName(QStringLiteral("countsTable"));
    counts_->setColumnCount(4);
    counts_->setHorizontalHeaderLabels({tr("outcome"), tr("count"), tr("fraction"), tr("probability from the state")});
    counts_->verticalHeader()->hide();
    counts_->horizontalHeader()->setStretchLastSection(true);
    tabs_->addTab(histogram_, tr("Probabilities"));
    tabs_->addTab(amplitudes_, tr("Amplitudes"));
    tabs_->addTab(blochScroll, tr("Bloch"));
    tabs_->addTab(counts_, tr("Counts"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(summary_);
    layout->addLayout(stepRow);
    layout->addWidget(bitOrder_);
    layout->addWidget(ancillas_);
    layout->addWidget(tabs_, 1);
    connect(document_, &Document::documentChanged, this, &StateView::showDocumentRun);
    connect(step_, &QSlider::valueChanged, this, [this](int v) {
        if (v >= step_->maximum())
            showDocumentRun();
        else
            emit stepRequested(v - 1);
    });
    connect(finalButton_, &QPushButton::clicked, this, [this] { stepTo(step_->maximum()); });
    setStepColumns(0);
    showDocumentRun();
}

int StateView::histogramBars() const { return histogram_->bars(); }
const std::vector<StateView::Bar>& StateView::bars() const { return histogram_->data(); }
QString StateView::bitOrderText() const { return bitOrder_->text(); }
QString StateView::ancillaText() const { return ancillas_->text(); }
QString StateView::summaryText() const { return summary_->text(); }

void StateView::setStepColumns(int columns)
{
    const QSignalBlocker block(step_);
    step_->setRange(0, std::max(0, columns));
    step_->setValue(step_->maximum());
    step_->setEnabled(columns > 0);
    finalButton_->setEnabled(columns > 0);
    stepLabel_->setText(columns > 0 ? tr("final") : QString());
    if (shown_ && shown_->column)
        showDocumentRun();   // a step of another circuit
}

void StateView::stepTo(int position)
{
    position = std::clamp(position, step_->minimum(), step_->maximum());
    if (position == step_->value()) {
        if (position >= step_->maximum())
            showDocumentRun();
        else
            emit stepRequested(position - 1);
        return;
    }
    step_->setValue(position);
}

int StateView::stepPosition() const { return step_->value(); }

void StateView::showStep(std::shared_ptr<const QuantumRunResult> run)
{
    if (run && run->column) {
        const QSignalBlocker block(step_);
        step_->setValue(*run->column + 1);
    }
    display(std::move(run));
}

void StateView::showDocumentRun()
{
    {
        const QSignalBlocker block(step_);
        step_->setValue(step_->maximum());
    }
    display(document_->compiled().quantumRun);
    emit finalStateShown();
}

void StateView::display(std::shared_ptr<const QuantumRunResult> run)
{
    shown_ = run;
    amplitudes_->setRowCount(0);
    counts_->setRowCount(0);
    ancillas_->clear();
    ancillas_->hide();
    if (!run) {
        summary_->setText(tr("Open a circuit (.qasm) to see its final state."));
        bitOrder_->clear();
        histogram_->setBars({}, {});
        bloch_->setVectors({});
        stepLabel_->clear();
        return;
    }
    const bool step = run->column.has_value();
    const int n = run->qubits;
    if (step) {
        const int column = *run->column;
        stepLabel_->setText(column < 0 ? tr("|0…0⟩, before column 0") : tr("after column %1 of %2").arg(column).arg(step_->maximum() - 1));
        summary_->setText(column < 0 ? tr("The initial state |0…0⟩, before any gate.")
                                     : tr("The state after every gate in columns 0 to %1 of the Circuit view (measurements not applied).").arg(column) +
                                                (run->note.isEmpty() ? QString() : QLatin1Char(' ') + run->note));
    } else {
        stepLabel_->setText(step_->isEnabled() ? tr("final") : QString());
        QString text = tr("Final state: %1 qubits, %2 shots (seed %3), simulated in %4 ms.").arg(n).arg(run->shots).arg(run->seed).arg(run->simMs, 0, 'f', 2);
        if (!run->note.isEmpty())
            text += QLatin1Char(' ') + run->note;
        summary_->setText(text);
    }
    const bool measured = !step && run->measured && !run->measured->outcomes.empty();
    if (measured) {
        const auto& m = *run->measured;
        bitOrder_->setText(tr("Bars: the measured bits, written as Counts writes them (last register leftmost, c[%1] … c[0]).")
                               .arg(static_cast<int>(m.qubitOfClbit.size()) - 1));
        if (!m.unmeasuredQubits.empty()) {
            QStringList parts;
            for (int q : m.unmeasuredQubits) {
                const auto& v = run->bloch[static_cast<size_t>(q)];
                parts << tr("q[%1]: P(1) = %2, Bloch (%3, %4, %5)").arg(q).arg((1 - v[2]) / 2, 0, 'f', 3).arg(fixed2(v[0]), fixed2(v[1]), fixed2(v[2]));
            }
            ancillas_->setText(tr("Not measured (ancilla, summed over): %1").arg(parts.join(QStringLiteral("; "))));
            ancillas_->show();
        }
    } else {
        bitOrder_->setText(n > 0 ? tr("Bit order |q[%1] … q[0]⟩ (Qiskit's): index = Σ 2^k·q[k], so |%2⟩ is q[0] = 1.").arg(n - 1).arg(ket(1, n).mid(1, n))
                                 : QString());
    }

    std::vector<Bar> bars;
    QString xTitle;
    constexpr size_t kMaxBars = 64;
    if (measured) {
        const auto& outcomes = run->measured->outcomes;   // basis order
        std::vector<size_t> pick(outcomes.size());
        std::iota(pick.begin(), pick.end(), 0);
        if (pick.size() > kMaxBars) {
            std::partial_sort(pick.begin(), pick.begin() + kMaxBars, pick.end(), [&](size_t a, size_t b) { return outcomes[a].probability > outcomes[b].probability; });
            pick.resize(kMaxBars);
            std::sort(pick.begin(), pick.end());
        }
        for (size_t i : pick) {
            const auto it = run->counts.find(outcomes[i].key);
            bars.push_back({QString::fromStdString(outcomes[i].key), outcomes[i].probability,
                            run->shots > 0 ? double(it == run->counts.end() ? 0 : it->second) / run->shots : -1.0});
        }
        xTitle = outcomes.size() > kMaxBars ? tr("measured outcome (the %1 most probable of %2, in basis order)").arg(kMaxBars).arg(outcomes.size())
                                            : tr("measured outcome, in basis order");
    } else if (!run->probabilities.empty()) {
        const auto& p = run->probabilities;
        std::vector<uint64_t> pick;
        for (uint64_t i = 0; i < p.size(); ++i)
            if (p.size() <= kMaxBars || p[i] > 1e-9)
                pick.push_back(i);
        if (pick.size() > kMaxBars) {
            std::partial_sort(pick.begin(), pick.begin() + kMaxBars, pick.end(), [&](uint64_t a, uint64_t b) { return p[a] > p[b]; });
            pick.resize(kMaxBars);
            std::sort(pick.begin(), pick.end());
        }
        for (uint64_t i : pick)
            bars.push_back({ket(i, n), p[i], -1});
        xTitle = pick.size() == p.size() ? tr("basis state |q[%1] … q[0]⟩, every one in basis order").arg(n - 1)
                                         : tr("basis state |q[%1] … q[0]⟩, the %2 most probable of %3, in basis order").arg(n - 1).arg(pick.size()).arg(p.size());
    } else {
        std::vector<QuantumRunResult::Amplitude> top;
        for (const auto& a : run->topAmplitudes)
            if (top.size() < kMaxBars && a.probability > 1e-9)
                top.push_back(a);
        std::sort(top.begin(), top.end(), [](const auto& a, const auto& b) { return a.index < b.index; });
        for (const auto& a : top)
            bars.push_back({ket(a.index, n), a.probability, -1});
        xTitle = tr("basis state |q[%1] … q[0]⟩, the most probable, in basis order").arg(n - 1);
    }
    histogram_->setBars(std::move(bars), xTitle);

    // The most probable states (topAmplitudes), listed in basis order so phases can be read along k.
    // Zero amplitudes are left out (a basis state has one row, not 2^n).
    std::vector<QuantumRunResult::Amplitude> rows;
    std::copy_if(run->topAmplitudes.begin(), run->topAmplitudes.end(), std::back_inserter(rows), [](const auto& a) { return a.probability > 1e-12; });
    std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.index < b.index; });
    amplitudes_->setRowCount(static_cast<int>(rows.size()));
    for (int row = 0; row < static_cast<int>(rows.size()); ++row) {
        const auto& a = rows[static_cast<size_t>(row)];
        amplitudes_->setItem(row, 0, cell(ket(a.index, n), false));
        amplitudes_->setItem(row, 1, cell(QString::number(a.value.real(), 'f', 5)));
        amplitudes_->setItem(row, 2, cell(QString::number(a.value.imag(), 'f', 5)));
        amplitudes_->setItem(row, 3, cell(QString::number(std::abs(a.value), 'f', 5)));
        amplitudes_->setItem(row, 4, cell(QString::number(std::arg(a.value) / M_PI, 'f', 4) + QStringLiteral("π")));
        amplitudes_->setItem(row, 5, cell(QString::number(a.probability, 'f', 5)));
    }
    bloch_->setVectors(run->bloch);

    std::vector<std::pair<std::string, int>> sorted(run->counts.begin(), run->counts.end());
    std::sort(sorted.begin(), sorted.end(), [](auto& a, auto& b) { return a.second != b.second ? a.second > b.second : a.first < b.first; });
    std::map<std::string, double> fromState;
    if (run->measured)
        for (const auto& o : run->measured->outcomes)
            fromState[o.key] = o.probability;
    counts_->setRowCount(static_cast<int>(sorted.size()));
    for (int row = 0; row < static_cast<int>(sorted.size()); ++row) {
        const auto& [key, count] = sorted[static_cast<size_t>(row)];
        counts_->setItem(row, 0, cell(QString::fromStdString(key), false));
        counts_->setItem(row, 1, cell(QString::number(count)));
        counts_->setItem(row, 2, cell(QString::number(static_cast<double>(count) / std::max(1, run->shots), 'f', 4)));
        const auto p = fromState.find(key);
        counts_->setItem(row, 3, cell(p == fromState.end() ? (run->measured ? QStringLiteral("0") : QString()) : QString::number(p->second, 'f', 4)));
    }
}

}  // namespace spyglass
