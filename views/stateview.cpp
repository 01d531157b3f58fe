#include "views/stateview.h"

#include "views/document.h"

#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QScrollArea>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

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
    explicit ProbabilityHistogram(QWidget* parent) : QWidget(parent) { setMinimumHeight(160); }
    void setBars(std::vector<std::pair<QString, double>> bars)
    {
        bars_ = std::move(bars);
        update();
    }
    int bars() const { return static_cast<int>(bars_.size()); }

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
        const int left = 40, bottom = 70, top = 10;
        const double maxP = std::max(1e-12, std::max_element(bars_.begin(), bars_.end(), [](auto& a, auto& b) { return a.second < b.second; })->second);
        const double scaleTop = std::min(1.0, std::ceil(maxP * 10) / 10);
        const double w = (width() - left - 10) / static_cast<double>(bars_.size());
        const double h = height() - bottom - top;
        p.setPen(QColor(0xbb, 0xbb, 0xbb));
        for (int t = 0; t <= 4; ++t) {
            const double y = top + h * (1 - t / 4.0);
            p.drawLine(QPointF(left, y), QPointF(width() - 10, y));
            p.drawText(QRectF(0, y - 8, left - 4, 16), Qt::AlignRight | Qt::AlignVCenter, QString::number(scaleTop * t / 4.0, 'g', 3));
        }
        for (size_t i = 0; i < bars_.size(); ++i) {
            const double bh = h * bars_[i].second / scaleTop;
            const QRectF bar(left + w * i + w * 0.15, top + h - bh, w * 0.7, bh);
            p.fillRect(bar, QColor(0x3f, 0x7f, 0xd6));
            p.save();
            p.translate(left + w * (i + 0.5) + 4, top + h + 6);
            p.rotate(60);
            p.setPen(Qt::black);
            p.drawText(QPointF(0, 0), bars_[i].first);
            p.restore();
        }
    }

private:
    std::vector<std::pair<QString, double>> bars_;
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
    static constexpr int kCell = 130;
    void paintEvent(QPaintEvent*) override
    {
        QPainter p(this);
        p.fillRect(rect(), Qt::white);
        p.setRenderHint(QPainter::Antialiasing);
        const int cols = std::max(1, std::min(6, std::max(1, width() / kCell)));
        for (size_t q = 0; q < vectors_.size(); ++q) {
            const QPointF c(kCell * (q % cols) + kCell / 2.0, kCell * (q / cols) + kCell / 2.0 - 6);
            const double r = kCell * 0.36;
            p.setPen(QPen(QColor(0x99, 0x99, 0x99), 1));
            p.setBrush(QColor(0xf4, 0xf7, 0xfb));
            p.drawEllipse(c, r, r);
            p.setBrush(Qt::NoBrush);
            p.setPen(QPen(QColor(0xbb, 0xbb, 0xbb), 1, Qt::DashLine));
            p.drawEllipse(c, r, r * 0.3);   // the equator seen from slightly above
            // Oblique projection: x to the lower left, y to the right, z up.
            const auto& v = vectors_[q];
            const QPointF tip = c + QPointF(v[1] * r - v[0] * r * 0.35, -v[2] * r + v[0] * r * 0.3);
            p.setPen(QPen(QColor(0xd0, 0x40, 0x30), 2.2));
            p.drawLine(c, tip);
            p.setBrush(QColor(0xd0, 0x40, 0x30));
            p.drawEllipse(tip, 3.5, 3.5);
            p.setPen(Qt::black);
            p.drawText(QRectF(c.x() - kCell / 2.0, c.y() - r - 18, kCell, 14), Qt::AlignCenter, QStringLiteral("q[%1]").arg(q));
            const double len = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
            p.drawText(QRectF(c.x() - kCell / 2.0, c.y() + r + 2, kCell, 14), Qt::AlignCenter,
                       QStringLiteral("(%1, %2, %3) |r|=%4").arg(v[0], 0, 'f', 2).arg(v[1], 0, 'f', 2).arg(v[2], 0, 'f', 2).arg(len, 0, 'f', 2));
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
    counts_->setColumnCount(3);
    counts_->setHorizontalHeaderLabels({tr("outcome"), tr("count"), tr("fraction")});
    counts_->verticalHeader()->hide();
    counts_->horizontalHeader()->setStretchLastSection(true);
    tabs_->addTab(histogram_, tr("Probabilities"));
    tabs_->addTab(amplitudes_, tr("Amplitudes"));
    tabs_->addTab(blochScroll, tr("Bloch"));
    tabs_->addTab(counts_, tr("Counts"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(summary_);
    layout->addWidget(tabs_, 1);
    connect(document_, &Document::documentChanged, this, &StateView::showRun);
    showRun();
}

int StateView::histogramBars() const { return histogram_->bars(); }

void StateView::showRun()
{
    const auto run = document_->compiled().quantumRun;
    amplitudes_->setRowCount(0);
    counts_->setRowCount(0);
    if (!run) {
        summary_->setText(tr("Open a circuit (.qasm) to see its final state."));
        histogram_->setBars({});
        bloch_->setVectors({});
        return;
    }
    QString text = tr("%1 qubits, %2 shots (seed %3), simulated in %4 ms.").arg(run->qubits).arg(run->shots).arg(run->seed).arg(run->simMs, 0, 'f', 2);
    if (!run->note.isEmpty())
        text += QLatin1Char(' ') + run->note;
    summary_->setText(text);

    std::vector<std::pair<QString, double>> bars;
    for (const auto& a : run->topAmplitudes)
        if (bars.size() < 16 && a.probability > 1e-9)
            bars.push_back({ket(a.index, run->qubits), a.probability});
    histogram_->setBars(std::move(bars));

    amplitudes_->setRowCount(static_cast<int>(run->topAmplitudes.size()));
    for (int row = 0; row < static_cast<int>(run->topAmplitudes.size()); ++row) {
        const auto& a = run->topAmplitudes[static_cast<size_t>(row)];
        amplitudes_->setItem(row, 0, cell(ket(a.index, run->qubits), false));
        amplitudes_->setItem(row, 1, cell(QString::number(a.value.real(), 'f', 5)));
        amplitudes_->setItem(row, 2, cell(QString::number(a.value.imag(), 'f', 5)));
        amplitudes_->setItem(row, 3, cell(QString::number(std::abs(a.value), 'f', 5)));
        amplitudes_->setItem(row, 4, cell(QString::number(std::arg(a.value) / M_PI, 'f', 4) + QStringLiteral("π")));
        amplitudes_->setItem(row, 5, cell(QString::number(a.probability, 'f', 5)));
    }
    bloch_->setVectors(run->bloch);

    std::vector<std::pair<std::string, int>> sorted(run->counts.begin(), run->counts.end());
    std::sort(sorted.begin(), sorted.end(), [](auto& a, auto& b) { return a.second != b.second ? a.second > b.second : a.first < b.first; });
    counts_->setRowCount(static_cast<int>(sorted.size()));
    for (int row = 0; row < static_cast<int>(sorted.size()); ++row) {
        counts_->setItem(row, 0, cell(QString::fromStdString(sorted[static_cast<size_t>(row)].first), false));
        counts_->setItem(row, 1, cell(QString::number(sorted[static_cast<size_t>(row)].second)));
        counts_->setItem(row, 2, cell(QString::number(static_cast<double>(sorted[static_cast<size_t>(row)].second) / std::max(1, run->shots), 'f', 4)));
    }
}

}  // namespace spyglass
