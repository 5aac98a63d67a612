// The request preconditions an endpoint's row asks for (server/api/requestpreconditions.h): one
// row per accepted and per refused request, with the exact problem code, detail and field.
#include "server/api/requestpreconditions.h"

#include "server/api/authenticator.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace cs;

using Body = RequestPreconditions::Body;
using Needs = RequestPreconditions::Needs;

Q_DECLARE_METATYPE(cs::HeaderList)
Q_DECLARE_METATYPE(cs::RequestPreconditions::Needs)

class TestRequestPreconditions : public QObject
{
    Q_OBJECT

private slots:
    void passed_data();
    void passed();
    void refusal_data();
    void refusal();
    void ifMatchRequired_data();
    void ifMatchRequired();
    void lastEventId_data();
    void lastEventId();
    void jsonMediaType_data();
    void jsonMediaType();
    void bearerToken_data();
    void bearerToken();
    void authorizationOnce();
};

namespace {

constexpr qsizetype kMax = 64;

const Needs kGet{Body::None, false, false};
const Needs kProposal{Body::Json, false, true};
const Needs kMutation{Body::Json, true, true};
const Needs kLookup{Body::OptionalJson, true, true};
const Needs kWebhook{Body::Raw, false, false};

const HeaderList kJson{{"Content-Type", "application/json"}};

HeaderList jsonWith(const QByteArray &name, const QByteArray &value)
{
    return HeaderList{{"Content-Type", "application/json"}, {name, value}};
}

} // namespace

void TestRequestPreconditions::passed_data()
{
    QTest::addColumn<Needs>("needs");
    QTest::addColumn<HeaderList>("headers");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<qint64>("ifMatch");
    QTest::addColumn<QString>("ifMatchText");
    QTest::addColumn<QString>("key");

    QTest::newRow("GET: nothing looked at") << kGet << HeaderList{{"If-Match", "junk"}, {"Idempotency-Key", ""}}
                                            << QByteArray(200, 'x') << QByteArray("{}") << qint64(-1) << QString() << QString();
    QTest::newRow("a JSON object") << kProposal << kJson << QByteArray(R"({"a":1})") << QByteArray(R"({"a":1})")
                                   << qint64(-1) << QString() << QString();
    QTest::newRow("charset=utf-8") << kProposal << HeaderList{{"Content-Type", "application/json; charset=utf-8"}}
                                   << QByteArray("{}") << QByteArray("{}") << qint64(-1) << QString() << QString();
    QTest::newRow("header names in any case") << kMutation
                                              << HeaderList{{"content-type", "Application/JSON"}, {"if-match", "\"3\""}, {"idempotency-key", "k1"}}
                                              << QByteArray("{}") << QByteArray("{}") << qint64(3) << QStringLiteral("3") << QStringLiteral("k1");
    QTest::newRow("a body of exactly the limit") << kProposal << kJson << QByteArray("{\"a\":\"") + QByteArray(kMax - 8, 'x') + "\"}"
                                                 << QByteArray("{\"a\":\"") + QByteArray(kMax - 8, 'x') + "\"}" << qint64(-1) << QString() << QString();
    QTest::newRow("If-Match ignored where not needed") << kProposal << jsonWith("If-Match", "junk") << QByteArray("{}")
                                                       << QByteArray("{}") << qint64(-1) << QString() << QString();
    QTest::newRow("If-Match strong") << kMutation << jsonWith("If-Match", "\"7\"") << QByteArray("{}") << QByteArray("{}")
                                     << qint64(7) << QStringLiteral("7") << QString();
    QTest::newRow("If-Match weak") << kMutation << jsonWith("If-Match", "W/\"12\"") << QByteArray("{}") << QByteArray("{}")
                                   << qint64(12) << QStringLiteral("12") << QString();
    QTest::newRow("If-Match with spaces around") << kMutation << jsonWith("If-Match", "  \"5\" ") << QByteArray("{}")
                                                 << QByteArray("{}") << qint64(5) << QStringLiteral("5") << QString();
    QTest::newRow("If-Match of 18 digits") << kMutation << jsonWith("If-Match", "\"999999999999999999\"") << QByteArray("{}")
                                           << QByteArray("{}") << qint64(999999999999999999) << QStringLiteral("999999999999999999") << QString();
    QTest::newRow("If-Match *: parsed as absent") << kMutation << jsonWith("If-Match", "*") << QByteArray("{}") << QByteArray("{}")
                                                  << qint64(-1) << QString() << QString();
    QTest::newRow("Idempotency-Key of 255 characters") << kProposal << jsonWith("Idempotency-Key", QByteArray(255, 'k'))
                                                       << QByteArray("{}") << QByteArray("{}") << qint64(-1) << QString()
                                                       << QString(255, u'k');
    QTest::newRow("Idempotency-Key of printable punctuation") << kProposal << jsonWith("Idempotency-Key", "!~a-b_c.d")
                                                              << QByteArray("{}") << QByteArray("{}") << qint64(-1) << QString()
                                                              << QStringLiteral("!~a-b_c.d");
    QTest::newRow("lookup without a body or Content-Type") << kLookup << HeaderList{} << QByteArray() << QByteArray("{}")
                                                           << qint64(-1) << QString() << QString();
    QTest::newRow("lookup without a body, any Content-Type") << kLookup << HeaderList{{"Content-Type", "text/plain"}}
                                                             << QByteArray() << QByteArray("{}") << qint64(-1) << QString() << QString();
    QTest::newRow("lookup with {}") << kLookup << kJson << QByteArray("{}") << QByteArray("{}") << qint64(-1) << QString() << QString();
    QTest::newRow("webhook: not parsed") << kWebhook << kJson << QByteArray("not json") << QByteArray("{}") << qint64(-1)
                                         << QString() << QString();
    QTest::newRow("webhook: no Idempotency-Key parsed") << kWebhook << jsonWith("Idempotency-Key", "") << QByteArray("{}")
                                                        << QByteArray("{}") << qint64(-1) << QString() << QString();
}

void TestRequestPreconditions::passed()
{
    QFETCH(Needs, needs);
    QFETCH(HeaderList, headers);
    QFETCH(QByteArray, body);
    QFETCH(QByteArray, json);
    QFETCH(qint64, ifMatch);
    QFETCH(QString, ifMatchText);
    QFETCH(QString, key);

    const auto checked = RequestPreconditions::check(needs, headers, body, kMax);
    if (const auto *refused = std::get_if<Problem>(&checked))
        QFAIL(qPrintable(refused->toJson(QString()).value(QLatin1String("detail")).toString()));
    const auto &passed = std::get<RequestPreconditions::Passed>(checked);
    QCOMPARE(passed.json, QJsonDocument::fromJson(json).object());
    QCOMPARE(passed.ifMatch, ifMatch);
    QCOMPARE(passed.ifMatchText, ifMatchText);
    QCOMPARE(passed.idempotencyKey, key);
}

void TestRequestPreconditions::refusal_data()
{
    QTest::addColumn<Needs>("needs");
    QTest::addColumn<HeaderList>("headers");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QString>("code");
    QTest::addColumn<QString>("detail");
    QTest::addColumn<QString>("field");

    const QByteArray tooLarge(kMax + 1, ' ');
    const QString tooLargeDetail = QStringLiteral("the body is 65 bytes; at most 64 are accepted");
    const QString ifMatch = QStringLiteral("If-Match must be one entity tag of digits such as \"7\"");
    const QString key = QStringLiteral("Idempotency-Key must be 1 to 255 printable ASCII characters");

    QTest::newRow("413 before the media type") << kProposal << HeaderList{{"Content-Type", "text/plain"}} << tooLarge
                                               << QStringLiteral("payload_too_large") << tooLargeDetail << QString();
    QTest::newRow("413 for an optional body") << kLookup << kJson << tooLarge << QStringLiteral("payload_too_large") << tooLargeDetail << QString();
    QTest::newRow("413 for the webhook") << kWebhook << kJson << tooLarge << QStringLiteral("payload_too_large") << tooLargeDetail << QString();
    QTest::newRow("415 text/plain") << kProposal << HeaderList{{"Content-Type", "text/plain"}} << QByteArray("{}")
                                    << QStringLiteral("unsupported_media_type")
                                    << QStringLiteral("the body must be application/json, not \"text/plain\"") << QString();
    QTest::newRow("415 a body without Content-Type") << kProposal << HeaderList{} << QByteArray("{}")
                                                     << QStringLiteral("unsupported_media_type")
                                                     << QStringLiteral("the body must be application/json, not \"\"") << QString();
    QTest::newRow("415 an empty Content-Type without a body") << kMutation << HeaderList{{"Content-Type", ""}} << QByteArray()
                                                              << QStringLiteral("unsupported_media_type")
                                                              << QStringLiteral("the body must be application/json, not \"\"") << QString();
    QTest::newRow("415 charset latin1") << kProposal << HeaderList{{"Content-Type", "application/json; charset=latin1"}}
                                        << QByteArray("{}") << QStringLiteral("unsupported_media_type")
                                        << QStringLiteral("the body must be application/json, not \"application/json; charset=latin1\"")
                                        << QString();
    QTest::newRow("415 lookup with a body of another type") << kLookup << HeaderList{{"Content-Type", "text/plain"}}
                                                            << QByteArray("{}") << QStringLiteral("unsupported_media_type")
                                                            << QStringLiteral("the body must be application/json, not \"text/plain\"")
                                                            << QString();
    QTest::newRow("415 webhook without Content-Type") << kWebhook << HeaderList{} << QByteArray()
                                                      << QStringLiteral("unsupported_media_type")
                                                      << QStringLiteral("a webhook body must be application/json") << QString();
    QTest::newRow("400 no body") << kMutation << kJson << QByteArray() << QStringLiteral("malformed_json")
                                 << QStringLiteral("a JSON object body is required") << QString();
    QTest::newRow("400 no body and no Content-Type") << kProposal << HeaderList{} << QByteArray() << QStringLiteral("malformed_json")
                                                     << QStringLiteral("a JSON object body is required") << QString();
    QTest::newRow("400 not JSON") << kProposal << kJson << QByteArray("{") << QStringLiteral("malformed_json")
                                  << QStringLiteral("the body is not JSON: unterminated object at offset 1") << QString();
    QTest::newRow("400 an array") << kProposal << kJson << QByteArray("[]") << QStringLiteral("malformed_json")
                                  << QStringLiteral("the body is not a JSON object") << QString();
    QTest::newRow("400 lookup with a broken body") << kLookup << kJson << QByteArray("nul") << QStringLiteral("malformed_json")
                                                   << QStringLiteral("the body is not JSON: illegal value at offset 1") << QString();
    QTest::newRow("400 If-Match unquoted") << kMutation << jsonWith("If-Match", "7") << QByteArray("{}")
                                           << QStringLiteral("invalid_parameter") << ifMatch << QStringLiteral("If-Match");
    QTest::newRow("400 If-Match of two tags") << kMutation << jsonWith("If-Match", "\"1\", \"2\"") << QByteArray("{}")
                                              << QStringLiteral("invalid_parameter") << ifMatch << QStringLiteral("If-Match");
    QTest::newRow("400 If-Match not digits") << kMutation << jsonWith("If-Match", "\"abc\"") << QByteArray("{}")
                                             << QStringLiteral("invalid_parameter") << ifMatch << QStringLiteral("If-Match");
    QTest::newRow("400 If-Match of 19 digits") << kMutation << jsonWith("If-Match", "\"1234567890123456789\"") << QByteArray("{}")
                                               << QStringLiteral("invalid_parameter") << ifMatch << QStringLiteral("If-Match");
    QTest::newRow("400 If-Match empty") << kMutation << jsonWith("If-Match", "") << QByteArray("{}")
                                        << QStringLiteral("invalid_parameter") << ifMatch << QStringLiteral("If-Match");
    QTest::newRow("400 Idempotency-Key empty") << kProposal << jsonWith("Idempotency-Key", "") << QByteArray("{}")
                                               << QStringLiteral("invalid_parameter") << key << QStringLiteral("Idempotency-Key");
    QTest::newRow("400 Idempotency-Key with a space") << kMutation << jsonWith("Idempotency-Key", "a b") << QByteArray("{}")
                                                      << QStringLiteral("invalid_parameter") << key << QStringLiteral("Idempotency-Key");
    QTest::newRow("400 Idempotency-Key of 256 characters") << kMutation << jsonWith("Idempotency-Key", QByteArray(256, 'k'))
                                                           << QByteArray("{}") << QStringLiteral("invalid_parameter") << key
                                                           << QStringLiteral("Idempotency-Key");
    QTest::newRow("400 Idempotency-Key not ASCII") << kMutation << jsonWith("Idempotency-Key", "\xc3\xa9") << QByteArray("{}")
                                                   << QStringLiteral("invalid_parameter") << key << QStringLiteral("Idempotency-Key");
    QTest::newRow("If-Match syntax before Idempotency-Key syntax")
        << kMutation << HeaderList{{"Content-Type", "application/json"}, {"If-Match", "x"}, {"Idempotency-Key", ""}}
        << QByteArray("{}") << QStringLiteral("invalid_parameter") << ifMatch << QStringLiteral("If-Match");
    // Issue 12: one reading of a body and of the headers the API reads.
    QTest::newRow("400 a duplicate member") << kProposal << kJson << QByteArray(R"({"t":{"c":1,"c":2}})")
                                            << QStringLiteral("duplicate_member")
                                            << QStringLiteral("the member \"t.c\" is given more than once") << QStringLiteral("t.c");
    QTest::newRow("400 a byte order mark") << kProposal << kJson << QByteArray("\xef\xbb\xbf{}") << QStringLiteral("malformed_json")
                                           << QStringLiteral("the body is not JSON: a byte order mark is not allowed at offset 0")
                                           << QString();
    QTest::newRow("400 a raw control character") << kProposal << kJson << QByteArray("{\"a\":\"\x01\"}")
                                                 << QStringLiteral("malformed_json")
                                                 << QStringLiteral("the body is not JSON: a raw control character (U+0001) in a string; escape it at offset 6")
                                                 << QString();
    QTest::newRow("400 If-Match twice") << kMutation << HeaderList{{"Content-Type", "application/json"}, {"If-Match", "\"1\""}, {"if-match", "\"1\""}}
                                        << QByteArray("{}") << QStringLiteral("invalid_parameter")
                                        << QStringLiteral("If-Match must be sent at most once") << QStringLiteral("If-Match");
    QTest::newRow("400 Content-Type twice, even for a GET") << kGet << HeaderList{{"Content-Type", "application/json"}, {"Content-Type", "text/plain"}}
                                                            << QByteArray() << QStringLiteral("invalid_parameter")
                                                            << QStringLiteral("Content-Type must be sent at most once") << QStringLiteral("Content-Type");
    QTest::newRow("the body before the headers")
        << kMutation << HeaderList{{"Content-Type", "application/json"}, {"If-Match", "x"}} << QByteArray("[")
        << QStringLiteral("malformed_json") << QStringLiteral("the body is not JSON: unterminated array at offset 1") << QString();
}

void TestRequestPreconditions::refusal()
{
    QFETCH(Needs, needs);
    QFETCH(HeaderList, headers);
    QFETCH(QByteArray, body);
    QFETCH(QString, code);
    QFETCH(QString, detail);
    QFETCH(QString, field);

    const auto checked = RequestPreconditions::check(needs, headers, body, kMax);
    QVERIFY(std::holds_alternative<Problem>(checked));
    const QJsonObject problem = std::get<Problem>(checked).toJson(QStringLiteral("/x"));
    QCOMPARE(problem.value(QLatin1String("code")).toString(), code);
    QCOMPARE(problem.value(QLatin1String("detail")).toString(), detail);
    QCOMPARE(problem.value(QLatin1String("errors")).toArray().at(0).toObject().value(QLatin1String("field")).toString(), field);
}

void TestRequestPreconditions::ifMatchRequired_data()
{
    QTest::addColumn<Needs>("needs");
    QTest::addColumn<HeaderList>("headers");
    QTest::addColumn<bool>("required");

    QTest::newRow("a mutation without If-Match: 428") << kMutation << kJson << true;
    QTest::newRow("a mutation with If-Match *: 428") << kMutation << jsonWith("If-Match", "*") << true;
    QTest::newRow("a mutation with If-Match") << kMutation << jsonWith("If-Match", "\"1\"") << false;
    QTest::newRow("a lookup without If-Match: 428") << kLookup << kJson << true;
    QTest::newRow("a proposal needs none") << kProposal << kJson << false;
    QTest::newRow("a GET needs none") << kGet << HeaderList{} << false;
}

void TestRequestPreconditions::ifMatchRequired()
{
    QFETCH(Needs, needs);
    QFETCH(HeaderList, headers);
    QFETCH(bool, required);

    const auto checked = RequestPreconditions::check(needs, headers, QByteArray("{}"), kMax);
    QVERIFY(std::holds_alternative<RequestPreconditions::Passed>(checked));
    const auto refused = RequestPreconditions::requireIfMatch(needs, std::get<RequestPreconditions::Passed>(checked));
    QCOMPARE(refused.has_value(), required);
    if (refused) {
        QCOMPARE(refused->code(), QStringLiteral("if_match_required"));
        QCOMPARE(refused->status(), 428);
    }
}

void TestRequestPreconditions::lastEventId_data()
{
    QTest::addColumn<HeaderList>("headers");
    QTest::addColumn<bool>("valid");
    QTest::addColumn<qint64>("id"); // -1: none

    QTest::newRow("absent") << HeaderList{} << true << qint64(-1);
    QTest::newRow("digits") << HeaderList{{"Last-Event-ID", "1041"}} << true << qint64(1041);
    QTest::newRow("with spaces") << HeaderList{{"last-event-id", " 7 "}} << true << qint64(7);
    QTest::newRow("18 digits") << HeaderList{{"Last-Event-ID", "123456789012345678"}} << true << qint64(123456789012345678);
    QTest::newRow("19 digits") << HeaderList{{"Last-Event-ID", "1234567890123456789"}} << false << qint64(-1);
    QTest::newRow("empty") << HeaderList{{"Last-Event-ID", ""}} << false << qint64(-1);
    QTest::newRow("negative") << HeaderList{{"Last-Event-ID", "-1"}} << false << qint64(-1);
    QTest::newRow("not a number") << HeaderList{{"Last-Event-ID", "abc"}} << false << qint64(-1);
}

void TestRequestPreconditions::lastEventId()
{
    QFETCH(HeaderList, headers);
    QFETCH(bool, valid);
    QFETCH(qint64, id);

    const auto parsed = RequestPreconditions::lastEventId(headers);
    if (!valid) {
        QVERIFY(std::holds_alternative<Problem>(parsed));
        const QJsonObject problem = std::get<Problem>(parsed).toJson(QString());
        QCOMPARE(problem.value(QLatin1String("code")).toString(), QStringLiteral("invalid_parameter"));
        QCOMPARE(problem.value(QLatin1String("errors")).toArray().at(0).toObject().value(QLatin1String("field")).toString(),
                 QStringLiteral("Last-Event-ID"));
        return;
    }
    QVERIFY(std::holds_alternative<std::optional<qint64>>(parsed));
    QCOMPARE(std::get<std::optional<qint64>>(parsed).value_or(-1), id);
}

void TestRequestPreconditions::jsonMediaType_data()
{
    QTest::addColumn<QByteArray>("contentType");
    QTest::addColumn<bool>("json");

    QTest::newRow("application/json") << QByteArray("application/json") << true;
    QTest::newRow("any case, spaces") << QByteArray(" Application/JSON ") << true;
    QTest::newRow("charset=utf-8") << QByteArray("application/json; charset=utf-8") << true;
    QTest::newRow("charset=UTF8 quoted") << QByteArray("application/json;charset=\"UTF8\"") << true;
    QTest::newRow("an empty parameter") << QByteArray("application/json;") << true;
    QTest::newRow("empty") << QByteArray() << false;
    QTest::newRow("text/json") << QByteArray("text/json") << false;
    QTest::newRow("application/json-patch+json") << QByteArray("application/json-patch+json") << false;
    QTest::newRow("charset=latin1") << QByteArray("application/json; charset=latin1") << false;
    QTest::newRow("another parameter") << QByteArray("application/json; boundary=x") << false;
    QTest::newRow("a parameter without a value") << QByteArray("application/json; charset") << false;
}

void TestRequestPreconditions::jsonMediaType()
{
    QFETCH(QByteArray, contentType);
    QFETCH(bool, json);
    QCOMPARE(RequestPreconditions::isJsonMediaType(contentType), json);
}

// The syntax of the Authorization value (Authenticator::bearerToken): exactly `Bearer <token>`.
void TestRequestPreconditions::bearerToken_data()
{
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<QByteArray>("token"); // empty: no credential

    QTest::newRow("Bearer") << QByteArray("Bearer cst_ABC234") << QByteArray("cst_ABC234");
    QTest::newRow("lowercase scheme") << QByteArray("bearer cst_ABC234") << QByteArray("cst_ABC234");
    QTest::newRow("b64token characters") << QByteArray("Bearer a-b.c_d~e+f/g==") << QByteArray("a-b.c_d~e+f/g==");
    QTest::newRow("surrounding spaces (the parser's)") << QByteArray(" Bearer tok ") << QByteArray("tok");
    QTest::newRow("two spaces") << QByteArray("Bearer  tok") << QByteArray();
    QTest::newRow("tab") << QByteArray("Bearer\ttok") << QByteArray();
    QTest::newRow("no token") << QByteArray("Bearer") << QByteArray();
    QTest::newRow("no token, a space") << QByteArray("Bearer ") << QByteArray();
    QTest::newRow("glued") << QByteArray("Bearertok") << QByteArray();
    QTest::newRow("another scheme") << QByteArray("Basic tok") << QByteArray();
    QTest::newRow("a second word") << QByteArray("Bearer tok more") << QByteArray();
    QTest::newRow("a comma") << QByteArray("Bearer tok,") << QByteArray();
    QTest::newRow("= in the middle") << QByteArray("Bearer to=k") << QByteArray();
    QTest::newRow("only =") << QByteArray("Bearer ==") << QByteArray();
    QTest::newRow("non-ASCII") << QByteArray("Bearer tok\xc3\xa9") << QByteArray();
    QTest::newRow("NUL") << QByteArray("Bearer tok\0x", 12) << QByteArray();
    QTest::newRow("empty") << QByteArray() << QByteArray();
}

void TestRequestPreconditions::bearerToken()
{
    QFETCH(QByteArray, value);
    QFETCH(QByteArray, token);
    QCOMPARE(cs::Authenticator::bearerToken(value).value_or(QByteArray()), token);
}

void TestRequestPreconditions::authorizationOnce()
{
    const auto one = RequestPreconditions::authorization({{"authorization", "Bearer a"}, {"Accept", "*/*"}});
    QCOMPARE(std::get<QByteArray>(one), QByteArray("Bearer a"));
    QCOMPARE(std::get<QByteArray>(RequestPreconditions::authorization({})), QByteArray());
    const auto two = RequestPreconditions::authorization({{"Authorization", "Bearer a"}, {"AUTHORIZATION", "Bearer a"}});
    QVERIFY(std::holds_alternative<Problem>(two));
    QCOMPARE(std::get<Problem>(two).code(), QStringLiteral("invalid_parameter"));
    QCOMPARE(std::get<Problem>(two).status(), 400);
}

QTEST_GUILESS_MAIN(TestRequestPreconditions)
#include "tst_requestpreconditions.moc"
