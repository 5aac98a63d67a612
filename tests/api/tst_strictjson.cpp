// StrictJson (server/api/strictjson.h) without a server: what is a syntax error, what is a
// duplicate member, and what reaches the member checks marked (integer literals, invalid text).
#include "server/api/strictjson.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using cs::StrictJson;

class TestStrictJson : public QObject
{
    Q_OBJECT

private slots:
    void refused_data();
    void refused();
    void numbers_data();
    void numbers();
    void text_data();
    void text();
    void sameAsQtForValidJson();
};

void TestStrictJson::refused_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<bool>("duplicate");
    QTest::addColumn<QString>("path"); // of a duplicate

    const auto syntax = [](const char *name, const QByteArray &json) { QTest::newRow(name) << json << false << QString(); };
    const auto duplicate = [](const char *name, const QByteArray &json, const char *path) {
        QTest::newRow(name) << json << true << QString::fromLatin1(path);
    };
    syntax("empty", "");
    syntax("BOM", "\xef\xbb\xbf{}");
    syntax("raw NUL", QByteArray("{\"a\":\"\0\"}", 9));
    syntax("raw tab", "{\"a\":\"\t\"}");
    syntax("raw 0x1f", "{\"a\":\"\x1f\"}");
    syntax("invalid name", "{\"\xff\":1}");
    syntax("lone surrogate name", R"({"\ud800":1})");
    syntax("leading zero", R"({"a":01})");
    syntax("minus alone", R"({"a":-})");
    syntax("dot", R"({"a":1.})");
    syntax("exponent alone", R"({"a":1e})");
    syntax("plus", R"({"a":+1})");
    syntax("NaN", R"({"a":NaN})");
    syntax("true prefix", R"({"a":tru})");
    syntax("trailing comma", R"({"a":1,})");
    syntax("array trailing comma", R"({"a":[1,]})");
    syntax("garbage after", R"({} x)");
    syntax("bad escape", R"({"a":"\q"})");
    syntax("short escape", R"({"a":"\u00"})");
    syntax("unterminated", R"({"a":"x)");
    syntax("vertical tab space", "{\v}");
    syntax("too deep", QByteArray(65, '[') + QByteArray(65, ']'));
    duplicate("top level", R"({"a":1,"a":1})", "a");
    duplicate("by escape", R"({"a":1,"\u0061":2})", "a");
    duplicate("nested", R"({"t":{"c":"x","c":"y"}})", "t.c");
    duplicate("in an array", R"({"l":[{},{"k":1,"k":2}]})", "l[1].k");
}

void TestStrictJson::refused()
{
    QFETCH(QByteArray, json);
    QFETCH(bool, duplicate);
    QFETCH(QString, path);
    const auto parsed = StrictJson::parse(json);
    QVERIFY(std::holds_alternative<StrictJson::Error>(parsed));
    const auto &error = std::get<StrictJson::Error>(parsed);
    QCOMPARE(error.kind == StrictJson::Error::Kind::DuplicateMember, duplicate);
    if (duplicate)
        QCOMPARE(error.path, path);
    QVERIFY(!error.message.isEmpty());
}

void TestStrictJson::numbers_data()
{
    QTest::addColumn<QByteArray>("literal");
    QTest::addColumn<bool>("integer");
    QTest::addColumn<double>("value");
    QTest::newRow("0") << QByteArray("0") << true << 0.0;
    QTest::newRow("-0") << QByteArray("-0") << true << 0.0;
    QTest::newRow("4000") << QByteArray("4000") << true << 4000.0;
    QTest::newRow("int64 max") << QByteArray("9223372036854775807") << true << 9223372036854775807.0;
    QTest::newRow("int64 min") << QByteArray("-9223372036854775808") << true << -9223372036854775808.0;
    QTest::newRow("2^63") << QByteArray("9223372036854775808") << false << 9223372036854775808.0;
    QTest::newRow("1e2") << QByteArray("1e2") << false << qQNaN();
    QTest::newRow("100.0") << QByteArray("100.0") << false << qQNaN();
    QTest::newRow("-0.0") << QByteArray("-0.0") << false << qQNaN();
    QTest::newRow("40.5") << QByteArray("40.5") << false << 40.5;
    QTest::newRow("1E+2") << QByteArray("1E+2") << false << qQNaN();
    QTest::newRow("1e309") << QByteArray("1e309") << false << qInf();
    QTest::newRow("-1e309") << QByteArray("-1e309") << false << -qInf();
}

void TestStrictJson::numbers()
{
    QFETCH(QByteArray, literal);
    QFETCH(bool, integer);
    QFETCH(double, value);
    const auto parsed = StrictJson::parseObject("{\"n\":" + literal + '}');
    QVERIFY(std::holds_alternative<QJsonObject>(parsed));
    const QJsonValue n = std::get<QJsonObject>(parsed).value(QLatin1String("n"));
    QVERIFY(n.isDouble());
    QCOMPARE(StrictJson::isIntegerLiteral(n), integer);
    if (integer)
        QCOMPARE(double(n.toInteger()), value);
    else if (qIsNaN(value))
        QVERIFY(qIsNaN(n.toDouble()));
    else
        QCOMPARE(n.toDouble(), value);
}

void TestStrictJson::text_data()
{
    QTest::addColumn<QByteArray>("literal"); // a JSON string, quotes included
    QTest::addColumn<bool>("valid");
    QTest::addColumn<QString>("expected"); // when valid

    QTest::newRow("ascii") << QByteArray(R"("abc")") << true << QStringLiteral("abc");
    QTest::newRow("escapes") << QByteArray(R"("\"\\\/\b\f\n\r\t")") << true << QStringLiteral("\"\\/\b\f\n\r\t");
    QTest::newRow("pair") << QByteArray(R"("\ud83d\ude00")") << true << QStringLiteral("\U0001F600");
    QTest::newRow("upper hex pair") << QByteArray(R"("\uD83D\uDE00")") << true << QStringLiteral("\U0001F600");
    QTest::newRow("raw astral") << QByteArray("\"\xf0\x9f\x98\x80\"") << true << QStringLiteral("\U0001F600");
    QTest::newRow("raw 2-byte") << QByteArray("\"\xc3\xa9\"") << true << QStringLiteral("\u00E9");
    QTest::newRow("U+10FFFF") << QByteArray("\"\xf4\x8f\xbf\xbf\"") << true << QStringLiteral("\U0010FFFF");
    QTest::newRow("raw U+FEFF kept") << QByteArray("\"\xef\xbb\xbf" "a\"") << true << QStringLiteral("\uFEFFa");
    QTest::newRow("escaped NUL") << QByteArray(R"("\u0000")") << true << QString(QChar(0));
    QTest::newRow("lone high") << QByteArray(R"("\ud800")") << false << QString();
    QTest::newRow("lone low") << QByteArray(R"("\udc00")") << false << QString();
    QTest::newRow("reversed") << QByteArray(R"("\ude00\ud83d")") << false << QString();
    QTest::newRow("high, letter") << QByteArray(R"("\ud83dA")") << false << QString();
    QTest::newRow("high at the end") << QByteArray(R"("a\ud83d")") << false << QString();
    QTest::newRow("escaped high, encoded low") << QByteArray("\"\\ud800\xed\xb0\x80\"") << false << QString();
    QTest::newRow("overlong 2") << QByteArray("\"\xc0\xaf\"") << false << QString();
    QTest::newRow("overlong 3") << QByteArray("\"\xe0\x80\xaf\"") << false << QString();
    QTest::newRow("overlong 4") << QByteArray("\"\xf0\x80\x80\xaf\"") << false << QString();
    QTest::newRow("encoded surrogate") << QByteArray("\"\xed\xa0\x80\"") << false << QString();
    QTest::newRow("over U+10FFFF") << QByteArray("\"\xf4\x90\x80\x80\"") << false << QString();
    QTest::newRow("0xFF") << QByteArray("\"\xff\"") << false << QString();
    QTest::newRow("0xF5") << QByteArray("\"\xf5\x80\x80\x80\"") << false << QString();
    QTest::newRow("continuation") << QByteArray("\"\x80\"") << false << QString();
    QTest::newRow("truncated") << QByteArray("\"\xe2\x82\"") << false << QString();
}

void TestStrictJson::text()
{
    QFETCH(QByteArray, literal);
    QFETCH(bool, valid);
    QFETCH(QString, expected);
    const auto parsed = StrictJson::parseObject("{\"s\":" + literal + '}');
    QVERIFY(std::holds_alternative<QJsonObject>(parsed));
    const QJsonValue s = std::get<QJsonObject>(parsed).value(QLatin1String("s"));
    QVERIFY(s.isString());
    QCOMPARE(s.toString().isValidUtf16(), valid);
    if (valid)
        QCOMPARE(s.toString(), expected);
}

// For ordinary JSON the result is what QJsonDocument reads.
void TestStrictJson::sameAsQtForValidJson()
{
    const QByteArray json = R"({"kind":"refund","target":{"charge":"ch_1"},"amount":4000,"list":[1,2.5,true,false,null,"x",{}],
                               "nested":{"a":{"b":[[]]}}, "text":"caf\u00e9 \ud83d\ude00", "neg":-12})";
    const auto parsed = StrictJson::parseObject(json);
    QVERIFY(std::holds_alternative<QJsonObject>(parsed));
    QCOMPARE(std::get<QJsonObject>(parsed), QJsonDocument::fromJson(json).object());
}

QTEST_GUILESS_MAIN(TestStrictJson)
#include "tst_strictjson.moc"
