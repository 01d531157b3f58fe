#include "views/vqedialogs.h"

#include "core/workbench/vqe_record.h"

#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSpinBox>
#include <QStringList>

#include <limits>

namespace spyglass {

std::optional<VqeRequest> askVqeRun(QWidget* parent)
{
    QDialog dialog(parent);
    dialog.setWindowTitle(QObject::tr("Run VQE"));
    auto* form = new QFormLayout(&dialog);
    auto spin = [&](int lo, int hi, int value) {
        auto* s = new QSpinBox(&dialog);
        s->setRange(lo, hi);
        s->setValue(value);
        return s;
    };
    const quantum::VqeOptions defaults;
    QSpinBox* qubits = spin(1, 24, defaults.qubits);
    QSpinBox* layers = spin(0, 50, defaults.layers);
    auto* optimizer = new QComboBox(&dialog);
    optimizer->addItems({QStringLiteral("nelder-mead"), QStringLiteral("spsa")});
    QSpinBox* iterations = spin(0, 1000000, defaults.iterations);
    QSpinBox* seed = spin(0, std::numeric_limits<int>::max(), static_cast<int>(defaults.seed));
    auto* hamiltonian = new QLineEdit(&dialog);
    hamiltonian->setPlaceholderText(QObject::tr("empty: the transverse-field Ising chain"));
    auto* browse = new QPushButton(QObject::tr("Browse…"), &dialog);
    QObject::connect(browse, &QPushButton::clicked, &dialog, [&] {
        const QString f = QFileDialog::getOpenFileName(&dialog, QObject::tr("Hamiltonian"), QString(),
                                                       QObject::tr("Pauli sums (*.txt *.ham *.pauli);;All files (*)"));
        if (!f.isEmpty())
            hamiltonian->setText(f);
    });
    auto* hrow = new QHBoxLayout;
    hrow->addWidget(hamiltonian, 1);
    hrow->addWidget(browse);
    form->addRow(QObject::tr("Qubits"), qubits);
    form->addRow(QObject::tr("Ansatz layers"), layers);
    form->addRow(QObject::tr("Optimiser"), optimizer);
    form->addRow(QObject::tr("Iterations"), iterations);
    form->addRow(QObject::tr("Seed"), seed);
    form->addRow(QObject::tr("Hamiltonian file"), hrow);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    QObject::connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    QObject::connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    form->addRow(buttons);
    if (dialog.exec() != QDialog::Accepted)
        return std::nullopt;
    VqeRequest r;
    r.options.qubits = qubits->value();
    r.options.layers = layers->value();
    r.options.optimizer = optimizer->currentText().toStdString();
    r.options.iterations = iterations->value();
    r.options.seed = static_cast<uint64_t>(seed->value());
    r.hamiltonianFile = hamiltonian->text().trimmed();
    return r;
}

std::optional<session::RowId> askRecordedVqeRun(QWidget* parent, session::SessionStore& store)
{
    const std::vector<RecordedVqeRun> runs = recordedVqeRuns(store);
    if (runs.empty()) {
        QMessageBox::information(parent, QObject::tr("Open VQE Run"),
                                 QObject::tr("The session history has no VQE runs yet. Run one with Quantum > Run VQE… or "
                                             "spyglass-cli vqe --session NAME."));
        return std::nullopt;
    }
    QStringList labels;
    for (const RecordedVqeRun& r : runs) {
        const QJsonObject result = QJsonDocument::fromJson(QByteArray::fromStdString(r.run.resultJson)).object();
        labels << QObject::tr("run %7 · %1 · session '%2' · %3 qubits, %4, %5 iterations · E = %6")
                      .arg(QString::fromStdString(r.run.startedAt), QString::fromStdString(r.sessionName))
                      .arg(result.value(QLatin1String("qubits")).toInt())
                      .arg(result.value(QLatin1String("optimizer")).toString())
                      .arg(result.value(QLatin1String("iterations")).toInt())
                      .arg(result.value(QLatin1String("energy")).toDouble(), 0, 'f', 6)
                      .arg(r.run.id);
    }
    bool ok = false;
    const QString choice = QInputDialog::getItem(parent, QObject::tr("Open VQE Run"), QObject::tr("Recorded VQE runs, newest first:"), labels, 0, false, &ok);
    if (!ok)
        return std::nullopt;
    return runs[static_cast<size_t>(labels.indexOf(choice))].run.id;
}

}  // namespace spyglass
