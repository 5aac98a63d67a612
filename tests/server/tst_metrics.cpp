// The metrics library (server/metrics/metrics.h): the text exposition format byte for byte
// (HELP/TYPE lines, label escaping, integer and fractional values, histogram buckets cumulative
// up to +Inf with _sum and _count), declared series at zero, updates from several threads, and
// the registry's order. promtool's own check runs on a real countersignd in tst_api_metrics.
#include "server/metrics/metrics.h"

#include <QTest>
#include <QThread>

#include <limits>
#include <vector>

using namespace cs::metrics;

class TestMetrics : public QObject
{
    Q_OBJECT

private slots:
    void values_data();
    void values();
    void labelEscaping();
    void counterWithLabels();
    void histogramBuckets();
    void histogramBoundaryIsInclusive();
    void declaredSeriesAreZero();
    void concurrentUpdatesAreNotLost();
    void registryRendersSortedAndForgetsDestroyed();
};

void TestMetrics::values_data()
{
    QTest::addColumn<double>("value");
    QTest::addColumn<QByteArray>("text");
    QTest::newRow("zero") << 0.0 << QByteArray("0");
    QTest::newRow("integer count") << 42.0 << QByteArray("42");
    QTest::newRow("negative") << -3.0 << QByteArray("-3");
    QTest::newRow("fraction, shortest exact") << 0.1 << QByteArray("0.1");
    QTest::newRow("seconds") << 0.25 << QByteArray("0.25");
    QTest::newRow("+Inf") << std::numeric_limits<double>::infinity() << QByteArray("+Inf");
    QTest::newRow("-Inf") << -std::numeric_limits<double>::infinity() << QByteArray("-Inf");
    QTest::newRow("NaN") << std::numeric_limits<double>::quiet_NaN() << QByteArray("NaN");
    QTest::newRow("beyond exact integers") << 1e300 << QByteArray("1e+300");
    QTest::newRow("a third") << 1.0 / 3 << QByteArray("0.3333333333333333");
}

void TestMetrics::values()
{
    QFETCH(double, value);
    QFETCH(QByteArray, text);
    QCOMPARE(TextWriter::formatValue(value), text);
}

void TestMetrics::labelEscaping()
{
    TextWriter writer;
    writer.family(QStringLiteral("x_total"), QStringLiteral("line one\nback\\slash"), Type::Counter,
                  {QStringLiteral("route")},
                  {Sample{{QStringLiteral("a\"b\\c\nd é")}, 1, {}, 0, 0}});
    QCOMPARE(writer.text(), QByteArray("# HELP x_total line one\\nback\\\\slash\n"
                                       "# TYPE x_total counter\n"
                                       "x_total{route=\"a\\\"b\\\\c\\nd \xc3\xa9\"} 1\n"));
}

void TestMetrics::counterWithLabels()
{
    Counter requests(QStringLiteral("test_requests_total"), QStringLiteral("Requests"),
                     {QStringLiteral("method"), QStringLiteral("status")});
    requests.inc({QStringLiteral("GET"), QStringLiteral("200")});
    requests.inc({QStringLiteral("GET"), QStringLiteral("200")});
    requests.inc({QStringLiteral("POST"), QStringLiteral("201")}, 3);
    QCOMPARE(requests.value({QStringLiteral("GET"), QStringLiteral("200")}), 2.0);
    QCOMPARE(requests.value({QStringLiteral("POST"), QStringLiteral("201")}), 3.0);
    QCOMPARE(requests.value({QStringLiteral("PUT"), QStringLiteral("200")}), 0.0);
    TextWriter writer;
    requests.render(writer);
    QCOMPARE(writer.text(), QByteArray("# HELP test_requests_total Requests\n"
                                       "# TYPE test_requests_total counter\n"
                                       "test_requests_total{method=\"GET\",status=\"200\"} 2\n"
                                       "test_requests_total{method=\"POST\",status=\"201\"} 3\n"));
}

void TestMetrics::histogramBuckets()
{
    Histogram latency(QStringLiteral("test_seconds"), QStringLiteral("Latency"), {QStringLiteral("op")}, {0.1, 1});
    for (const double v : {0.05, 0.5, 0.7, 5.0})
        latency.observe({QStringLiteral("get")}, v);
    TextWriter writer;
    latency.render(writer);
    QCOMPARE(writer.text(), QByteArray("# HELP test_seconds Latency\n"
                                       "# TYPE test_seconds histogram\n"
                                       "test_seconds_bucket{op=\"get\",le=\"0.1\"} 1\n"
                                       "test_seconds_bucket{op=\"get\",le=\"1\"} 3\n"
                                       "test_seconds_bucket{op=\"get\",le=\"+Inf\"} 4\n"
                                       "test_seconds_sum{op=\"get\"} 6.25\n"
                                       "test_seconds_count{op=\"get\"} 4\n"));
    QCOMPARE(latency.value({QStringLiteral("get")}), 4.0);
}

void TestMetrics::histogramBoundaryIsInclusive()
{
    // le means "less than or equal": a value on a bound counts in that bound's bucket.
    Histogram h(QStringLiteral("test_edge_seconds"), QStringLiteral("Edges"), {}, {1, 2});
    h.observe({}, 1.0);
    h.observe({}, 2.0);
    h.observe({}, 2.0000001);
    TextWriter writer;
    h.render(writer);
    QVERIFY2(writer.text().contains("test_edge_seconds_bucket{le=\"1\"} 1\n"), writer.text().constData());
    QVERIFY2(writer.text().contains("test_edge_seconds_bucket{le=\"2\"} 2\n"), writer.text().constData());
    QVERIFY2(writer.text().contains("test_edge_seconds_bucket{le=\"+Inf\"} 3\n"), writer.text().constData());
}

void TestMetrics::declaredSeriesAreZero()
{
    Counter c(QStringLiteral("test_declared_total"), QStringLiteral("Declared"), {QStringLiteral("result")});
    c.declare({QStringLiteral("failed")});
    Histogram h(QStringLiteral("test_declared_seconds"), QStringLiteral("Declared"), {QStringLiteral("op")}, {1});
    h.declare({QStringLiteral("x")});
    TextWriter writer;
    c.render(writer);
    h.render(writer);
    QVERIFY2(writer.text().contains("test_declared_total{result=\"failed\"} 0\n"), writer.text().constData());
    QVERIFY2(writer.text().contains("test_declared_seconds_bucket{op=\"x\",le=\"+Inf\"} 0\n"), writer.text().constData());
    QVERIFY2(writer.text().contains("test_declared_seconds_count{op=\"x\"} 0\n"), writer.text().constData());
}

void TestMetrics::concurrentUpdatesAreNotLost()
{
    Counter c(QStringLiteral("test_concurrent_total"), QStringLiteral("Concurrent"), {QStringLiteral("t")});
    Histogram h(QStringLiteral("test_concurrent_seconds"), QStringLiteral("Concurrent"), {}, {0.5});
    constexpr int threads = 4;
    constexpr int perThread = 20000;
    std::vector<QThread *> workers;
    for (int t = 0; t < threads; ++t) {
        workers.push_back(QThread::create([&c, &h, t] {
            for (int i = 0; i < perThread; ++i) {
                c.inc({QString::number(t % 2)});
                h.observe({}, i % 2 ? 0.25 : 0.75);
            }
        }));
        workers.back()->start();
    }
    for (QThread *w : workers) {
        QVERIFY(w->wait(60000));
        delete w;
    }
    QCOMPARE(c.value({QStringLiteral("0")}) + c.value({QStringLiteral("1")}), double(threads * perThread));
    QCOMPARE(h.value({}), double(threads * perThread));
    TextWriter writer;
    h.render(writer);
    const QByteArray expected =
        QByteArray("test_concurrent_seconds_bucket{le=\"0.5\"} ") + QByteArray::number(threads * perThread / 2) + '\n';
    QVERIFY2(writer.text().contains(expected), writer.text().constData());
}

void TestMetrics::registryRendersSortedAndForgetsDestroyed()
{
    auto *b = new Gauge(QStringLiteral("test_zz_gauge"), QStringLiteral("B"));
    Gauge a(QStringLiteral("test_aa_gauge"), QStringLiteral("A"));
    a.set({}, 7);
    b->set({}, 1.5);
    QVERIFY(Registry::global().find(QStringLiteral("test_zz_gauge")));
    TextWriter writer;
    Registry::global().render(writer);
    const QByteArray text = writer.text();
    QVERIFY(text.contains("test_aa_gauge 7\n"));
    QVERIFY(text.contains("test_zz_gauge 1.5\n"));
    QVERIFY(text.indexOf("test_aa_gauge") < text.indexOf("test_zz_gauge"));
    delete b;
    QVERIFY(!Registry::global().find(QStringLiteral("test_zz_gauge")));
    TextWriter after;
    Registry::global().render(after);
    QVERIFY(!after.text().contains("test_zz_gauge"));
}

QTEST_GUILESS_MAIN(TestMetrics)
#include "tst_metrics.moc"
