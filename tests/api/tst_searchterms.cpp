// Which parts of a search text the trigram index is asked for (server/ledger/searchterms.h): the
// sample's row counts, the common-trigram rule (over kCommonPercent of the sampled rows), the
// runs of uncommon trigrams for samples like the bench's (its newest rows, or drawn across the
// whole ledger), PostgreSQL's runs without separators at their ends, and the MATCH expression. tst_ledger_counts checks on a real ledger that the rows stay exactly LIKE's.
#include "server/ledger/searchterms.h"

#include <QTest>

using namespace cs;

class TestSearchTerms : public QObject
{
    Q_OBJECT

private slots:
    void trigramsOfCodePoints_data();
    void trigramsOfCodePoints();
    void sampleCountsRowsOnce();
    void commonNeedsEnoughRows();
    void commonAboveFivePercent();
    void runs_data();
    void runs();
    void expression_data();
    void expression();
};

namespace {

// n rows: an id, a target, an order reference, an agent and a client reference, as the bench's
// ledger has them (every order reference starts "ord-0", every id "act_", every target "ch_").
QList<QStringList> orderRows(int n)
{
    QList<QStringList> rows;
    for (int i = 1; i <= n; ++i) {
        rows.append({QStringLiteral("act_%1x%2").arg(i * 7919).arg(i),
                     QStringLiteral("ch_bench%1").arg(i),
                     QStringLiteral("ord-%1").arg(900000 + i, 7, 10, QLatin1Char('0')),
                     i % 2 ? QStringLiteral("returns-agent") : QStringLiteral("billing-agent"),
                     QString()});
    }
    return rows;
}

// bench_console's rows n (tests/bench/bench_console.cpp): "ord-0500000", "ord-0500000-refund",
// "ch_bench500000", one of five agents, an id of random-looking characters after "act_".
QList<QStringList> benchRows(const QList<int> &numbers)
{
    static const char *const agents[] = {"returns-agent", "billing-agent", "support-agent", "chargeback-agent",
                                         "retention-agent"};
    QList<QStringList> rows;
    for (int n : numbers) {
        const QString order = QStringLiteral("ord-%1").arg(n, 7, 10, QLatin1Char('0'));
        rows.append({QStringLiteral("act_") + QString::number(quint32(quint64(n) * 2654435761u), 36),
                     QStringLiteral("ch_bench%1").arg(n), order, QLatin1String(agents[n % 5]),
                     order + QStringLiteral("-refund")});
    }
    return rows;
}

TrigramSample sampleOf(const QList<QStringList> &rows)
{
    TrigramSample sample;
    sample.reset(rows);
    return sample;
}

} // namespace

void TestSearchTerms::trigramsOfCodePoints_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QStringList>("trigrams");
    QTest::newRow("lower case") << "AbC1" << QStringList{QStringLiteral("abc"), QStringLiteral("bc1")};
    QTest::newRow("too short") << "ab" << QStringList{};
    QTest::newRow("exactly three") << "x_%" << QStringList{QStringLiteral("x_%")};
    QTest::newRow("outside the BMP is one code point")
        << QString::fromUtf8("a\xF0\x9F\x98\x80" "bc") << QStringList{QString::fromUtf8("a\xF0\x9F\x98\x80" "b"), QString::fromUtf8("\xF0\x9F\x98\x80" "bc")};
    QTest::newRow("accented, lowered") << QString::fromUtf8("\xC3\x89t\xC3\xA9") << QStringList{QString::fromUtf8("\xC3\xA9t\xC3\xA9")};
}

void TestSearchTerms::trigramsOfCodePoints()
{
    QFETCH(QString, text);
    QFETCH(QStringList, trigrams);
    QCOMPARE(trigramsOf(text), trigrams);
}

void TestSearchTerms::sampleCountsRowsOnce()
{
    // "aaa" three times in one column and again in another column of the same row: one row.
    const TrigramSample sample = sampleOf({{QStringLiteral("aaaaa"), QStringLiteral("xaaa")},
                                           {QStringLiteral("AAA"), QString()},
                                           {QStringLiteral("bbb"), QStringLiteral("ccc")}});
    QCOMPARE(sample.rows(), 3);
    QCOMPARE(sample.rowsContaining(QStringLiteral("aaa")), 2);
    QCOMPARE(sample.rowsContaining(QStringLiteral("AAA")), 2); // case is ignored
    QCOMPARE(sample.rowsContaining(QStringLiteral("xaa")), 1);
    QCOMPARE(sample.rowsContaining(QStringLiteral("zzz")), 0);
    QCOMPARE(sample.rowsContaining(QStringLiteral("aa")), 0); // not a trigram
    // No trigram spans two columns.
    QCOMPARE(sample.rowsContaining(QStringLiteral("bbc")), 0);
}

void TestSearchTerms::commonNeedsEnoughRows()
{
    const TrigramSample big = sampleOf(orderRows(100));
    QCOMPARE(big.rows(), 100);
    QCOMPARE(big.rowsContaining(QStringLiteral("ord")), 100);
    QVERIFY(big.isCommon(QStringLiteral("ord")));
    QVERIFY(big.isCommon(QStringLiteral("d-0")));
    QCOMPARE(big.rowsContaining(QStringLiteral("ret")), 50); // half: common (over 5 %)
    QVERIFY(big.isCommon(QStringLiteral("ret")));
    QCOMPARE(big.rowsContaining(QStringLiteral("-ag")), 100);
    QVERIFY(big.isCommon(QStringLiteral("-ag")));
    QVERIFY(!big.isCommon(QStringLiteral("042")));

    const TrigramSample few = sampleOf(orderRows(TrigramSample::kMinimumRows - 1));
    QCOMPARE(few.rowsContaining(QStringLiteral("ord")), TrigramSample::kMinimumRows - 1);
    QVERIFY(!few.isCommon(QStringLiteral("ord")));
    QVERIFY(sampleOf(orderRows(TrigramSample::kMinimumRows)).isCommon(QStringLiteral("ord")));
    QVERIFY(!TrigramSample().isCommon(QStringLiteral("ord")));
}

void TestSearchTerms::commonAboveFivePercent()
{
    // 100 rows: "aaa" in 5 of them (5 %: not common), "bbb" in 6 (common), "ccc" in 50.
    QList<QStringList> rows;
    for (int i = 0; i < 100; ++i) {
        rows.append({i < 5 ? QStringLiteral("aaa") : QString(), i < 6 ? QStringLiteral("bbb") : QString(),
                     i < 50 ? QStringLiteral("ccc") : QString()});
    }
    const TrigramSample sample = sampleOf(rows);
    QCOMPARE(sample.rowsContaining(QStringLiteral("aaa")), 5);
    QVERIFY(!sample.isCommon(QStringLiteral("aaa")));
    QVERIFY(sample.isCommon(QStringLiteral("bbb")));
    QVERIFY(sample.isCommon(QStringLiteral("ccc")));
    QCOMPARE(uncommonRuns(QStringLiteral("aaabbbaaa"), sample), (QStringList{QStringLiteral("aaabb"), QStringLiteral("bbaaa")}));
}

void TestSearchTerms::runs_data()
{
    QTest::addColumn<QString>("sample");   // none, orders (orderRows(100)), newest or ledger (benchRows)
    QTest::addColumn<QString>("text");
    QTest::addColumn<QStringList>("runs");   // uncommonRuns(): SQLite's FTS5 strings
    QTest::addColumn<QStringList>("pgRuns"); // postgresRuns(): PostgreSQL's LIKE patterns

    // bench_console's search on its 10^6 ledger. The 200 newest rows ("ord-0999801"…) have no
    // "-05", which is in 10 % of the ledger; a sample across the ledger has it, so the index is
    // not asked for "-05"'s long posting list.
    QTest::newRow("bench search, sample of the newest rows")
        << "newest" << "ord-0500000" << QStringList{QStringLiteral("-0500000")} << QStringList{QStringLiteral("0500000")};
    QTest::newRow("bench search, sample across the ledger")
        << "ledger" << "ord-0500000" << QStringList{QStringLiteral("0500000")} << QStringList{QStringLiteral("0500000")};
    QTest::newRow("client reference: '0-r' is common, the separator is trimmed")
        << "ledger" << "ORD-0500000-refund" << QStringList{QStringLiteral("0500000-")} << QStringList{QStringLiteral("0500000")};
    QTest::newRow("charge: 'h_b'… common, 'h50' is not")
        << "ledger" << "ch_bench5000" << QStringList{QStringLiteral("h5000")} << QStringList{QStringLiteral("h5000")};
    QTest::newRow("every trigram common: the whole text")
        << "ledger" << "Billing-Agent" << QStringList{QStringLiteral("billing-agent")}
        << QStringList{QStringLiteral("billing-agent")};
    QTest::newRow("5 %, not half: '004' (11 of 100 rows) is common")
        << "orders" << "ord-0900042" << QStringList{QStringLiteral("042")} << QStringList{QStringLiteral("042")};
    QTest::newRow("two runs") << "orders" << "xx-agent-yy" << QStringList{QStringLiteral("xx-a"), QStringLiteral("nt-yy")}
                              << QStringList{QStringLiteral("xx-a"), QStringLiteral("nt-yy")};
    QTest::newRow("separators at both ends trimmed")
        << "none" << "-0500000-" << QStringList{QStringLiteral("-0500000-")} << QStringList{QStringLiteral("0500000")};
    QTest::newRow("not a letter or digit: trimmed, accents kept")
        << "none" << QString::fromUtf8("\xC2\xAB\xC3\x89t\xC3\xA9\xC2\xBB")
        << QStringList{QString::fromUtf8("\xC2\xAB\xC3\xA9t\xC3\xA9\xC2\xBB")} << QStringList{QString::fromUtf8("\xC3\xA9t\xC3\xA9")};
    QTest::newRow("under three once trimmed: kept whole") << "none" << "-ab-" << QStringList{QStringLiteral("-ab-")}
                                                          << QStringList{QStringLiteral("-ab-")};
    QTest::newRow("inner separator kept") << "none" << "x-y" << QStringList{QStringLiteral("x-y")}
                                          << QStringList{QStringLiteral("x-y")};
    QTest::newRow("no sample: the whole text, lowered")
        << "none" << "Ord-0500000" << QStringList{QStringLiteral("ord-0500000")} << QStringList{QStringLiteral("ord-0500000")};
}

void TestSearchTerms::runs()
{
    QFETCH(QString, sample);
    QFETCH(QString, text);
    QFETCH(QStringList, runs);
    QFETCH(QStringList, pgRuns);
    QList<QStringList> rows;
    if (sample == QLatin1String("orders"))
        rows = orderRows(100);
    QList<int> numbers;
    if (sample == QLatin1String("newest")) {
        for (int n = 999801; n <= 1000000; ++n)
            numbers << n;
    }
    if (sample == QLatin1String("ledger")) {
        for (int i = 0; i < 1000; ++i)
            numbers << 1 + i * 997;
    }
    if (!numbers.isEmpty())
        rows = benchRows(numbers);
    const TrigramSample trigrams = sampleOf(rows);
    QCOMPARE(uncommonRuns(text, trigrams), runs);
    QCOMPARE(postgresRuns(text, trigrams), pgRuns);
}

void TestSearchTerms::expression_data()
{
    QTest::addColumn<int>("sampleRows");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("expression");

    // "ord", "rd-", "d-0", "-09", "090", "900" and "000" are in (nearly) every row, "004" in 11.
    QTest::newRow("leading common trigrams left out") << 100 << "ord-0900042" << "\"042\"";
    QTest::newRow("upper case text") << 100 << "ORD-0900042" << "\"042\"";
    QTest::newRow("common in the middle: two parts") << 100 << "xx-agent-yy" << "\"xx-a\" AND \"nt-yy\"";
    QTest::newRow("common at the end") << 100 << "zz_bench" << "\"zz_b\"";
    QTest::newRow("every trigram common: the whole text") << 100 << "ORD-09" << "\"ord-09\"";
    QTest::newRow("nothing common") << 100 << "pi_3abc" << "\"pi_3abc\"";
    QTest::newRow("double quotes doubled") << 100 << "ord-\"q\"" << "\"d-\"\"q\"\"\"";
    QTest::newRow("too few rows: the whole text") << TrigramSample::kMinimumRows - 1 << "ord-0900042" << "\"ord-0900042\"";
    QTest::newRow("no sample: the whole text") << 0 << "Ord-0900042" << "\"ord-0900042\"";
}

void TestSearchTerms::expression()
{
    QFETCH(int, sampleRows);
    QFETCH(QString, text);
    QFETCH(QString, expression);
    QCOMPARE(trigramMatchExpression(text, sampleOf(orderRows(sampleRows))), expression);
}

QTEST_GUILESS_MAIN(TestSearchTerms)
#include "tst_searchterms.moc"
