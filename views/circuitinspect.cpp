#include "views/circuitinspect.h"

#include "views/circuitview.h"

#include "core/quantum/circuit.h"

#include <QCoreApplication>
#include <QStringList>

namespace spyglass {

namespace {
QString tr(const char* text) { return QCoreApplication::translate("CircuitInspector", text); }
}  // namespace

InspectorContent inspectCircuitOpContent(const quantum::Circuit& c, int index, const std::string& pass, int column, int columns)
{
    InspectorContent content;
    if (index < 0 || index >= static_cast<int>(c.ops.size()))
        return content;
    const quantum::Op& op = c.ops[static_cast<size_t>(index)];
    InspectorSection gate{tr("Operation"), {}};
    gate.rows.push_back({tr("name"), QString::fromStdString(op.name)});
    gate.rows.push_back({tr("index in circuit"), QString::number(index)});
    QStringList qubits, params, clbits;
    for (int q : op.qubits)
        qubits << QString::fromStdString(c.qubitName(q));
    for (double p : op.params)
        params << CircuitView::formatAngle(p) + QStringLiteral(" (") + QString::number(p, 'g', 10) + QStringLiteral(")");
    for (int b : op.clbits)
        clbits << QString::fromStdString(c.clbitName(b));
    gate.rows.push_back({tr("qubits"), qubits.join(QStringLiteral(", "))});
    if (!params.isEmpty())
        gate.rows.push_back({tr("parameters"), params.join(QStringLiteral(", "))});
    if (!clbits.isEmpty())
        gate.rows.push_back({tr("classical bits"), clbits.join(QStringLiteral(", "))});
    if (op.cond.active())
        gate.rows.push_back({tr("condition"), QStringLiteral("if (%1 == %2)").arg(QString::fromStdString(c.cregs[static_cast<size_t>(op.cond.creg)].name)).arg(op.cond.value)});
    if (op.line > 0)
        gate.rows.push_back({tr("source line"), QString::number(op.line)});
    if (op.fused) {
        gate.rows.push_back({tr("fused gates"), QString::number(op.fused->gateCount)});
        // How the simulator runs the block: its product, or its gates one after another (a program).
        gate.rows.push_back({tr("runs as"), op.fused->program.empty() ? tr("one %1-qubit matrix").arg(op.qubits.size())
                                                                       : tr("a program of %1 steps in one sweep").arg(op.fused->program.size())});
    }
    gate.rows.push_back({tr("drawn in column"), QString::number(column)});
    InspectorSection circuit{tr("Circuit at this pass"), {}};
    circuit.rows.push_back({tr("pass"), QString::fromStdString(pass)});
    circuit.rows.push_back({tr("qubits"), QString::number(c.numQubits)});
    circuit.rows.push_back({tr("gates"), QString::number(c.gateCount())});
    circuit.rows.push_back({tr("depth (columns)"), QString::number(columns)});
    content.heading = QString::fromStdString(op.name) + QStringLiteral(" on ") + qubits.join(QStringLiteral(", "));
    content.sections = {gate, circuit};
    content.found = true;
    return content;
}

}  // namespace spyglass
