#include "models/money.h"

#include <QTest>

#include <array>
#include <limits>

using cs::Money;

class TestMoney : public QObject
{
    Q_OBJECT

private slots:
    void fromMinorUnits_data();
    void fromMinorUnits();
    void fromMinorUnitsWithoutErrorPointer();
    void exponent_data();
    void exponent();
    void everyKnownCodeIsThreeLowercaseLettersWithAnExponent();
    void format_data();
    void format();
    void arithmetic_data();
    void arithmetic();
    void equality();
    void searchedTenThousandths_data();
    void searchedTenThousandths();
};

void TestMoney::fromMinorUnits_data()
{
    QTest::addColumn<qint64>("amount");
    QTest::addColumn<QString>("currency");
    QTest::addColumn<bool>("accepted");
    QTest::addColumn<QString>("storedCurrency"); // when accepted
    QTest::addColumn<QString>("errorMentions");  // when refused

    const qint64 max = Money::MaxMinorUnits;
    QTest::newRow("zero") << qint64(0) << QStringLiteral("usd") << true << QStringLiteral("usd") << QString();
    QTest::newRow("one") << qint64(1) << QStringLiteral("usd") << true << QStringLiteral("usd") << QString();
    QTest::newRow("10^12 is the largest accepted") << max << QStringLiteral("usd") << true << QStringLiteral("usd") << QString();
    QTest::newRow("10^12 + 1 refused") << max + 1 << QStringLiteral("usd") << false << QString() << QStringLiteral("1000000000001");
    QTest::newRow("-1 refused") << qint64(-1) << QStringLiteral("usd") << false << QString() << QStringLiteral("negative");
    QTest::newRow("LLONG_MIN refused") << std::numeric_limits<qint64>::min() << QStringLiteral("usd") << false << QString() << QStringLiteral("negative");
    QTest::newRow("LLONG_MAX refused") << std::numeric_limits<qint64>::max() << QStringLiteral("usd") << false << QString() << QStringLiteral("too large");
    QTest::newRow("USD upper case") << qint64(4000) << QStringLiteral("USD") << true << QStringLiteral("usd") << QString();
    QTest::newRow("usd lower case") << qint64(4000) << QStringLiteral("usd") << true << QStringLiteral("usd") << QString();
    QTest::newRow("UsD mixed case") << qint64(4000) << QStringLiteral("UsD") << true << QStringLiteral("usd") << QString();
    QTest::newRow("JPY") << qint64(5000) << QStringLiteral("JPY") << true << QStringLiteral("jpy") << QString();
    QTest::newRow("xxx (no currency) refused") << qint64(1) << QStringLiteral("xxx") << false << QString() << QStringLiteral("\"xxx\"");
    QTest::newRow("xau (gold, no minor unit) refused") << qint64(1) << QStringLiteral("xau") << false << QString() << QStringLiteral("\"xau\"");
    QTest::newRow("bgn (withdrawn 2026) refused") << qint64(1) << QStringLiteral("bgn") << false << QString() << QStringLiteral("\"bgn\"");
    QTest::newRow("two letters refused") << qint64(1) << QStringLiteral("us") << false << QString() << QStringLiteral("\"us\"");
    QTest::newRow("empty refused") << qint64(1) << QString() << false << QString() << QStringLiteral("ISO-4217");
    QTest::newRow("four letters refused") << qint64(1) << QStringLiteral("usdd") << false << QString() << QStringLiteral("\"usdd\"");
    QTest::newRow("trailing space refused") << qint64(1) << QStringLiteral("usd ") << false << QString() << QStringLiteral("ISO-4217");
    QTest::newRow("Kelvin sign is not k") << qint64(1) << QString(QChar(0x212A)) + QStringLiteral("wd") << false << QString() << QStringLiteral("ISO-4217");
    QTest::newRow("fullwidth letters refused") << qint64(1) << QStringLiteral("\uFF35\uFF33\uFF24") << false << QString() << QStringLiteral("ISO-4217");
    QTest::newRow("unknown currency checked before amount") << qint64(-1) << QStringLiteral("abc") << false << QString() << QStringLiteral("\"abc\"");
}

void TestMoney::fromMinorUnits()
{
    QFETCH(qint64, amount);
    QFETCH(QString, currency);
    QFETCH(bool, accepted);
    QFETCH(QString, storedCurrency);
    QFETCH(QString, errorMentions);

    QString error = QStringLiteral("untouched");
    const std::optional<Money> money = Money::fromMinorUnits(amount, currency, &error);
    QCOMPARE(money.has_value(), accepted);
    if (accepted) {
        QCOMPARE(money->minorUnits(), amount);
        QCOMPARE(money->currency(), storedCurrency);
    } else {
        QVERIFY2(error.contains(errorMentions), qPrintable(error));
        QVERIFY2(error.endsWith(QLatin1Char('.')), qPrintable(error)); // a sentence
    }
}

void TestMoney::fromMinorUnitsWithoutErrorPointer()
{
    QVERIFY(!Money::fromMinorUnits(-1, u"usd"));
    QVERIFY(!Money::fromMinorUnits(1, u"zzz"));
    QVERIFY(Money::fromMinorUnits(1, u"eur"));
}

void TestMoney::exponent_data()
{
    QTest::addColumn<QString>("currency");
    QTest::addColumn<int>("exponent");

    const char *const zero[] = { "jpy", "krw", "vnd", "clp", "isk", "ugx", "xaf", "xof", "pyg",
                                 "bif", "djf", "gnf", "kmf", "rwf", "vuv", "xpf", "uyi" };
    for (const char *code : zero)
        QTest::addRow("%s has 0 digits", code) << QString::fromLatin1(code) << 0;
    const char *const three[] = { "bhd", "iqd", "jod", "kwd", "lyd", "omr", "tnd" };
    for (const char *code : three)
        QTest::addRow("%s has 3 digits", code) << QString::fromLatin1(code) << 3;
    QTest::newRow("clf has 4 digits") << QStringLiteral("clf") << 4;
    QTest::newRow("uyw has 4 digits") << QStringLiteral("uyw") << 4;
    const char *const two[] = { "usd", "eur", "gbp", "chf", "cad", "aud", "inr", "brl", "mxn",
                                "huf", "twd", "xcd", "xcg", "zwg", "sle", "ved", "mga", "mru" };
    for (const char *code : two)
        QTest::addRow("%s has 2 digits", code) << QString::fromLatin1(code) << 2;
    QTest::newRow("upper case looked up too") << QStringLiteral("KWD") << 3;
    QTest::newRow("unknown is -1") << QStringLiteral("xxx") << -1;
    QTest::newRow("empty is -1") << QString() << -1;
}

void TestMoney::exponent()
{
    QFETCH(QString, currency);
    QFETCH(int, exponent);
    QCOMPARE(Money::exponent(currency), exponent);
    QCOMPARE(Money::isKnownCurrency(currency), exponent >= 0);
}

void TestMoney::everyKnownCodeIsThreeLowercaseLettersWithAnExponent()
{
    int known = 0;
    for (char a = 'a'; a <= 'z'; ++a) {
        for (char b = 'a'; b <= 'z'; ++b) {
            for (char c = 'a'; c <= 'z'; ++c) {
                const QString code = QString::fromLatin1(std::array<char, 3>{ a, b, c }.data(), 3);
                if (!Money::isKnownCurrency(code))
                    continue;
                ++known;
                const int digits = Money::exponent(code);
                QVERIFY2(digits >= 0 && digits <= 4, qPrintable(code));
                QCOMPARE(Money::exponent(code.toUpper()), digits);
                const std::optional<Money> money = Money::fromMinorUnits(1, code.toUpper());
                QVERIFY2(money, qPrintable(code));
                QCOMPARE(money->currency(), code);
            }
        }
    }
    // ISO 4217 List One of 2026-01-01 has 165 codes with a minor unit.
    QCOMPARE(known, 165);
}

void TestMoney::format_data()
{
    QTest::addColumn<qint64>("amount");
    QTest::addColumn<QString>("currency");
    QTest::addColumn<QString>("decimal");
    QTest::addColumn<QString>("formatted");

    QTest::newRow("usd 40") << qint64(4000) << QStringLiteral("usd") << QStringLiteral("40.00") << QStringLiteral("40.00 USD");
    QTest::newRow("usd 45.05") << qint64(4505) << QStringLiteral("usd") << QStringLiteral("45.05") << QStringLiteral("45.05 USD");
    QTest::newRow("usd zero") << qint64(0) << QStringLiteral("usd") << QStringLiteral("0.00") << QStringLiteral("0.00 USD");
    QTest::newRow("usd one cent") << qint64(1) << QStringLiteral("usd") << QStringLiteral("0.01") << QStringLiteral("0.01 USD");
    QTest::newRow("usd maximum") << Money::MaxMinorUnits << QStringLiteral("usd") << QStringLiteral("10000000000.00") << QStringLiteral("10000000000.00 USD");
    QTest::newRow("jpy 5000") << qint64(5000) << QStringLiteral("jpy") << QStringLiteral("5000") << QStringLiteral("5000 JPY");
    QTest::newRow("jpy zero") << qint64(0) << QStringLiteral("JPY") << QStringLiteral("0") << QStringLiteral("0 JPY");
    QTest::newRow("kwd 1.250") << qint64(1250) << QStringLiteral("kwd") << QStringLiteral("1.250") << QStringLiteral("1.250 KWD");
    QTest::newRow("kwd 0.005") << qint64(5) << QStringLiteral("kwd") << QStringLiteral("0.005") << QStringLiteral("0.005 KWD");
    QTest::newRow("clf 1.2345") << qint64(12345) << QStringLiteral("clf") << QStringLiteral("1.2345") << QStringLiteral("1.2345 CLF");
    QTest::newRow("clf 0.0001") << qint64(1) << QStringLiteral("clf") << QStringLiteral("0.0001") << QStringLiteral("0.0001 CLF");
}

void TestMoney::format()
{
    QFETCH(qint64, amount);
    QFETCH(QString, currency);
    QFETCH(QString, decimal);
    QFETCH(QString, formatted);

    const std::optional<Money> money = Money::fromMinorUnits(amount, currency);
    QVERIFY(money);
    QCOMPARE(money->decimalString(), decimal);
    QCOMPARE(money->format(), formatted);
}

void TestMoney::arithmetic_data()
{
    QTest::addColumn<QString>("operation");
    QTest::addColumn<qint64>("left");
    QTest::addColumn<QString>("leftCurrency");
    QTest::addColumn<qint64>("right");
    QTest::addColumn<QString>("rightCurrency");
    QTest::addColumn<bool>("defined");
    QTest::addColumn<qint64>("result");

    const qint64 max = Money::MaxMinorUnits;
    QTest::newRow("45 - 40 = 5 (the follow-up remainder)") << QStringLiteral("minus") << qint64(4500) << QStringLiteral("usd") << qint64(4000) << QStringLiteral("usd") << true << qint64(500);
    QTest::newRow("minus to exactly zero") << QStringLiteral("minus") << qint64(4000) << QStringLiteral("usd") << qint64(4000) << QStringLiteral("usd") << true << qint64(0);
    QTest::newRow("minus negative result refused") << QStringLiteral("minus") << qint64(4000) << QStringLiteral("usd") << qint64(4001) << QStringLiteral("usd") << false << qint64(0);
    QTest::newRow("minus different currency refused") << QStringLiteral("minus") << qint64(4500) << QStringLiteral("usd") << qint64(4000) << QStringLiteral("eur") << false << qint64(0);
    QTest::newRow("minus max - 0") << QStringLiteral("minus") << max << QStringLiteral("usd") << qint64(0) << QStringLiteral("usd") << true << max;
    QTest::newRow("40 + 5 = 45") << QStringLiteral("plus") << qint64(4000) << QStringLiteral("usd") << qint64(500) << QStringLiteral("usd") << true << qint64(4500);
    QTest::newRow("plus up to exactly the maximum") << QStringLiteral("plus") << max - 1 << QStringLiteral("jpy") << qint64(1) << QStringLiteral("jpy") << true << max;
    QTest::newRow("plus past the maximum refused") << QStringLiteral("plus") << max << QStringLiteral("jpy") << qint64(1) << QStringLiteral("jpy") << false << qint64(0);
    QTest::newRow("plus max + max refused") << QStringLiteral("plus") << max << QStringLiteral("usd") << max << QStringLiteral("usd") << false << qint64(0);
    QTest::newRow("plus different currency refused") << QStringLiteral("plus") << qint64(1) << QStringLiteral("usd") << qint64(1) << QStringLiteral("jpy") << false << qint64(0);
    QTest::newRow("case of the input does not matter") << QStringLiteral("plus") << qint64(1) << QStringLiteral("USD") << qint64(1) << QStringLiteral("usd") << true << qint64(2);
}

void TestMoney::arithmetic()
{
    QFETCH(QString, operation);
    QFETCH(qint64, left);
    QFETCH(QString, leftCurrency);
    QFETCH(qint64, right);
    QFETCH(QString, rightCurrency);
    QFETCH(bool, defined);
    QFETCH(qint64, result);

    const std::optional<Money> a = Money::fromMinorUnits(left, leftCurrency);
    const std::optional<Money> b = Money::fromMinorUnits(right, rightCurrency);
    QVERIFY(a && b);
    const std::optional<Money> r = operation == QLatin1String("minus") ? a->minus(*b) : a->plus(*b);
    QCOMPARE(r.has_value(), defined);
    if (defined) {
        QCOMPARE(r->minorUnits(), result);
        QCOMPARE(r->currency(), a->currency());
    }
}

void TestMoney::equality()
{
    QCOMPARE(*Money::fromMinorUnits(4000, u"USD"), *Money::fromMinorUnits(4000, u"usd"));
    QVERIFY(!(*Money::fromMinorUnits(4000, u"usd") == *Money::fromMinorUnits(4001, u"usd")));
    QVERIFY(!(*Money::fromMinorUnits(4000, u"usd") == *Money::fromMinorUnits(4000, u"eur")));
}

void TestMoney::searchedTenThousandths_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<qint64>("expected"); // -1: not a number the search matches amounts with

    QTest::newRow("whole") << "199" << qint64(1'990'000);
    QTest::newRow("two decimals") << "199.00" << qint64(1'990'000);
    QTest::newRow("one decimal") << "199.5" << qint64(1'995'000);
    QTest::newRow("four decimals") << "0.0199" << qint64(199);
    QTest::newRow("leading zeros") << "007" << qint64(70'000);
    QTest::newRow("zero") << "0" << qint64(0);
    QTest::newRow("10^12 major units: the largest amount a ledger holds") << "1000000000000" << qint64(10'000'000'000'000'000);
    QTest::newRow("above it: nothing can be equal") << "1000000000001" << qint64(-1);
    QTest::newRow("15 digits") << "999999999999999" << qint64(-1);
    QTest::newRow("16 digits") << "1000000000000000" << qint64(-1);
    QTest::newRow("five decimals") << "199.00000" << qint64(-1);
    QTest::newRow("a trailing dot") << "199." << qint64(-1);
    QTest::newRow("no whole part") << ".5" << qint64(-1);
    QTest::newRow("a comma") << "199,00" << qint64(-1);
    QTest::newRow("a group separator") << "1,990.00" << qint64(-1);
    QTest::newRow("plus") << "+199" << qint64(-1);
    QTest::newRow("minus") << "-199" << qint64(-1);
    QTest::newRow("a space") << " 199" << qint64(-1);
    QTest::newRow("two dots") << "1.9.9" << qint64(-1);
    QTest::newRow("an exponent") << "1e3" << qint64(-1);
    QTest::newRow("Arabic-Indic digits") << QString::fromUtf8("\u0661\u0669\u0669") << qint64(-1);
    QTest::newRow("text") << "ord-199" << qint64(-1);
    QTest::newRow("empty") << "" << qint64(-1);
}

// The search's amount (GET /actions?q=, ActionQuery::matches): canonical decimals only.
void TestMoney::searchedTenThousandths()
{
    QFETCH(QString, text);
    QFETCH(qint64, expected);

    const std::optional<qint64> amount = Money::searchedTenThousandths(text);
    if (expected < 0) {
        QVERIFY2(!amount, qPrintable(QString::number(amount.value_or(0))));
        return;
    }
    QVERIFY(amount);
    QCOMPARE(*amount, expected);
    // It equals the amount in any currency's minor units: 199.00 usd, 199 jpy, 199.000 bhd.
    if (text == u"199") {
        QCOMPARE(Money::tenThousandths(19900, u"usd"), expected);
        QCOMPARE(Money::tenThousandths(199, u"jpy"), expected);
        QCOMPARE(Money::tenThousandths(199000, u"bhd"), expected);
    }
}

QTEST_GUILESS_MAIN(TestMoney)
#include "tst_models_money.moc"
