// Evidence lists' order (models/lookupsummary.h): the deciding look-ups (FOUND, NOT_FOUND) first,
// newest first, then the failed ones with every failure of one kind folded into one line with its
// count, span and seqs. One row per case; a line is written "#seq" for a look-up and
// "<http>x<count> #a,#b" for a fold.
#include "models/displayformat.h"
#include "models/lookupsummary.h"

#include <QTest>

using namespace cs;

namespace {

const QDateTime T0 = QDateTime(QDate(2026, 11, 29), QTime(13, 18, 22), Qt::UTC);

// "E503@6" (result F, N or E; the HTTP status for E; @ the seconds after T0), seq by position;
// "E0:timeout@3" gives a failure without an HTTP answer its error text.
QList<ProviderLookup> lookups(const QStringList &specs)
{
    QList<ProviderLookup> out;
    int seq = 0;
    for (const QString &spec : specs) {
        ProviderLookup l;
        l.actionId = QStringLiteral("act_1");
        const QStringList at = spec.split(QLatin1Char('@'));
        const QStringList kind = at.value(0).mid(1).split(QLatin1Char(':'));
        l.seq = ++seq;
        l.at = T0.addSecs(at.value(1).toInt());
        l.askedBy = QStringLiteral("reconciler");
        switch (spec.at(0).toLatin1()) {
        case 'F':
            l.result = ProviderLookup::Result::Found;
            l.httpStatus = 200;
            l.providerObjectId = QStringLiteral("re_1");
            l.status = QStringLiteral("succeeded");
            l.amount = 4000;
            l.currency = QStringLiteral("usd");
            break;
        case 'N':
            l.result = ProviderLookup::Result::NotFound;
            l.httpStatus = 200;
            break;
        default:
            l.result = ProviderLookup::Result::Error;
            l.httpStatus = kind.value(0).toInt();
            l.excerpt = kind.value(1);
            break;
        }
        out.append(l);
    }
    return out;
}

QString render(const QList<LookupEntry> &entries)
{
    QStringList lines;
    for (const LookupEntry &e : entries) {
        if (!e.isFold()) {
            lines << QStringLiteral("#%1").arg(e.lookup.seq);
            continue;
        }
        QStringList seqs;
        for (int seq : e.seqs)
            seqs << QStringLiteral("#%1").arg(seq);
        lines << QStringLiteral("%1x%2 %3").arg(e.httpStatus).arg(e.count).arg(seqs.join(QLatin1Char(',')));
    }
    return lines.join(QStringLiteral(" | "));
}

QStringList twelveErrorsThenFound()
{
    QStringList specs;
    for (int i = 0; i < 12; ++i)
        specs << QStringLiteral("E503@%1").arg(i * 7 + (i == 11 ? 1 : 0));
    specs << QStringLiteral("F@600");
    return specs;
}

} // namespace

class TstLookupSummary : public QObject
{
    Q_OBJECT

private slots:
    void order_data()
    {
        QTest::addColumn<QStringList>("specs");
        QTest::addColumn<QString>("expected");
        QTest::newRow("12 errors, then the FOUND that decides: FOUND first, the errors one line")
            << twelveErrorsThenFound() << QStringLiteral("#13 | 503x12 #1,#2,#3,#4,#5,#6,#7,#8,#9,#10,#11,#12");
        QTest::newRow("deciding look-ups newest first")
            << QStringList{ u"N@0"_qs, u"F@10"_qs, u"N@20"_qs } << QStringLiteral("#3 | #2 | #1");
        QTest::newRow("a deciding look-up above a newer error")
            << QStringList{ u"N@0"_qs, u"E503@10"_qs, u"E503@20"_qs } << QStringLiteral("#1 | 503x2 #2,#3");
        QTest::newRow("a single error stays one line")
            << QStringList{ u"E503@0"_qs, u"N@10"_qs } << QStringLiteral("#2 | #1");
        QTest::newRow("errors of one kind fold whether consecutive or not")
            << QStringList{ u"E503@0"_qs, u"N@10"_qs, u"E503@20"_qs, u"F@30"_qs, u"E503@40"_qs }
            << QStringLiteral("#4 | #2 | 503x3 #1,#3,#5");
        QTest::newRow("other statuses are other lines, the newest kind first")
            << QStringList{ u"E503@0"_qs, u"E503@10"_qs, u"E500@20"_qs, u"E429@30"_qs }
            << QStringLiteral("#4 | #3 | 503x2 #1,#2");
        QTest::newRow("without an HTTP answer, the error text is the kind")
            << QStringList{ u"E0:timeout@0"_qs, u"E0:connection refused@10"_qs, u"E0:timeout@20"_qs }
            << QStringLiteral("0x2 #1,#3 | #2");
        QTest::newRow("at one instant, the higher seq first")
            << QStringList{ u"N@5"_qs, u"F@5"_qs } << QStringLiteral("#2 | #1");
        QTest::newRow("time decides, not the seq")
            << QStringList{ u"F@30"_qs, u"N@10"_qs, u"N@20"_qs } << QStringLiteral("#1 | #3 | #2");
        QTest::newRow("only errors") << QStringList{ u"E503@0"_qs, u"E503@1"_qs, u"E503@2"_qs }
                                     << QStringLiteral("503x3 #1,#2,#3");
        QTest::newRow("nothing") << QStringList() << QString();
    }

    void order()
    {
        QFETCH(QStringList, specs);
        QFETCH(QString, expected);
        QCOMPARE(render(orderLookups(lookups(specs))), expected);
    }

    // A fold holds its count, its span, its look-ups' seqs and times oldest first, and stands for
    // the newest failure; its key stays the same as failures join it.
    void aFoldHoldsItsSpan()
    {
        const QList<ProviderLookup> all = lookups(twelveErrorsThenFound());
        const QList<LookupEntry> entries = orderLookups(all);
        QCOMPARE(entries.size(), 2);
        const LookupEntry &found = entries.first();
        QVERIFY(found.decides() && !found.isFold());
        QCOMPARE(found.count, 1);
        QCOMPARE(found.seqs, QList<int>{ 13 });
        QCOMPARE(found.first, found.lookup.at);
        QCOMPARE(found.key(), QStringLiteral("#13"));

        const LookupEntry &fold = entries.last();
        QVERIFY(fold.isFold() && !fold.decides());
        QCOMPARE(fold.count, 12);
        QCOMPARE(fold.httpStatus, 503);
        QCOMPARE(fold.first, T0);
        QCOMPARE(fold.last, T0.addSecs(78));
        QCOMPARE(fold.lookup.seq, 12); // the newest
        QCOMPARE(fold.seqs.size(), 12);
        QCOMPARE(fold.seqs.first(), 1);
        QCOMPARE(fold.times.size(), 12);
        QCOMPARE(fold.times.at(3), T0.addSecs(21));
        QCOMPARE(fold.methods, QList<ProviderLookup::Method>{ ProviderLookup::Method::ListByMetadata });
        QCOMPARE(fold.askedBy, QStringList{ u"reconciler"_qs });
        QCOMPARE(display::timeSpan(fold.first, fold.last),
                 display::preciseTime(fold.first).left(8) + QChar(0x2013) + display::preciseTime(fold.last).left(8));

        QList<ProviderLookup> mixed = all;
        mixed[1].askedBy = QStringLiteral("sue");
        mixed[1].method = ProviderLookup::Method::RetrieveRefund;
        const LookupEntry mixedFold = orderLookups(mixed).last();
        QCOMPARE(mixedFold.askedBy, (QStringList{ u"reconciler"_qs, u"sue"_qs }));
        QCOMPARE(mixedFold.methods, (QList<ProviderLookup::Method>{ ProviderLookup::Method::ListByMetadata,
                                                                    ProviderLookup::Method::RetrieveRefund }));

        const QList<LookupEntry> fewer = orderLookups(all.mid(0, 3));
        QCOMPARE(fewer.size(), 1);
        QCOMPARE(fewer.first().key(), fold.key());
        QCOMPARE(failureEntryOf(entries, all.at(4)), &entries.last());
        QCOMPARE(failureEntryOf(entries, all.last()), nullptr); // FOUND: no failure
    }
};

QTEST_GUILESS_MAIN(TstLookupSummary)
#include "tst_lookupsummary.moc"
