// OpenQASM 2.0 front end: the whole QASMBench suite, the language features real files use, error
// positions, the built-in qelib1.inc definitions, and the QPIR text form.
#include "common/testutil.h"
#include "quantum/quantum_testutil.h"

#include "core/quantum/pass.h"
#include "core/quantum/pipeline.h"
#include "core/quantum/qasm_parser.h"
#include "core/quantum/qpir_printer.h"

#include <QDirIterator>
#include <QFile>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <numbers>

using namespace spyglass;
using namespace spyglass::quantum;
using namespace spyglass::test;

namespace {

Circuit parse(const std::string& text) { return parseQasmString(text, "t.qasm").circuit; }

const std::string kHead = "OPENQASM 2.0;\ninclude \"qelib1.inc\";\n";

// Files in QASMBench that are not valid OpenQASM: they measure a register 'q' that they never declare
// (their register is called 'reg'). The parser must reject them at exactly this place.
const std::map<QString, int> kInvalidFiles = {
    {QStringLiteral("small/vqe_uccsd_n4/vqe_uccsd_n4.qasm"), 225},
    {QStringLiteral("small/vqe_uccsd_n4/vqe_uccsd_n4_transpiled.qasm"), 242},
    {QStringLiteral("small/vqe_uccsd_n6/vqe_uccsd_n6.qasm"), 2286},
    {QStringLiteral("small/vqe_uccsd_n6/vqe_uccsd_n6_transpiled.qasm"), 2128},
    {QStringLiteral("small/vqe_uccsd_n8/vqe_uccsd_n8.qasm"), 10813},
    {QStringLiteral("small/vqe_uccsd_n8/vqe_uccsd_n8_transpiled.qasm"), 9680},
    {QStringLiteral("small/hhl_n10/hhl_n10.qasm"), 186801},
    {QStringLiteral("small/hhl_n10/hhl_n10_transpiled.qasm"), 199246},
};

// Unitary of a circuit of primitive gates, column by column.
std::vector<cplx> unitaryOf(const Circuit& c)
{
    const int dim = 1 << c.numQubits;
    std::vector<cplx> u(static_cast<size_t>(dim) * dim);
    for (int col = 0; col < dim; ++col) {
        std::vector<cplx> e(static_cast<size_t>(dim));
        e[col] = 1;
        const auto out = quantum::test::runOn(c, e);
        for (int r = 0; r < dim; ++r)
            u[static_cast<size_t>(r) * dim + col] = out[r];
    }
    return u;
}

}  // namespace

class TestQasmParser : public QObject {
    Q_OBJECT
private slots:
    void everyQasmBenchFileParses_data()
    {
        QTest::addColumn<QString>("rel");
        QTest::addColumn<int>("declaredQubits");
        QFile manifest(dataPath(QStringLiteral("qasmbench/MANIFEST.tsv")));
        QVERIFY(manifest.open(QIODevice::ReadOnly));
        std::map<QString, int> declared;
        manifest.readLine();
        while (!manifest.atEnd()) {
            const QStringList f = QString::fromUtf8(manifest.readLine()).trimmed().split(QLatin1Char('\t'));
            if (f.size() >= 3)
                declared[f[0]] = f[2].toInt();
        }
        int files = 0;
        QDirIterator it(dataPath(QStringLiteral("qasmbench")), {QStringLiteral("*.qasm")}, QDir::Files, QDirIterator::Subdirectories);
        std::vector<QString> all;
        while (it.hasNext())
            all.push_back(it.next());
        std::sort(all.begin(), all.end());
        for (const QString& path : all) {
            const QString rel = QDir(dataPath(QStringLiteral("qasmbench"))).relativeFilePath(path);
            QTest::newRow(rel.toUtf8().constData()) << rel << (declared.count(rel) ? declared[rel] : -1);
            ++files;
        }
        QCOMPARE(files, 127);
    }
    void everyQasmBenchFileParses()
    {
        QFETCH(QString, rel);
        QFETCH(int, declaredQubits);
        const std::string path = dataPath(QStringLiteral("qasmbench/") + rel).toStdString();
        if (kInvalidFiles.count(rel)) {
            try {
                parseQasmFile(path);
                QFAIL("an invalid file parsed");
            } catch (const InputError& e) {
                QCOMPARE(e.diagnostic().location.line, kInvalidFiles.at(rel));
                QCOMPARE(e.diagnostic().location.column, 9);
                QVERIFY(std::string(e.what()).find("undefined quantum register 'q'") != std::string::npos);
            }
            return;
        }
        ParseResult r = parseQasmFile(path);
        QCOMPARE(r.circuit.numQubits, declaredQubits);
        QVERIFY(r.circuit.gateCount() > 0);
        bool measures = false;
        for (const Op& op : r.circuit.ops)
            measures |= op.kind == OpKind::Measure;
        QVERIFY(measures);
        // After inlining, everything is a gate the simulator knows.
        Circuit c = r.circuit;
        makeInlineGatesPass()->run(c);
        for (const Op& op : c.ops)
            if (op.kind == OpKind::Gate)
                QVERIFY2(c.isPrimitive(op), op.name.c_str());
        QVERIFY(printQpir(c).rfind("qpir.circuit @", 0) == 0);
    }

    void missingHeaderIsAWarning()
    {
        ParseResult r = parseQasmString("include \"qelib1.inc\";\nqreg q[1];\nh q[0];\n", "nohead.qasm");
        QCOMPARE(r.warnings.size(), size_t(1));
        QCOMPARE(r.warnings[0].severity, Severity::Warning);
        QCOMPARE(r.warnings[0].location.line, 1);
        QCOMPARE(r.circuit.gateCount(), 1);
    }

    void expressions_data()
    {
        QTest::addColumn<QString>("expr");
        QTest::addColumn<double>("value");
        const double pi = std::numbers::pi;
        QTest::newRow("pi") << QStringLiteral("pi") << pi;
        QTest::newRow("3*pi/4") << QStringLiteral("3*pi/4") << 3 * pi / 4;
        QTest::newRow("-pi/4") << QStringLiteral("-pi/4") << -pi / 4;
        QTest::newRow("pi*0.35") << QStringLiteral("pi*0.35") << pi * 0.35;
        QTest::newRow("scientific") << QStringLiteral("1.5e-3") << 1.5e-3;
        QTest::newRow("scientific-int") << QStringLiteral("2E+2") << 200.0;
        QTest::newRow("power") << QStringLiteral("2^3^2") << 512.0;
        QTest::newRow("neg-power") << QStringLiteral("-2^2") << -4.0;
        QTest::newRow("funcs") << QStringLiteral("sin(pi/2)+cos(0)+tan(0)+exp(0)+ln(1)+sqrt(4)") << 5.0;
        QTest::newRow("precedence") << QStringLiteral("1+2*3-4/2") << 5.0;
        QTest::newRow("parens") << QStringLiteral("(1+2)*3") << 9.0;
        QTest::newRow("leading-dot") << QStringLiteral(".5") << 0.5;
    }
    void expressions()
    {
        QFETCH(QString, expr);
        QFETCH(double, value);
        Circuit c = parse(kHead + "qreg q[1];\nrz(" + expr.toStdString() + ") q[0];\n");
        QCOMPARE(c.ops.size(), size_t(1));
        QVERIFY(std::fabs(c.ops[0].params[0] - value) < 1e-12);
    }

    void spaceBeforeParenthesis()
    {
        Circuit c = parse(kHead + "qreg t[2];\nu1 (-3*pi/8) t[1];\n");
        QCOMPARE(c.ops[0].name, std::string("u1"));
        QVERIFY(std::fabs(c.ops[0].params[0] + 3 * std::numbers::pi / 8) < 1e-15);
    }

    void broadcastingAndRegisters()
    {
        Circuit c = parse(kHead + "qreg a[3];\nqreg b[3];\ncreg c[3];\ncreg d[1];\nx a;\ncx a, b;\ncx a[0], b;\n"
                                  "barrier a, b[1];\nmeasure b -> c;\nmeasure a[2] -> d[0];\nreset a;\n");
        QCOMPARE(c.numQubits, 6);
        QCOMPARE(c.numClbits, 4);
        int x = 0, cx = 0, meas = 0, resets = 0, barriers = 0;
        for (const Op& op : c.ops) {
            x += op.name == "x";
            cx += op.name == "cx";
            meas += op.kind == OpKind::Measure;
            resets += op.kind == OpKind::Reset;
            barriers += op.kind == OpKind::Barrier;
        }
        QCOMPARE(x, 3);
        QCOMPARE(cx, 6);
        QCOMPARE(meas, 4);
        QCOMPARE(resets, 3);
        QCOMPARE(barriers, 1);
        // cx a[0], b -> control 0 and targets 3, 4, 5
        QCOMPARE(c.ops[6].qubits, (std::vector<int>{0, 3}));
        QCOMPARE(c.ops[8].qubits, (std::vector<int>{0, 5}));
        QCOMPARE(c.ops[9].qubits.size(), size_t(4));   // barrier a, b[1]
    }

    void conditionsAndCustomGates()
    {
        Circuit c = parse(kHead + "gate inner(t) a { rz(t/2) a; }\ngate outer(t) a, b { inner(t*2) a; cx a, b; inner(-t) b; }\n"
                                  "opaque magic(x) a;\nqreg q[2];\ncreg m[2];\nouter(pi) q[0], q[1];\nif(m==2) x q[1];\n"
                                  "if (m == 1) measure q[0] -> m[1];\n");
        QCOMPARE(c.ops[0].name, std::string("outer"));
        QCOMPARE(c.ops[1].cond.creg, 0);
        QCOMPARE(c.ops[1].cond.value, uint64_t(2));
        QCOMPARE(c.ops[2].kind, OpKind::Measure);
        QVERIFY(c.ops[2].cond.active());
        QVERIFY(c.findGate("magic")->opaque);
        makeInlineGatesPass()->run(c);
        QCOMPARE(c.ops.size(), size_t(5));
        QCOMPARE(c.ops[0].name, std::string("rz"));
        QVERIFY(std::fabs(c.ops[0].params[0] - std::numbers::pi) < 1e-15);
        QCOMPARE(c.ops[2].name, std::string("rz"));
        QVERIFY(std::fabs(c.ops[2].params[0] + std::numbers::pi / 2) < 1e-15);
        // the QPIR text shows the definitions and the condition
        const std::string text = printQpir(c);
        QVERIFY(text.find("qpir.gate_def @outer(t) a, b { inner(t*2) a; cx a, b; inner(-t) b; }") != std::string::npos);
        QVERIFY(text.find("qpir.opaque_def @magic(x) a") != std::string::npos);
        QVERIFY(text.find("qpir.x q[1] if m == 2") != std::string::npos);
        QVERIFY(text.find("qpir.rz(pi) q[0]") != std::string::npos);
    }

    void printerIsCanonical()
    {
        Circuit c = parse(kHead + "qreg q[2];\ncreg c[2];\nh q[0];\nu3(pi/2, 0.1, -3*pi/4) q[1];\ncx q[0], q[1];\nmeasure q -> c;\n");
        const std::string expected =
            "qpir.circuit @t {qubits = 2, clbits = 2, ops = 5} {\n"
            "  qpir.qreg @q[2] : qubits 0..1\n"
            "  qpir.creg @c[2] : clbits 0..1\n"
            "  qpir.h q[0]\n"
            "  qpir.u3(pi/2, 0.1, -3*pi/4) q[1]\n"
            "  qpir.cx q[0], q[1]\n"
            "  qpir.measure q[0] -> c[0]\n"
            "  qpir.measure q[1] -> c[1]\n"
            "}\n";
        QCOMPARE(QString::fromStdString(printQpir(c)), QString::fromStdString(expected));
    }

    void errorsHaveLineAndColumn_data()
    {
        QTest::addColumn<QByteArray>("source");
        QTest::addColumn<int>("line");
        QTest::addColumn<int>("column");
        QTest::addColumn<QString>("message");
        const QByteArray h = QByteArray::fromStdString(kHead);
        QTest::newRow("unknown gate") << h + "qreg q[1];\nfoo q[0];\n" << 4 << 1 << QStringLiteral("unknown gate 'foo'");
        QTest::newRow("missing semicolon") << h + "qreg q[1];\nh q[0]\nh q[0];\n" << 5 << 1 << QStringLiteral("expected ';'");
        QTest::newRow("index out of range") << h + "qreg q[2];\nh q[2];\n" << 4 << 5 << QStringLiteral("out of range");
        QTest::newRow("undefined register") << h + "qreg q[2];\nh r[0];\n" << 4 << 3 << QStringLiteral("undefined quantum register 'r'");
        QTest::newRow("wrong param count") << h + "qreg q[2];\nrz q[0];\n" << 4 << 1 << QStringLiteral("takes 1 parameter");
        QTest::newRow("wrong qubit count") << h + "qreg q[2];\ncx q[0];\n" << 4 << 1 << QStringLiteral("acts on 2 qubit");
        QTest::newRow("duplicate qubit") << h + "qreg q[2];\ncx q[0], q[0];\n" << 4 << 10 << QStringLiteral("used twice");
        QTest::newRow("size mismatch") << h + "qreg a[2];\nqreg b[3];\ncx a, b;\n" << 5 << 7 << QStringLiteral("different sizes");
        QTest::newRow("measure mismatch") << h + "qreg a[2];\ncreg c[3];\nmeasure a -> c;\n" << 5 << 14 << QStringLiteral("same size");
        QTest::newRow("bad char") << h + "qreg q[1];\nh q[0]; @\n" << 4 << 9 << QStringLiteral("unexpected character '@'");
        QTest::newRow("sx without include") << QByteArray("OPENQASM 2.0;\nqreg q[1];\nsx q[0];\n") << 3 << 1 << QStringLiteral("missing include");
        QTest::newRow("version 3") << QByteArray("OPENQASM 3.0;\n") << 1 << 10 << QStringLiteral("unsupported OpenQASM version");
        QTest::newRow("if on qreg") << h + "qreg q[1];\nif(q==1) x q[0];\n" << 4 << 4 << QStringLiteral("quantum register");
        QTest::newRow("if value too big") << h + "qreg q[1];\ncreg c[2];\nif(c==4) x q[0];\n" << 5 << 7 << QStringLiteral("does not fit");
        QTest::newRow("unknown param") << h + "gate g(a) x { rz(b) x; }\n" << 3 << 18 << QStringLiteral("unknown identifier 'b'");
        QTest::newRow("gate arg not declared") << h + "gate g x { h y; }\n" << 3 << 14 << QStringLiteral("not a qubit argument");
        QTest::newRow("redefinition") << h + "gate h a { x a; }\n" << 3 << 6 << QStringLiteral("already defined");
        QTest::newRow("unterminated") << h + "qreg q[1];\nrz(pi q[0];\n" << 4 << 7 << QStringLiteral("expected ')'");
        QTest::newRow("ln of negative") << h + "qreg q[1];\nrz(ln(-1)) q[0];\n" << 4 << 4 << QStringLiteral("ln of a non-positive");
        QTest::newRow("measure in gate") << h + "gate g a { measure a; }\n" << 3 << 12 << QStringLiteral("not allowed inside a gate");
        QTest::newRow("duplicate register") << h + "qreg q[1];\ncreg q[1];\n" << 4 << 6 << QStringLiteral("already declared");
        QTest::newRow("zero size") << h + "qreg q[0];\n" << 3 << 8 << QStringLiteral("at least 1");
    }
    void errorsHaveLineAndColumn()
    {
        QFETCH(QByteArray, source);
        QFETCH(int, line);
        QFETCH(int, column);
        QFETCH(QString, message);
        try {
            parseQasmString(source.toStdString(), "bad.qasm");
            QFAIL("no error");
        } catch (const InputError& e) {
            const Diagnostic& d = e.diagnostic();
            QCOMPARE(d.location.file, std::string("bad.qasm"));
            QCOMPARE(d.location.line, line);
            QCOMPARE(d.location.column, column);
            QVERIFY2(d.message.find(message.toStdString()) != std::string::npos, d.message.c_str());
            QVERIFY(!d.sourceLine.empty());
            // format(): file:line:column, the line, and a caret under the column
            const std::string f = d.format();
            QVERIFY(f.rfind("bad.qasm:" + std::to_string(line) + ":" + std::to_string(column) + ": error: ", 0) == 0);
            QVERIFY(f.find("\n  " + d.sourceLine + "\n  " + std::string(static_cast<size_t>(column - 1), ' ') + "^") != std::string::npos);
        }
    }

    void includesResolveInsideTheFolderOnly()
    {
        const std::string dir = outputDir().toStdString() + "/qasm_include";
        std::filesystem::create_directories(dir + "/sub");
        auto write = [](const std::string& p, const std::string& text) { std::ofstream(p) << text; };
        write(dir + "/sub/defs.inc", "gate flip a { x a; }\n");
        write(dir + "/main.qasm", "OPENQASM 2.0;\ninclude \"qelib1.inc\";\ninclude \"sub/defs.inc\";\nqreg q[1];\nflip q[0];\n");
        write(dir + "/escape.qasm", "OPENQASM 2.0;\ninclude \"../secret.inc\";\n");
        write(dir + "/sub/up.inc", "include \"../main.qasm\";\n");
        write(dir + "/viaup.qasm", "OPENQASM 2.0;\ninclude \"sub/up.inc\";\n");
        write(dir + "/missing.qasm", "OPENQASM 2.0;\ninclude \"nothere.inc\";\n");
        write(dir + "/self.qasm", "OPENQASM 2.0;\ninclude \"self.qasm\";\n");
        ParseResult r = parseQasmFile(dir + "/main.qasm");
        QCOMPARE(r.circuit.ops.size(), size_t(1));
        QCOMPARE(r.circuit.ops[0].name, std::string("flip"));
        auto expectError = [](const std::string& file, const char* msg, int line) {
            try {
                parseQasmFile(file);
                QFAIL("no error");
            } catch (const InputError& e) {
                QVERIFY2(std::string(e.what()).find(msg) != std::string::npos, e.what());
                QCOMPARE(e.diagnostic().location.line, line);
            }
        };
        expectError(dir + "/escape.qasm", "leaves the folder", 2);
        expectError(dir + "/viaup.qasm", "leaves the folder", 1);   // sub/up.inc may not reach its parent
        expectError(dir + "/missing.qasm", "cannot open include file", 2);
        expectError(dir + "/self.qasm", "nested more than 16", 2);
        try {
            parseQasmString("OPENQASM 2.0;\ninclude \"other.inc\";\n", "editor");
            QFAIL("no error");
        } catch (const InputError& e) {
            QVERIFY(std::string(e.what()).find("no folder") != std::string::npos);
        }
    }

    void builtinDefinitionsMatchTheMatrices_data()
    {
        QTest::addColumn<QString>("gate");
        for (const StdGate& g : stdGates())
            if (std::string(g.name) != "U" && std::string(g.name) != "CX")
                QTest::newRow(g.name) << QString::fromLatin1(g.name);
    }
    void builtinDefinitionsMatchTheMatrices()
    {
        // Each qelib1.inc definition, expanded down to U and CX, has the gate's own matrix up to phase.
        QFETCH(QString, gate);
        const StdGate* g = findStdGate(gate.toStdString());
        Circuit c;
        c.numQubits = g->qubits;
        c.qregs.push_back({"q", g->qubits, 0});
        Op op;
        op.name = g->name;
        for (int i = 0; i < g->qubits; ++i)
            op.qubits.push_back(i);
        const double ps[] = {0.37, -1.21, 2.05, 0.66};
        for (int i = 0; i < g->params; ++i)
            op.params.push_back(ps[i]);
        c.ops.push_back(op);
        const auto expected = stdGateMatrix(op.name, op.params);
        // expand fully with the built-in library
        std::vector<Op> work{op}, flat;
        while (!work.empty()) {
            Op o = work.front();
            work.erase(work.begin());
            if (o.name == "U" || o.name == "CX") {
                flat.push_back(o);
                continue;
            }
            std::vector<Op> body;
            passutil::expandOnce(*passutil::definitionFor(c, o.name), o, body);
            work.insert(work.begin(), body.begin(), body.end());
        }
        Circuit expanded = c;
        expanded.ops = flat;
        QVERIFY(equalUpToPhase(unitaryOf(expanded), expected, 1e-9));
    }

    void compositeQelibGatesAreMultiControlledX()
    {
        // c3x and c4x flip the last qubit exactly when all controls are 1 (the suite's own qelib1.inc has an
        // old c4x with a wrong middle step; the built-in one is Qiskit's).
        for (int n : {4, 5}) {
            Circuit c = parse(kHead + "qreg q[" + std::to_string(n) + "];\n" + (n == 4 ? "c3x q[0],q[1],q[2],q[3];\n" : "c4x q[0],q[1],q[2],q[3],q[4];\n"));
            makeInlineGatesPass()->run(c);
            const auto u = unitaryOf(c);
            const int dim = 1 << n, all = (1 << (n - 1)) - 1;
            std::vector<cplx> mcx(static_cast<size_t>(dim) * dim);
            for (int i = 0; i < dim; ++i) {
                const int j = (i & all) == all ? i ^ (1 << (n - 1)) : i;
                mcx[static_cast<size_t>(j) * dim + i] = 1;
            }
            QVERIFY2(equalUpToPhase(u, mcx, 1e-9), n == 4 ? "c3x" : "c4x");
        }
    }
};

QTEST_GUILESS_MAIN(TestQasmParser)
#include "tst_qasm_parser.moc"
