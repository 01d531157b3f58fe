#include "core/quantum/vqe_report.h"

#include "core/common/diagnostics.h"

#include <QJsonArray>

namespace spyglass::quantum {

namespace {

const char kTfimName[] = "TFIM chain (J = h = 1, periodic)";

}  // namespace

VqeReport runVqeReport(VqeOptions o, const std::string& hamiltonianFile, bool exact, JobControl* job)
{
    VqeReport r;
    if (!hamiltonianFile.empty()) {
        o.hamiltonian = readPauliSumFile(hamiltonianFile);
        r.hamiltonianName = hamiltonianFile;
    } else if (!o.hamiltonian) {
        o.hamiltonian = tfimHamiltonian(o.qubits);
        r.hamiltonianName = kTfimName;
    } else {
        r.hamiltonianName = "Pauli sum";
    }
    r.result = runVqe(o, job);
    if (exact && o.qubits <= kVqeExactMaxQubits)
        r.exactEnergy = exactGroundEnergy(*o.hamiltonian, o.qubits);
    r.options = std::move(o);
    return r;
}

std::string vqeAnsatzText(int n, int layers)
{
    const int pairs = n > 2 ? n : n - 1;
    const std::string params = std::to_string(n * (layers + 1)) + " parameters, started uniform in [-π, π) from the seed";
    if (layers == 0)
        return "one RY layer on the " + std::to_string(n) + " qubits (a product state): " + params;
    return std::to_string(layers) + (layers == 1 ? " layer" : " layers") + " of [RY on each of the " + std::to_string(n) + " qubits, then " +
           std::to_string(pairs) + " CZ on " + (n > 2 ? "the ring" : "the chain") + "], then a final RY layer: " + params;
}

std::vector<std::pair<std::string, double>> vqeOptimizerSettings(const std::string& optimizer)
{
    if (optimizer == "nelder-mead") {
        const NelderMeadSettings s;
        return {{"initial simplex step", s.initialStep}, {"reflection", s.reflection}, {"expansion", s.expansion},
                {"contraction", s.contraction}, {"shrink", s.shrink}};
    }
    if (optimizer == "spsa") {
        const SpsaSettings s;
        return {{"a", s.a}, {"c", s.c}, {"A", s.A}, {"alpha", s.alpha}, {"gamma", s.gamma}};
    }
    return {};
}

QJsonObject vqeReportJson(const VqeReport& r)
{
    const VqeOptions& o = r.options;
    QJsonObject j;
    j[QStringLiteral("energy")] = r.result.energy;
    if (r.exactEnergy)
        j[QStringLiteral("exact_energy")] = *r.exactEnergy;
    j[QStringLiteral("evaluations")] = r.result.evaluations;
    j[QStringLiteral("wall_ms")] = r.result.wallMs;
    j[QStringLiteral("qubits")] = o.qubits;
    j[QStringLiteral("layers")] = o.layers;
    j[QStringLiteral("parameters")] = static_cast<int>(r.result.parameters.size());
    j[QStringLiteral("optimizer")] = QString::fromStdString(o.optimizer);
    j[QStringLiteral("iterations")] = o.iterations;
    j[QStringLiteral("seed")] = static_cast<qint64>(o.seed);   // exact: seeds go up to 2^63 - 1
    j[QStringLiteral("ranks")] = r.result.ranks;
    j[QStringLiteral("precision")] = o.precision == Precision::Double ? QStringLiteral("double") : QStringLiteral("single");
    j[QStringLiteral("hamiltonian")] = QString::fromStdString(r.hamiltonianName);
    j[QStringLiteral("hamiltonian_terms")] = QString::fromStdString(o.hamiltonian ? o.hamiltonian->text() : std::string());
    QJsonObject settings;
    for (const auto& [name, value] : vqeOptimizerSettings(o.optimizer))
        settings[QString::fromStdString(name)] = value;
    j[QStringLiteral("optimizer_settings")] = settings;
    QJsonArray history;
    for (double e : r.result.history)
        history.append(e);
    j[QStringLiteral("history")] = history;
    QJsonArray theta;   // the parameters of the best energy, so the ansatz can be redrawn as it ended
    for (double t : r.result.parameters)
        theta.append(t);
    j[QStringLiteral("best_parameters")] = theta;
    return j;
}

VqeReport vqeReportFromJson(const QJsonObject& j)
{
    auto need = [&](const char* key) {
        const QJsonValue v = j.value(QLatin1String(key));
        if (v.isUndefined())
            throw InputError(SourceLocation{}, std::string("VQE result: no '") + key + "' field (recorded by an older spyglass?)");
        return v;
    };
    VqeReport r;
    r.options.qubits = need("qubits").toInt();
    r.options.layers = need("layers").toInt();
    r.options.optimizer = need("optimizer").toString().toStdString();
    r.options.iterations = need("iterations").toInt();
    r.options.seed = static_cast<uint64_t>(need("seed").toInteger());
    r.options.precision = j.value(QLatin1String("precision")).toString() == QLatin1String("single") ? Precision::Single : Precision::Double;
    r.hamiltonianName = need("hamiltonian").toString().toStdString();
    r.options.hamiltonian = parsePauliSum(need("hamiltonian_terms").toString().toStdString(), "<recorded hamiltonian>");
    r.result.energy = need("energy").toDouble();
    r.result.evaluations = need("evaluations").toInt();
    r.result.wallMs = j.value(QLatin1String("wall_ms")).toDouble();
    r.result.ranks = j.value(QLatin1String("ranks")).toInt(1);
    for (const QJsonValue& e : need("history").toArray())
        r.result.history.push_back(e.toDouble());
    for (const QJsonValue& t : j.value(QLatin1String("best_parameters")).toArray())
        r.result.parameters.push_back(t.toDouble());
    if (j.contains(QLatin1String("exact_energy")))
        r.exactEnergy = j.value(QLatin1String("exact_energy")).toDouble();
    return r;
}

}  // namespace spyglass::quantum
