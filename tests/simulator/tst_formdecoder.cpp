// paysim's form decoder (simulator/formdecoder.*): Stripe-style bracketed names.

#include "simulator/formdecoder.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using cs::paysim::FormDecoder;

class TestFormDecoder : public QObject
{
    Q_OBJECT

private slots:
    void decodes_data()
    {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<QByteArray>("json");
        QTest::newRow("metadata") << QByteArray("charge=ch_1&amount=500&metadata[order]=48%2021&metadata[k]=a+b")
                                  << QByteArray(R"({"amount":"500","charge":"ch_1","metadata":{"k":"a b","order":"48 21"}})");
        QTest::newRow("lists") << QByteArray("expand[]=a&expand[]=b&ids[0]=x&ids[1]=y")
                               << QByteArray(R"({"expand":["a","b"],"ids":["x","y"]})");
        // Found with fuzz_formdecoder ("no parameter is dropped"): top-level names "0" and "1" made
        // the whole body a list, which came out as {} (every parameter silently dropped).
        QTest::newRow("numeric top-level names") << QByteArray("0=a&1=b") << QByteArray(R"({"0":"a","1":"b"})");
        QTest::newRow("a numeric name alone") << QByteArray("0=a") << QByteArray(R"({"0":"a"})");
    }

    void decodes()
    {
        QFETCH(QByteArray, body);
        QFETCH(QByteArray, json);
        QString error;
        const auto decoded = FormDecoder::decode(body, &error);
        QVERIFY2(decoded, qPrintable(error));
        QCOMPARE(QJsonDocument(*decoded).toJson(QJsonDocument::Compact), json);
    }

    void refuses_data()
    {
        QTest::addColumn<QByteArray>("body");
        QTest::newRow("bad escape") << QByteArray("a=%zz");
        QTest::newRow("unbalanced") << QByteArray("a[b=1");
        QTest::newRow("leaf and container") << QByteArray("a=1&a[b]=2");
        QTest::newRow("too deep") << QByteArray("a[1][2][3][4][5][6][7][8]=x");
    }

    void refuses()
    {
        QFETCH(QByteArray, body);
        QString error;
        QVERIFY(!FormDecoder::decode(body, &error));
        QVERIFY(!error.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestFormDecoder)
#include "tst_formdecoder.moc"
