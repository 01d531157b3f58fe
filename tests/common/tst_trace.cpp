// Trace model: lane ranges, range statistics, and the Chrome Trace Event export.
#include "core/common/trace.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <sstream>

using namespace spyglass;

namespace {
Trace smallTrace()
{
    Trace t;
    const int core = t.addLane("core 0", TraceLane::Kind::Core);
    const int dma = t.addLane("dma 0", TraceLane::Kind::Dma);
    t.events.push_back({dma, "dma_in", "k0", "buf0", 0, 0, 100, 6400});
    t.events.push_back({core, "compute", "k0", "buf1", 0, 100, 300, 0});
    t.events.push_back({dma, "dma_out", "k0", "buf1", 0, 300, 350, 3200});
    t.sort();
    return t;
}
}  // namespace

class TestTrace : public QObject {
    Q_OBJECT
private slots:
    void laneRangesAfterSort()
    {
        const Trace t = smallTrace();
        QCOMPARE(t.laneRange(0), std::make_pair(size_t(0), size_t(1)));
        QCOMPARE(t.laneRange(1), std::make_pair(size_t(1), size_t(3)));
        QCOMPARE(t.endNs(), int64_t(350));
    }
    void rangeStatsClipToTheRange()
    {
        const Trace t = smallTrace();
        const auto s = rangeStats(t, 50, 320);
        QCOMPARE(s[0].busyNs, int64_t(200));   // compute 100..300 inside
        QCOMPARE(s[1].busyNs, int64_t(50 + 20)); // dma_in 50..100, dma_out 300..320
        QCOMPARE(s[1].bytes, int64_t(3200 + 1280));   // half of 6400, 20/50 of 3200
        QCOMPARE(s[1].events, 2);
        QVERIFY(rangeStats(t, 10, 10)[0].busyNs == 0);
    }
    void chromeTraceIsValidJsonWithEveryEvent()
    {
        const Trace t = smallTrace();
        std::ostringstream out;
        writeChromeTrace(t, out);
        QJsonParseError err;
        const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(out.str()), &err);
        QCOMPARE(err.error, QJsonParseError::NoError);
        const QJsonArray events = doc.object().value(QStringLiteral("traceEvents")).toArray();
        int complete = 0;
        QStringList threadNames;
        for (const auto& v : events) {
            const QJsonObject e = v.toObject();
            if (e.value(QStringLiteral("ph")).toString() == QStringLiteral("X")) {
                ++complete;
                if (e.value(QStringLiteral("name")).toString() == QStringLiteral("compute")) {
                    QCOMPARE(e.value(QStringLiteral("ts")).toDouble(), 0.1);    // microseconds
                    QCOMPARE(e.value(QStringLiteral("dur")).toDouble(), 0.2);
                    QCOMPARE(e.value(QStringLiteral("args")).toObject().value(QStringLiteral("op")).toString(), QStringLiteral("buf1"));
                }
            } else if (e.value(QStringLiteral("name")).toString() == QStringLiteral("thread_name")) {
                threadNames << e.value(QStringLiteral("args")).toObject().value(QStringLiteral("name")).toString();
            }
        }
        QCOMPARE(complete, 3);
        QCOMPARE(threadNames, QStringList({QStringLiteral("core 0"), QStringLiteral("dma 0")}));
    }
    void namesAreEscaped()
    {
        Trace t;
        t.addLane("lane \"q\"\n", TraceLane::Kind::Other);
        t.events.push_back({0, "a\\b", "k", "o", -1, 0, 1, 0});
        std::ostringstream out;
        writeChromeTrace(t, out);
        QJsonParseError err;
        QJsonDocument::fromJson(QByteArray::fromStdString(out.str()), &err);
        QCOMPARE(err.error, QJsonParseError::NoError);
    }
};

QTEST_GUILESS_MAIN(TestTrace)
#include "tst_trace.moc"
