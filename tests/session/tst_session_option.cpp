// openSessionForCli(): how compile/run/qsim/vqe honour --session NAME and --db FILE. Without --session nothing
// is recorded; one name keeps adding to one session; bad combinations are usage errors, bad files input errors.
#include "common/testutil.h"

#include "app/cli/cli.h"
#include "app/cli/session_option.h"
#include "core/common/diagnostics.h"
#include "core/session/session_store.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace spyglass;
using namespace spyglass::cli;
using namespace spyglass::session;

class TestSessionOption : public QObject {
    Q_OBJECT
private:
    QTemporaryDir tmp_;
    std::string db() const { return tmp_.filePath(QStringLiteral("opt.db")).toStdString(); }

private slots:
    void withoutSessionNothingIsOpened()
    {
        Args args("qsim", {"ghz.qasm", "--shots", "10"});
        QVERIFY(openSessionForCli(args) == nullptr);
        QVERIFY(!QFile::exists(QString::fromStdString(db())));
        QCOMPARE(args.positional("FILE"), std::string("ghz.qasm"));
        QCOMPARE(args.integer("--shots", 1, 100).value_or(0), 10LL);
        args.finish();
    }

    void badCombinationsAreUsageErrors_data()
    {
        QTest::addColumn<QStringList>("argv");
        QTest::newRow("--db without --session") << QStringList{QStringLiteral("--db"), QStringLiteral("x.db")};
        QTest::newRow("empty session name") << QStringList{QStringLiteral("--session=")};
        QTest::newRow("--session twice") << QStringList{QStringLiteral("--session"), QStringLiteral("a"), QStringLiteral("--session"), QStringLiteral("b")};
        QTest::newRow("--session without a name") << QStringList{QStringLiteral("--session")};
    }

    void badCombinationsAreUsageErrors()
    {
        QFETCH(QStringList, argv);
        std::vector<std::string> v;
        for (const QString& s : argv)
            v.push_back(s.toStdString());
        Args args("compile", v);
        QVERIFY_THROWS_EXCEPTION(UsageError, openSessionForCli(args));
    }

    void oneNameIsOneHistory()
    {
        RowId first = 0;
        for (int i = 0; i < 3; ++i) {
            Args args("run", {"model.onnx", "--session", "nightly", "--db", db()});
            auto s = openSessionForCli(args);
            QVERIFY(s);
            QCOMPARE(args.positional("FILE"), std::string("model.onnx"));
            args.finish();   // --session and --db were consumed
            if (i == 0)
                first = s->sessionId();
            QCOMPARE(s->sessionId(), first);
            s->recorder().beginRun({.kind = "run", .artifactHash = "h"});
            s->recorder().finishRun(RunStatus::Ok);
        }
        SessionStore store(db());
        QCOMPARE(store.listSessions().size(), size_t(1));
        QCOMPARE(store.session(first)->runCount, 3);
        QCOMPARE(store.session(first)->name, std::string("nightly"));
    }

    void unfinishedRunIsStoredAsInterrupted()
    {
        RowId session = 0;
        {
            Args args("vqe", {"--session", "crashy", "--db", db()});
            auto s = openSessionForCli(args);
            session = s->sessionId();
            s->recorder().beginRun({.kind = "vqe"});
            // The command throws here; the CliSession is destroyed while unwinding.
        }
        SessionStore store(db());
        const auto runs = store.runs(session);
        QCOMPARE(runs.size(), size_t(1));
        QCOMPARE(runs[0].status, RunStatus::Interrupted);
    }

    void aFileThatIsNotOursIsAnInputError()
    {
        const QString bad = tmp_.filePath(QStringLiteral("notes.txt"));
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("these are my notes, not a database\n");
        f.close();
        Args args("compile", {"--session", "x", "--db", bad.toStdString()});
        QVERIFY_THROWS_EXCEPTION(InputError, openSessionForCli(args));
    }

    void storeForReadingUsesDbOrTheDefault()
    {
        Args args("sessions", {"list", "--db", db()});
        auto store = openStoreForCli(args);
        QCOMPARE(store->path(), db());
        QCOMPARE(args.positional("ACTION"), std::string("list"));
        args.finish();
    }
};

QTEST_GUILESS_MAIN(TestSessionOption)
#include "tst_session_option.moc"
