// Which parts of a search text the trigram index is asked for (server/api/searchterms.h): the
// sample's row counts, the common-trigram rule and the MATCH expression built from the runs of
// uncommon trigrams. tst_ledger_counts checks on a real ledger that the rows stay exactly LIKE's.
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
    void commonNeedsHalfTheRowsAndEnoughRows();
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

void TestSearchTerms::commonNeedsHalfTheRowsAndEnoughRows()
{
    const TrigramSample big = sampleOf(orderRows(100));
    QCOMPARE(big.rows(), 100);
    QCOMPARE(big.rowsContaining(QStringLiteral("ord")), 100);
    QVERIFY(big.isCommon(QStringLiteral("ord")));
    QVERIFY(big.isCommon(QStringLiteral("d-0")));
    QCOMPARE(big.rowsContaining(QStringLiteral("ret")), 50); // exactly half: not common
    QVERIFY(!big.isCommon(QStringLiteral("ret")));
    QCOMPARE(big.rowsContaining(QStringLiteral("-ag")), 100);
    QVERIFY(big.isCommon(QStringLiteral("-ag")));
    QVERIFY(!big.isCommon(QStringLiteral("042")));

    const TrigramSample few = sampleOf(orderRows(TrigramSample::kMinimumRows - 1));
    QCOMPARE(few.rowsContaining(QStringLiteral("ord")), TrigramSample::kMinimumRows - 1);
    QVERIFY(!few.isCommon(QStringLiteral("ord")));
    QVERIFY(sampleOf(orderRows(TrigramSample::kMinimumRows)).isCommon(QStringLiteral("ord")));
    QVERIFY(!TrigramSample().isCommon(QStringLiteral("ord")));
}

void TestSearchTerms::expression_data()
{
    QTest::addColumn<int>("sampleRows");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("expression");

    // "ord", "rd-", "d-0", "-09", "090", "900" and "000" are in (nearly) every row.
    QTest::newRow("leading common trigrams left out") << 100 << "ord-0900042" << "\"0042\"";
    QTest::newRow("upper case text") << 100 << "ORD-0900042" << "\"0042\"";
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
