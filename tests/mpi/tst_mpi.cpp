// The distributed state vector against one process: `mpirun -np 1/2/4/8 spyglass-cli qsim` gives the same final
// state (fidelity > 1 - 1e-12) and the same seeded counts as a plain `spyglass-cli qsim` for the bundled
// circuits, random circuits over every standard gate, QFT, QASMBench files and circuits with mid-circuit
// measurement; `vqe` gives the same energies; diagonal gates and controls on global qubits move no data; bad rank
// counts fail once with exit 2. The planner (distributed_plan.h) is checked in-process. Needs a build with MPI
// and Open MPI's mpirun (ranks share this machine's cores: --oversubscribe).
#include "common/testutil.h"

#include "core/quantum/distributed_plan.h"
#include "core/quantum/distributed_statevector.h"
#include "core/quantum/export.h"
#include "core/quantum/gates.h"
#include "core/quantum/generators.h"
#include "core/quantum/simulator.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>
#include <QtTest>

#include <complex>
#include <random>

using namespace spyglass;
using namespace spyglass::quantum;
using spyglass::test::CliResult;

namespace {

struct QsimOut {
    int exitCode = -1;
    QJsonObject json;
    std::vector<std::complex<double>> amplitudes;
    QByteArray err;
};

// OpenQASM of a circuit that uses every standard gate (round robin, random qubits and angles), measured at the end.
std::string allGatesCircuit(int n, int gates, uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> angle(-4, 4);
    Circuit c;
    c.name = "all_gates";
    c.numQubits = n;
    c.numClbits = n;
    c.qregs.push_back({"q", n, 0});
    c.cregs.push_back({"c", n, 0});
    const auto& all = stdGates();
    for (int i = 0; i < gates; ++i) {
        const StdGate& g = all[static_cast<size_t>(i) % all.size()];
        Op op;
        op.name = g.name;
        while (static_cast<int>(op.qubits.size()) < g.qubits) {
            const int q = static_cast<int>(rng() % uint64_t(n));
            if (std::find(op.qubits.begin(), op.qubits.end(), q) == op.qubits.end())
                op.qubits.push_back(q);
        }
        for (int p = 0; p < g.params; ++p)
            op.params.push_back(angle(rng));
        c.ops.push_back(op);
    }
    return exportQasm(c) + "measure q -> c;\n";
}

double fidelity(const std::vector<std::complex<double>>& a, const std::vector<std::complex<double>>& b)
{
    std::complex<double> s = 0;
    double na = 0, nb = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        s += std::conj(a[i]) * b[i];
        na += std::norm(a[i]);
        nb += std::norm(b[i]);
    }
    return std::norm(s) / (na * nb);
}

}  // namespace

class TestMpi : public QObject {
    Q_OBJECT

    QString mpirun_;
    int runs_ = 0;

    QString write(const QString& name, const std::string& text)
    {
        const QString path = test::outputDir() + QStringLiteral("/mpi_") + name;
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly))
            return {};
        f.write(text.data(), static_cast<qint64>(text.size()));
        return path;
    }

    // np 0: one plain process; otherwise mpirun -np np.
    CliResult launch(int np, const QStringList& args)
    {
        ++runs_;
        if (np == 0)
            return test::runCli(args);
        QStringList all = {QStringLiteral("--allow-run-as-root"), QStringLiteral("--oversubscribe"), QStringLiteral("--bind-to"),
                           QStringLiteral("none"), QStringLiteral("-x"), QStringLiteral("OMP_NUM_THREADS=1")};
        // Under ASan (make test-asan): Open MPI's components, unloaded at MPI_Finalize, keep blocks LeakSanitizer
        // can only report from an "<unknown module>", so no suppression can name them. The ranks keep ASan and
        // UBSan; leaks of our own code are checked by every single-process suite, qsim included.
        if (const QString asan = qEnvironmentVariable("ASAN_OPTIONS"); !asan.isEmpty())
            all += {QStringLiteral("-x"), QStringLiteral("ASAN_OPTIONS=") + asan + QStringLiteral(":detect_leaks=0")};
        all += {QStringLiteral("-np"), QString::number(np), test::cliPath()};
        return test::runProgram(mpirun_, all + args, 60000);
    }

    QsimOut qsim(int np, const QString& file, const QStringList& extra, bool state)
    {
        const QString svPath = test::outputDir() + QStringLiteral("/mpi_state_np") + QString::number(np) + QStringLiteral(".json");
        QFile::remove(svPath);
        QStringList args = {QStringLiteral("qsim"), file, QStringLiteral("--seed"), QStringLiteral("11"), QStringLiteral("--json")};
        if (state)
            args += {QStringLiteral("--statevector"), svPath};
        args += extra;
        const CliResult r = launch(np, args);
        QsimOut o;
        o.exitCode = r.exitCode;
        o.err = r.err;
        o.json = QJsonDocument::fromJson(r.out).object();
        if (state) {
            QFile f(svPath);
            if (f.open(QIODevice::ReadOnly)) {
                const QJsonArray amps = QJsonDocument::fromJson(f.readAll()).object().value(QStringLiteral("amplitudes")).toArray();
                for (const QJsonValue& a : amps)
                    o.amplitudes.emplace_back(a.toArray().at(0).toDouble(), a.toArray().at(1).toDouble());
            }
        }
        return o;
    }

    // The file's counts (and final state unless it has mid-circuit measurement) under each rank count equal the
    // single-process run's.
    void compare(const QString& file, const QStringList& extra = {}, bool state = true, const std::vector<int>& nps = {1, 2, 4, 8})
    {
        const QsimOut ref = qsim(0, file, extra, state);
        QVERIFY2(ref.exitCode == 0, ref.err.constData());
        QVERIFY(!ref.json.value(QStringLiteral("counts")).toObject().isEmpty());
        if (state)
            QVERIFY(!ref.amplitudes.empty());
        for (int np : nps) {
            const QsimOut got = qsim(np, file, extra, state);
            const QByteArray what = (file + QStringLiteral(" -np ") + QString::number(np) + QLatin1Char(' ') + extra.join(QLatin1Char(' '))).toUtf8();
            QVERIFY2(got.exitCode == 0, QByteArray(what + ": " + got.err).constData());
            QVERIFY2(got.json.value(QStringLiteral("counts")) == ref.json.value(QStringLiteral("counts")), what.constData());
            if (state) {
                QCOMPARE(got.amplitudes.size(), ref.amplitudes.size());
                const double f = fidelity(ref.amplitudes, got.amplitudes);
                QVERIFY2(f > 1 - 1e-12, QByteArray(what + ": fidelity " + QByteArray::number(f, 'g', 17)).constData());
            }
        }
    }

private slots:
    void initTestCase()
    {
        if (!distributed::builtWithMpi())
            QSKIP("built without MPI");
        mpirun_ = QStandardPaths::findExecutable(QStringLiteral("mpirun"));
        QVERIFY2(!mpirun_.isEmpty(), "built with MPI but mpirun is not on PATH (scripts/install-deps.sh installs openmpi-bin)");
    }

    void cleanupTestCase() { qInfo("%d launches", runs_); }

    void bundledCircuits()
    {
        const QDir dir(test::sourcePath(QStringLiteral("resources/examples")));
        const QStringList files = dir.entryList({QStringLiteral("*.qasm")}, QDir::Files, QDir::Name);
        QVERIFY(files.size() >= 7);
        for (const QString& f : files)
            compare(dir.filePath(f));
        // Unfused, every gate is its own kernel and more of them reach the global qubits.
        compare(dir.filePath(QStringLiteral("qft8.qasm")), {QStringLiteral("--no-fusion")});
    }

    void randomCircuitsOverEveryGate()
    {
        for (int n : {10, 12}) {
            const QString file = write(QStringLiteral("all_gates_%1.qasm").arg(n), allGatesCircuit(n, 160, uint64_t(n)));
            compare(file);
        }
        const QString file = write(QStringLiteral("all_gates_single.qasm"), allGatesCircuit(11, 120, 5));
        compare(file, {QStringLiteral("--no-fusion")}, true, {4});
    }

    void qftAndRandomLayers()
    {
        compare(write(QStringLiteral("qft13.qasm"), exportQasm(makeQft(13, 0x1a5))), {}, true, {2, 8});
        compare(write(QStringLiteral("layers12.qasm"), exportQasm(makeRandomLayers(12, 8, 3))), {}, true, {2, 4});
        // 16 local qubits: the ranks' own runs take StateVector::applyAll's cache-blocked path (chunks and tiles).
        compare(write(QStringLiteral("layers17.qasm"), exportQasm(makeRandomLayers(17, 6, 4))), {}, true, {2});
        compare(write(QStringLiteral("all_gates_17.qasm"), allGatesCircuit(17, 120, 17)), {}, true, {2});
    }

    void qasmBench()
    {
        for (const char* f : {"small/adder_n10/adder_n10.qasm", "small/ising_n10/ising_n10.qasm", "medium/multiply_n13/multiply_n13.qasm",
                              "medium/sat_n11/sat_n11.qasm", "medium/bv_n14/bv_n14.qasm"})
            compare(test::dataPath(QStringLiteral("qasmbench/") + QLatin1String(f)), {}, true, {2, 4});
    }

    // Mid-circuit measurement and if: shot by shot on the distributed state, the same draws.
    void trajectories()
    {
        compare(test::dataPath(QStringLiteral("qasmbench/medium/cc_n12/cc_n12.qasm")), {QStringLiteral("--shots"), QStringLiteral("64")}, false,
                {2, 4});
        const std::string text = "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[9];\ncreg c[9];\n"
                                 "h q;\ncx q[8], q[0];\nry(0.7) q[7];\nmeasure q[8] -> c[8];\nif(c==256) x q[6];\n"
                                 "reset q[7];\nh q[7];\ncp(0.3) q[7], q[8];\nmeasure q -> c;\n";
        compare(write(QStringLiteral("midcircuit.qasm"), text), {QStringLiteral("--shots"), QStringLiteral("64")}, false, {2, 8});
    }

    // Diagonal gates, controls on the global qubits (q[8], q[9] on 4 ranks; after the first SWAP, q[0] in
    // superposition sits in q[9]'s global place) and SWAP gates need no exchange; a Hadamard there does.
    void globalDiagonalsAndControlsMoveNoData()
    {
        const std::string head = "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[10];\ncreg c[10];\n";
        const std::string quiet = head + "h q[0];\nh q[1];\nh q[2];\ncp(0.4) q[9], q[8];\nrz(0.2) q[9];\nrzz(0.3) q[8], q[9];\n"
                                         "swap q[0], q[9];\ncx q[0], q[6];\ncry(0.9) q[0], q[7];\nrz(0.3) q[0];\ncx q[9], q[3];\nccx q[9], q[1], q[4];\ncrx(0.8) q[9], q[5];\n"
                                         "t q[9];\ncz q[9], q[2];\nswap q[2], q[8];\nswap q[0], q[9];\nmeasure q -> c;\n";
        const QString quietFile = write(QStringLiteral("quiet.qasm"), quiet);
        compare(quietFile, {QStringLiteral("--no-fusion")}, true, {4});
        const CliResult r = launch(4, {QStringLiteral("qsim"), quietFile, QStringLiteral("--json"), QStringLiteral("--no-fusion")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(o.value(QStringLiteral("ranks")).toInt(), 4);
        // Only the way back to logical order moves data: q[2]'s state ends in slot 9's place (one swap).
        QCOMPARE(o.value(QStringLiteral("mpi_exchanges")).toInt(), 1);
        const CliResult h = launch(4, {QStringLiteral("qsim"), write(QStringLiteral("loud.qasm"), head + "h q[9];\nmeasure q -> c;\n"),
                                       QStringLiteral("--json")});
        const QJsonObject ho = QJsonDocument::fromJson(h.out).object();
        // One swap brings q[9] in, one more puts it back for the logical order: half of 2^8 amplitudes each.
        QCOMPARE(ho.value(QStringLiteral("mpi_exchanges")).toInt(), 2);
        QCOMPARE(ho.value(QStringLiteral("mpi_bytes_sent")).toInt(), 2 * 128 * 16);
    }

    void vqeEnergiesAgree()
    {
        const QStringList args = {QStringLiteral("vqe"), QStringLiteral("--qubits"), QStringLiteral("10"), QStringLiteral("--layers"),
                                  QStringLiteral("2"), QStringLiteral("--iterations"), QStringLiteral("40"), QStringLiteral("--seed"),
                                  QStringLiteral("3"), QStringLiteral("--no-exact"), QStringLiteral("--json")};
        const CliResult ref = launch(0, args);
        QVERIFY2(ref.exitCode == 0, ref.err.constData());
        const double e0 = QJsonDocument::fromJson(ref.out).object().value(QStringLiteral("energy")).toDouble();
        QVERIFY(e0 < -1);   // 40 Nelder-Mead steps from a random start on 30 parameters get part of the way to -12.8
        for (int np : {2, 4}) {
            const CliResult r = launch(np, args);
            QVERIFY2(r.exitCode == 0, r.err.constData());
            const QJsonObject o = QJsonDocument::fromJson(r.out).object();
            QCOMPARE(o.value(QStringLiteral("ranks")).toInt(), np);
            QVERIFY2(std::abs(o.value(QStringLiteral("energy")).toDouble() - e0) < 1e-10,
                     QByteArray::number(o.value(QStringLiteral("energy")).toDouble() - e0, 'g', 6).constData());
        }
    }

    void badRankCountFailsOnce()
    {
        const CliResult r = launch(3, {QStringLiteral("qsim"), test::sourcePath(QStringLiteral("resources/examples/ghz5.qasm"))});
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(r.err.count("must be a power of two"), 1);
        // Every rank parses the file and fails; rank 0 alone says so.
        const CliResult bad = launch(4, {QStringLiteral("qsim"), test::dataPath(QStringLiteral("bad/bad_expression.qasm"))});
        QCOMPARE(bad.exitCode, 2);
        QCOMPARE(bad.err.count("bad_expression.qasm:4:7: error: expected an expression"), 1);
    }

    // 36 qubits on 2 ranks need 512 GiB per rank, twice that for the node: refused before any rank allocates, said once.
    void outOfMemoryFailsOnce()
    {
        const QString file = write(QStringLiteral("ghz36.qasm"), exportQasm(makeGhz(36)));
        const CliResult r = launch(2, {QStringLiteral("qsim"), file});
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(r.err.count("35 qubits in complex128 need"), 1);
        QCOMPARE(r.err.count("ranks share this node's memory"), 1);
    }

    // Without --seed each rank would draw its own: rank 0's is used everywhere, and it reproduces on one process.
    void unseededRunUsesOneSeed()
    {
        const QString qft8 = test::sourcePath(QStringLiteral("resources/examples/qft8.qasm"));
        const CliResult r = launch(4, {QStringLiteral("qsim"), qft8, QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        const QString seed = QString::number(static_cast<qulonglong>(o.value(QStringLiteral("seed")).toDouble()), 10);
        const CliResult one = launch(0, {QStringLiteral("qsim"), qft8, QStringLiteral("--json"), QStringLiteral("--seed"), seed});
        QCOMPARE(o.value(QStringLiteral("counts")), QJsonDocument::fromJson(one.out).object().value(QStringLiteral("counts")));
    }

    // Rank 0 alone records the run.
    void sessionRecordedOnce()
    {
        const QString db = test::outputDir() + QStringLiteral("/mpi_sessions.db");
        QFile::remove(db);
        const CliResult r = launch(2, {QStringLiteral("qsim"), test::sourcePath(QStringLiteral("resources/examples/ghz5.qasm")),
                                       QStringLiteral("--session"), QStringLiteral("mpi"), QStringLiteral("--db"), db});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const CliResult list = launch(0, {QStringLiteral("sessions"), QStringLiteral("list"), QStringLiteral("--db"), db, QStringLiteral("--json")});
        const QJsonArray sessions = QJsonDocument::fromJson(list.out).array();
        QCOMPARE(sessions.size(), 1);
        QCOMPARE(sessions.at(0).toObject().value(QStringLiteral("runs")).toInt(), 1);
    }

    void tooSmallRunsOnFewerRanks()
    {
        const QString qft4 = test::sourcePath(QStringLiteral("resources/examples/qft4.qasm"));
        const CliResult r = launch(8, {QStringLiteral("qsim"), qft4, QStringLiteral("--json"), QStringLiteral("--seed"), QStringLiteral("2")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(r.err.count("note: 4 qubits over 8 ranks"), 1);
        const CliResult one = launch(0, {QStringLiteral("qsim"), qft4, QStringLiteral("--json"), QStringLiteral("--seed"), QStringLiteral("2")});
        QCOMPARE(QJsonDocument::fromJson(r.out).object().value(QStringLiteral("counts")),
                 QJsonDocument::fromJson(one.out).object().value(QStringLiteral("counts")));
    }
};

// The planner without MPI: the swap strategy against pairwise exchange, and the way back to logical order.
class TestMpiPlan : public QObject {
    Q_OBJECT

private slots:
    void restoreReachesIdentity()
    {
        std::mt19937_64 rng(9);
        for (int trial = 0; trial < 200; ++trial) {
            distributed::QubitMap m(9, 3);
            for (int s = 0; s < 12; ++s)
                m.swapGlobalLocal(int(rng() % 3), int(rng() % 6));
            distributed::restoreIdentity(m);
            QVERIFY(m.identity());
        }
    }

    void swapsBeatPairwiseExchangeOnQft()
    {
        const auto gates = prepareGates(makeQft(24, 0, false));
        const auto swaps = distributed::countSwapStrategy(gates, 24, 2, 16, true);
        const auto pairwise = distributed::countPairwiseExchange(gates, 24, 2, 16);
        // QFT: each top qubit gets one Hadamard; the swap strategy brings each in once and back once at most.
        // H q[23] brings q[23] in and gives up q[0] (its H comes last), H q[22] gives up q[23] (done: the final
        // SWAP gates are relabellings), H q[0] brings q[0] back; restoring the logical order takes two more.
        QCOMPARE(swaps.exchanges, uint64_t(5));
        QCOMPARE(swaps.bytesSent, uint64_t(5) << (22 - 1 + 4));
        // QuEST: the whole local state for each of the 2 H on global qubits, half of it in and out for each of the
        // 2 SWAP gates that reach them.
        QCOMPARE(pairwise.exchanges, uint64_t(2 + 2 * 2));
        QCOMPARE(pairwise.bytesSent, uint64_t(4) << (22 + 4));
    }

    // GHZ: the CX from q[22] onto the global q[23] has a local control and q[23] is not needed again, so the ranks
    // exchange the controlled half in place (QuEST: the whole local state) and nothing needs restoring.
    void controlledGateExchangesInPlace()
    {
        Circuit ghz = makeGhz(24);
        const auto gates = prepareFinalGates(ghz);
        const auto ours = distributed::countSwapStrategy(gates, 24, 1, 16, true);
        QCOMPARE(ours.exchanges, uint64_t(1));
        QCOMPARE(ours.bytesSent, (uint64_t(1) << 22) * 16);
        const auto quest = distributed::countPairwiseExchange(gates, 24, 1, 16);
        QCOMPARE(quest.exchanges, uint64_t(1));
        QCOMPARE(quest.bytesSent, (uint64_t(1) << 23) * 16);
    }
};

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    TestMpiPlan plan;
    int status = QTest::qExec(&plan, argc, argv);
    TestMpi mpi;
    status |= QTest::qExec(&mpi, argc, argv);
    return status;
}

#include "tst_mpi.moc"
