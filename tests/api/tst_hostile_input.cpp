// Issue 12, the hostile-input suite: a real countersignd on loopback, raw HTTP requests (so two
// Authorization lines, tabs and stray bytes reach the server as written), one row per case. The
// classes: JSON syntax, duplicate members at any depth, Unicode (lone and reversed surrogates,
// overlong and encoded-surrogate UTF-8, stray bytes, BOM, NUL, C0/C1 controls, line separators,
// bidi controls), numbers (exponent, fraction, -0, huge, negative), authentication (missing,
// `Bearer` alone, two spaces, tab, unknown token, two Authorization headers), repeated headers —
// against every endpoint that takes text. Every refused row asserts the status, the problem
// `code` and the field named, an unchanged ledger (action and audit counts, the last audit seq,
// the target's state_version) and an intact audit chain. The accepted rows assert that what was
// accepted is what is read back, with the chain intact. The framing and size rows are the HTTP
// layer's suite.
#include "tests/api/apitestsupport.h"

#include "server/ledger/ledger.h"
#include "tests/server/randomtext.h"

#include <QElapsedTimer>
#include <QHostAddress>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QTcpSocket>
#include <QTest>

using Members = QList<QPair<QByteArray, QByteArray>>; // name → raw JSON value, in order

namespace {

struct RawReply
{
    int status = 0;
    QJsonObject json;
    QByteArray head;
    QByteArray body;
    QString code() const { return json.value(QStringLiteral("code")).toString(); }
    QStringList fields() const
    {
        QStringList out;
        for (const QJsonValue &e : json.value(QStringLiteral("errors")).toArray())
            out << e.toObject().value(QStringLiteral("field")).toString();
        return out;
    }
};

// One request written byte for byte; reads one response (by its Content-Length).
RawReply rawRequest(quint16 port, const QByteArray &method, const QByteArray &path, const QList<QByteArray> &headerLines,
                    const QByteArray &body)
{
    RawReply reply;
    QTcpSocket socket;
    socket.connectToHost(QHostAddress::LocalHost, port);
    if (!socket.waitForConnected(5000))
        return reply;
    QByteArray request = method + ' ' + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + QByteArray::number(port) + "\r\n";
    for (const QByteArray &line : headerLines)
        request += line + "\r\n";
    request += "Content-Length: " + QByteArray::number(body.size()) + "\r\n\r\n" + body;
    socket.write(request);
    QByteArray in;
    QElapsedTimer timer;
    timer.start();
    while (timer.elapsed() < 15000) {
        const qsizetype end = in.indexOf("\r\n\r\n");
        if (end >= 0) {
            qsizetype length = 0;
            for (const QByteArray &line : in.left(end).split('\n')) {
                if (line.trimmed().toLower().startsWith("content-length:"))
                    length = line.mid(line.indexOf(':') + 1).trimmed().toLongLong();
            }
            if (in.size() >= end + 4 + length) {
                reply.head = in.left(end);
                reply.body = in.mid(end + 4, length);
                reply.status = in.mid(9, 3).toInt();
                reply.json = QJsonDocument::fromJson(reply.body).object();
                break;
            }
        }
        if (!socket.waitForReadyRead(200) && socket.state() != QAbstractSocket::ConnectedState)
            break;
        in += socket.readAll();
    }
    return reply;
}

QByteArray object(const Members &members)
{
    QByteArray out = "{";
    for (const auto &[name, value] : members)
        out += (out.size() > 1 ? "," : "") + ('"' + name + "\":" + value);
    return out + '}';
}

// `members` with `name` set to `value` (added when absent; removed when value is empty).
Members with(Members members, const QByteArray &name, const QByteArray &value)
{
    for (qsizetype i = 0; i < members.size(); ++i) {
        if (members.at(i).first == name) {
            if (value.isEmpty())
                members.removeAt(i);
            else
                members[i].second = value;
            return members;
        }
    }
    if (!value.isEmpty())
        members.append({name, value});
    return members;
}

struct Endpoint
{
    QByteArray suffix; // after /actions/{id}; empty: POST /actions
    QString user;
    Members body;
};

Endpoint endpoint(const QString &name, int serial)
{
    const QByteArray reference = "\"hostile-" + QByteArray::number(serial) + '"';
    if (name == u"propose")
        return {QByteArray(), QStringLiteral("agent-7"),
                {{"kind", "\"refund\""}, {"target", R"({"charge":"ch_3Pq8Xk2eZvKYlo2C1b4a9dEf"})"}, {"amount", "4000"},
                 {"currency", "\"usd\""}, {"client_reference", reference}, {"business_reference", "\"order-1\""}}};
    if (name == u"approve")
        return {"/approvals", QStringLiteral("ana"), {{"note", "\"ok\""}}};
    if (name == u"reject")
        return {"/rejections", QStringLiteral("ana"), {{"reason", "\"other\""}, {"note", "\"no\""}}};
    if (name == u"reconcile")
        return {"/reconciliations", QStringLiteral("sam"),
                {{"outcome", "\"committed\""}, {"evidence_lookup_seq", "1"}, {"note", "\"checked\""}}};
    if (name == u"follow-up")
        return {"/follow-ups", QStringLiteral("sam"),
                {{"desired_total_amount", "5000"}, {"note", "\"more\""}, {"client_reference", reference}}};
    if (name == u"lookup")
        return {"/lookups", QStringLiteral("sam"), {}};
    return {};
}

} // namespace

class TestHostileInput : public QObject
{
    Q_OBJECT

private:
    ApiHarness m_harness;
    std::unique_ptr<ApiClient> m_client;
    QString m_target; // a PENDING action every refused row aims at; it never changes
    int m_serial = 0;

    quint16 port() const { return quint16(m_harness.api().port()); }

    // The request of one row: the endpoint's valid body with `member` set to `value` (or `raw` as
    // the whole body), the user's token in `auth` lines ({token}), If-Match for an action.
    RawReply send(const QString &name, const QString &actionId, const QByteArray &member, const QByteArray &value,
                  const QByteArray &raw, const QList<QByteArray> &auth, const QList<QByteArray> &extra)
    {
        const Endpoint e = endpoint(name, ++m_serial);
        const QByteArray body = !raw.isEmpty() ? raw : object(member.isEmpty() ? e.body : with(e.body, member, value));
        QList<QByteArray> lines;
        const QByteArray token = m_harness.token(e.user).toLatin1();
        for (QByteArray line : auth)
            lines << "Authorization: " + line.replace("{token}", token);
        lines << "Content-Type: application/json";
        if (!e.suffix.isEmpty()) {
            const auto record = m_harness.ledger().reader().action(actionId);
            lines << "If-Match: \"" + QByteArray::number(record.ok() ? record->stateVersion : 1) + '"';
        }
        lines += extra;
        const QByteArray path = "/api/v1/actions" + (e.suffix.isEmpty() ? QByteArray() : '/' + actionId.toLatin1() + e.suffix);
        return rawRequest(port(), "POST", path, lines, body);
    }

    void verifyChain()
    {
        const auto v = m_harness.ledger().reader().verifyAudit();
        QVERIFY(v.ok());
        QVERIFY2(v->ok, qPrintable(QStringLiteral("broken at seq %1: %2").arg(v->firstBrokenSeq).arg(v->reason)));
    }

    QString freshAction()
    {
        const ApiReply created = m_client->propose(m_harness.token(QStringLiteral("agent-7")),
                                                   ApiClient::proposal(QStringLiteral("fresh-%1").arg(++m_serial)));
        return created.json.value(QStringLiteral("id")).toString();
    }

    static void columns()
    {
        QTest::addColumn<QString>("endpoint");
        QTest::addColumn<QByteArray>("member");
        QTest::addColumn<QByteArray>("value"); // raw JSON bytes
        QTest::addColumn<QByteArray>("raw");   // the whole body instead, when not empty
        QTest::addColumn<QList<QByteArray>>("auth");
        QTest::addColumn<QList<QByteArray>>("extra");
    }

private slots:
    void initTestCase()
    {
        QString error;
        ApiHarness::Options options;
        options.extraServeArguments = {QStringLiteral("--no-executor")};
        QVERIFY2(m_harness.start(options, &error), qPrintable(error));
        m_client = std::make_unique<ApiClient>(m_harness.api());
        m_target = freshAction();
        QVERIFY(!m_target.isEmpty());
    }

    void cleanupTestCase()
    {
        // The command an operator runs agrees: exit 0.
        QProcess verify;
        verify.start(ApiHarness::countersigndBinary(), {QStringLiteral("audit"), QStringLiteral("verify"),
                                                        QStringLiteral("--db"), m_harness.dbPath()});
        QVERIFY(verify.waitForFinished(30000));
        QVERIFY2(verify.exitCode() == 0, QByteArray(verify.readAllStandardOutput() + verify.readAllStandardError()).constData());
        QVERIFY2(m_harness.countersignd().stop(), m_harness.countersignd().standardError().constData());
    }

    void refused_data();
    void refused();
    void accepted_data();
    void accepted();
    void generatedTextThroughTheApi();
};

void TestHostileInput::refused_data()
{
    columns();
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("code");
    QTest::addColumn<QString>("field"); // named in `errors`; empty: not checked

    const QList<QByteArray> bearer = {"Bearer {token}"};
    const QList<QByteArray> none;
    const auto row = [&](const char *name, const char *endpoint, const QByteArray &member, const QByteArray &value, int status,
                         const char *code, const QByteArray &field = QByteArray()) {
        QTest::newRow(name) << QString::fromLatin1(endpoint) << member << value << QByteArray() << bearer << none << status
                            << QString::fromLatin1(code) << QString::fromLatin1(field);
    };
    const auto rawRow = [&](const char *name, const char *endpoint, const QByteArray &raw, int status, const char *code,
                            const QByteArray &field = QByteArray()) {
        QTest::newRow(name) << QString::fromLatin1(endpoint) << QByteArray() << QByteArray() << raw << bearer << none << status
                            << QString::fromLatin1(code) << QString::fromLatin1(field);
    };
    const auto authRow = [&](const char *name, const QList<QByteArray> &auth, int status, const char *code,
                             const QByteArray &field = QByteArray()) {
        QTest::newRow(name) << QStringLiteral("propose") << QByteArray() << QByteArray() << QByteArray() << auth << none
                            << status << QString::fromLatin1(code) << QString::fromLatin1(field);
    };
    const auto headerRow = [&](const char *name, const char *endpoint, const QList<QByteArray> &extra, const char *field) {
        QTest::newRow(name) << QString::fromLatin1(endpoint) << QByteArray() << QByteArray() << QByteArray() << bearer
                            << extra << 400 << QStringLiteral("invalid_parameter") << QString::fromLatin1(field);
    };
    const char *v = "validation_failed";

    // Finding 1: a lone surrogate in every text member of every endpoint.
    row("#1 client_reference lone high", "propose", "client_reference", R"("o\ud800")", 422, v, "client_reference");
    row("#1 approval note lone high", "approve", "note", R"("ok\ud800")", 422, v, "note");
    row("#1 rejection note lone low", "reject", "note", R"("no\udc00")", 422, v, "note");
    row("#1 follow-up note lone high", "follow-up", "note", R"("\ud800x")", 422, v, "note");
    row("#1 follow-up client_reference lone", "follow-up", "client_reference", R"("f\udfff")", 422, v, "client_reference");
    row("#1 reconciliation note lone high", "reconcile", "note", R"("\ud83d")", 422, v, "note");
    // Finding 2.
    row("#2 business_reference lone high", "propose", "business_reference", R"("o\ud800")", 422, v, "business_reference");
    row("#2 target charge lone", "propose", "target", R"({"charge":"ch_\ud800"})", 422, v, "target.charge");

    // Unicode: escapes.
    row("reversed pair", "propose", "client_reference", R"("\ude00\ud83d")", 422, v, "client_reference");
    row("high then a letter escape", "approve", "note", R"("\ud83d\u0041")", 422, v, "note");
    row("two high surrogates", "reject", "note", R"("\ud83d\ud83d")", 422, v, "note");
    // Unicode: raw bytes that are not UTF-8.
    row("overlong slash", "propose", "client_reference", "\"a\xc0\xaf\"", 422, v, "client_reference");
    row("overlong 3-byte", "approve", "note", "\"\xe0\x80\xaf\"", 422, v, "note");
    row("UTF-8 encoded surrogate", "propose", "business_reference", "\"\xed\xa0\x80\"", 422, v, "business_reference");
    row("escaped high + encoded low", "reject", "note", "\"\\ud800\xed\xb0\x80\"", 422, v, "note");
    row("over U+10FFFF", "follow-up", "note", "\"\xf4\x90\x80\x80\"", 422, v, "note");
    row("0xFF byte", "propose", "client_reference", "\"o\xff\"", 422, v, "client_reference");
    row("truncated sequence", "reconcile", "note", "\"\xe2\x82\"", 422, v, "note");
    row("lone continuation byte", "approve", "note", "\"\x80\"", 422, v, "note");
    // Unicode: controls and invisible characters.
    row("NUL escape in a reference", "propose", "client_reference", R"("a\u0000b")", 422, v, "client_reference");
    row("NUL escape in a note", "approve", "note", R"("a\u0000b")", 422, v, "note");
    row("BEL in a note", "reject", "note", R"("ring\u0007")", 422, v, "note");
    row("ESC in a reference", "propose", "business_reference", R"("\u001b[31mred")", 422, v, "business_reference");
    row("CR in a note", "follow-up", "note", R"("line\rover")", 422, v, "note");
    row("tab in a reference", "propose", "client_reference", R"("a\tb")", 422, v, "client_reference");
    row("newline in a reference", "follow-up", "client_reference", R"("a\nb")", 422, v, "client_reference");
    row("DEL in a reference", "propose", "client_reference", R"("a\u007f")", 422, v, "client_reference");
    row("C1 NEL in a note", "reconcile", "note", R"("a\u0085b")", 422, v, "note");
    row("C1 CSI in a reference", "propose", "client_reference", R"("\u009b2J")", 422, v, "client_reference");
    row("raw C1 bytes in a note", "approve", "note", "\"a\xc2\x9b\"", 422, v, "note");
    row("line separator in a note", "approve", "note", R"("a\u2028b")", 422, v, "note");
    row("paragraph separator in a reference", "propose", "client_reference", R"("a\u2029b")", 422, v, "client_reference");
    row("bidi override in a note", "reject", "note", R"("\u202egnp.exe")", 422, v, "note");
    row("bidi isolate in a reference", "propose", "business_reference", R"("a\u2066b")", 422, v, "business_reference");
    row("zero-width space in a reference", "propose", "client_reference", R"("a\u200bb")", 422, v, "client_reference");
    row("BOM inside a reference", "propose", "client_reference", "\"\xef\xbb\xbfref\"", 422, v, "client_reference");
    // Unicode: where no field can be named, or the bytes are outside a string: 400.
    rawRow("leading BOM", "approve", "\xef\xbb\xbf{\"note\":\"ok\"}", 400, "malformed_json");
    row("raw NUL byte in a string", "approve", "note", QByteArray("\"a\0b\"", 5), 400, "malformed_json");
    row("raw control in a string", "propose", "client_reference", "\"a\x01\"", 400, "malformed_json");
    row("raw tab in a string", "reject", "note", "\"a\tb\"", 400, "malformed_json");
    row("raw newline in a string", "approve", "note", "\"a\nb\"", 400, "malformed_json");
    rawRow("invalid UTF-8 in a member name", "approve", "{\"not\xff\":\"ok\"}", 400, "malformed_json");
    rawRow("lone surrogate in a member name", "approve", R"({"n\ud800":"ok"})", 400, "malformed_json");
    rawRow("0xFF outside a string", "approve", "{\"note\":\"ok\"}\xff", 400, "malformed_json");

    // JSON syntax.
    rawRow("trailing comma", "approve", R"({"note":"ok",})", 400, "malformed_json");
    rawRow("single quotes", "approve", R"({'note':'ok'})", 400, "malformed_json");
    rawRow("a comment", "approve", R"({"note":"ok"/* hi */})", 400, "malformed_json");
    rawRow("two objects", "approve", R"({"note":"a"}{"note":"b"})", 400, "malformed_json");
    rawRow("unquoted name", "approve", R"({note:"ok"})", 400, "malformed_json");
    rawRow("bad escape", "approve", R"({"note":"\x41"})", 400, "malformed_json");
    rawRow("short unicode escape", "approve", R"({"note":"\u12"})", 400, "malformed_json");
    rawRow("form feed as whitespace", "approve", "{\f\"note\":\"ok\"}", 400, "malformed_json");
    rawRow("too deep", "approve", "{\"x\":" + QByteArray(100, '[') + QByteArray(100, ']') + "}", 400, "malformed_json");
    rawRow("a string, not an object", "approve", R"("note")", 400, "malformed_json");
    row("leading zero", "propose", "amount", "04000", 400, "malformed_json");
    row("NaN", "propose", "amount", "NaN", 400, "malformed_json");
    row("Infinity", "propose", "amount", "Infinity", 400, "malformed_json");
    row("plus sign", "propose", "amount", "+4000", 400, "malformed_json");
    row("hex", "propose", "amount", "0x0fa0", 400, "malformed_json");
    row("dot without digits", "propose", "amount", "4000.", 400, "malformed_json");

    // Finding 5: duplicate members, at any depth.
    const char *dup = "duplicate_member";
    rawRow("#5 amount twice", "propose",
           R"({"kind":"refund","target":{"charge":"ch_x1"},"amount":100,"currency":"usd","client_reference":"d1","amount":999999})",
           400, dup, "amount");
    rawRow("#5 target.charge twice", "propose",
           R"({"kind":"refund","target":{"charge":"ch_a1","charge":"ch_b2"},"amount":100,"currency":"usd","client_reference":"d2"})",
           400, dup, "target.charge");
    rawRow("#5 client_reference twice", "propose",
           R"({"kind":"refund","target":{"charge":"ch_x1"},"amount":100,"currency":"usd","client_reference":"a","client_reference":"b"})",
           400, dup, "client_reference");
    rawRow("duplicate through an escape", "propose",
           R"({"kind":"refund","target":{"charge":"ch_x1"},"amount":100,"\u0061mount":5,"currency":"usd","client_reference":"d3"})",
           400, dup, "amount");
    rawRow("duplicate in an unknown member", "approve", R"({"note":"ok","x":{"a":1,"a":2}})", 400, dup, "x.a");
    rawRow("duplicate inside an array", "approve", R"({"note":"ok","x":[{"a":1},{"b":1,"b":2}]})", 400, dup, "x[1].b");
    rawRow("note twice", "approve", R"({"note":"a","note":"b"})", 400, dup, "note");
    rawRow("reason twice", "reject", R"({"reason":"a","reason":"b"})", 400, dup, "reason");
    rawRow("outcome twice", "reconcile", R"({"outcome":"committed","outcome":"not_committed","evidence_lookup_seq":1,"note":"x"})",
           400, dup, "outcome");
    rawRow("desired_total_amount twice", "follow-up", R"({"desired_total_amount":5000,"note":"x","desired_total_amount":1})",
           400, dup, "desired_total_amount");
    rawRow("lookup body with a duplicate", "lookup", R"({"a":1,"a":1})", 400, dup, "a");

    // Finding 8 and the numbers behind it: an amount is a JSON integer literal, nothing else.
    row("#8 amount 1e309", "propose", "amount", "1e309", 422, v, "amount");
    row("#8 amount 1e2", "propose", "amount", "1e2", 422, v, "amount");
    row("#8 amount 100.0", "propose", "amount", "100.0", 422, v, "amount");
    row("amount -1e309", "propose", "amount", "-1e309", 422, v, "amount");
    row("amount 4000e0", "propose", "amount", "4000e0", 422, v, "amount");
    row("amount 1E3", "propose", "amount", "1E3", 422, v, "amount");
    row("amount 0.4e4", "propose", "amount", "0.4e4", 422, v, "amount");
    row("amount 2^63", "propose", "amount", "9223372036854775808", 422, v, "amount");
    row("amount -2^63-1", "propose", "amount", "-9223372036854775809", 422, v, "amount");
    row("amount 1e-400", "propose", "amount", "1e-400", 422, v, "amount");
    row("amount -0", "propose", "amount", "-0", 422, v, "amount");
    row("amount -0.0", "propose", "amount", "-0.0", 422, v, "amount");
    row("amount negative", "propose", "amount", "-4000", 422, v, "amount");
    row("amount as a string", "propose", "amount", R"("4000")", 422, v, "amount");
    row("amount true", "propose", "amount", "true", 422, v, "amount");
    row("desired total 5e3", "follow-up", "desired_total_amount", "5e3", 422, v, "desired_total_amount");
    row("desired total 1e309", "follow-up", "desired_total_amount", "1e309", 422, v, "desired_total_amount");
    row("desired total 5000.0", "follow-up", "desired_total_amount", "5000.0", 422, v, "desired_total_amount");
    row("evidence seq 1.0", "reconcile", "evidence_lookup_seq", "1.0", 422, v, "evidence_lookup_seq");
    row("evidence seq 2^63", "reconcile", "evidence_lookup_seq", "9223372036854775808", 422, v, "evidence_lookup_seq");

    // Authentication: exactly `Bearer <token>` (docs/API.md).
    authRow("no Authorization", {}, 401, "unauthenticated");
    authRow("Bearer alone", {"Bearer"}, 401, "unauthenticated");
    authRow("Bearer and a space", {"Bearer "}, 401, "unauthenticated");
    authRow("#8 Bearer, two spaces", {"Bearer  {token}"}, 401, "unauthenticated");
    authRow("Bearer, tab", {"Bearer\t{token}"}, 401, "unauthenticated");
    authRow("token without scheme", {"{token}"}, 401, "unauthenticated");
    authRow("Basic scheme", {"Basic {token}"}, 401, "unauthenticated");
    authRow("Bearer glued", {"Bearer{token}"}, 401, "unauthenticated");
    authRow("token then a word", {"Bearer {token} extra"}, 401, "unauthenticated");
    authRow("token and a comma", {"Bearer {token},"}, 401, "unauthenticated");
    authRow("token with a non-ASCII byte", {"Bearer {token}\xc3\xa9"}, 401, "unauthenticated");
    authRow("unknown token", {"Bearer cst_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}, 401, "unauthenticated");
    authRow("#7 two Authorization, same token", {"Bearer {token}", "Bearer {token}"}, 400, "invalid_parameter", "Authorization");
    authRow("two Authorization, token first", {"Bearer {token}", "Bearer cst_nope"}, 400, "invalid_parameter", "Authorization");
    authRow("two Authorization, token last", {"Bearer cst_nope", "Bearer {token}"}, 400, "invalid_parameter", "Authorization");
    authRow("two Authorization, one empty", {"", "Bearer {token}"}, 400, "invalid_parameter", "Authorization");

    // Other headers the API reads: once.
    headerRow("two If-Match", "approve", {"If-Match: \"1\""}, "If-Match");
    headerRow("two Idempotency-Keys", "approve", {"Idempotency-Key: a", "Idempotency-Key: b"}, "Idempotency-Key");
    headerRow("two Content-Types", "propose", {"Content-Type: application/json"}, "Content-Type");
}

void TestHostileInput::refused()
{
    QFETCH(QString, endpoint);
    QFETCH(QByteArray, member);
    QFETCH(QByteArray, value);
    QFETCH(QByteArray, raw);
    QFETCH(QList<QByteArray>, auth);
    QFETCH(QList<QByteArray>, extra);
    QFETCH(int, status);
    QFETCH(QString, code);
    QFETCH(QString, field);

    cs::Ledger &ledger = m_harness.ledger();
    const LedgerCounts before = ledgerCounts(ledger);
    const qint64 version = ledger.reader().action(m_target)->stateVersion;

    const RawReply reply = send(endpoint, m_target, member, value, raw, auth, extra);
    QVERIFY2(reply.status == status, QByteArray(reply.head + "\n\n" + reply.body).constData());
    QCOMPARE(reply.code(), code);
    QVERIFY2(reply.head.toLower().contains("content-type: application/problem+json"), reply.head.constData());
    if (!field.isEmpty())
        QVERIFY2(reply.fields().contains(field), reply.body.constData());

    QCOMPARE(ledgerCounts(ledger), before);
    QCOMPARE(ledger.reader().action(m_target)->stateVersion, version);
    verifyChain();
}

void TestHostileInput::accepted_data()
{
    columns();
    QTest::addColumn<QString>("stored"); // what the member reads back as

    const QList<QByteArray> bearer = {"Bearer {token}"};
    const auto row = [&](const char *name, const char *endpoint, const QByteArray &member, const QByteArray &value,
                         const QString &stored, const QList<QByteArray> &auth = {"Bearer {token}"}) {
        QTest::newRow(name) << QString::fromLatin1(endpoint) << member << value << QByteArray() << auth
                            << QList<QByteArray>() << stored;
    };
    row("escaped surrogate pair", "propose", "client_reference", R"("ok-\ud83d\ude00")", QStringLiteral("ok-\U0001F600"));
    row("raw astral UTF-8", "propose", "business_reference", "\"order \xf0\x9f\x93\xa6\"", QStringLiteral("order \U0001F4E6"));
    row("combining marks", "propose", "client_reference", "\"cafe\xcc\x81-1\"", QStringLiteral("cafe\u0301-1"));
    row("Hebrew", "propose", "business_reference", "\"\xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d\"", QStringLiteral("\u05E9\u05DC\u05D5\u05DD"));
    row("escaped Latin-1", "propose", "client_reference", R"("caf\u00e9-2")", QStringLiteral("caf\u00e9-2"));
    row("quotes and backslashes", "propose", "business_reference", R"("a\"b\\c/d")", QStringLiteral("a\"b\\c/d"));
    row("newline and tab in a note", "approve", "note", R"("line one\n\tline two")", QStringLiteral("line one\n\tline two"));
    row("emoji ZWJ sequence in a note", "approve", "note", R"("\ud83d\udc69\u200d\ud83d\udcbb ok")",
        QStringLiteral("\U0001F469\u200D\U0001F4BB ok"));
    row("LRM in a note", "reject", "note", R"("\u200eno")", QStringLiteral("\u200Eno"));
    row("U+FFFD itself", "reject", "note", R"("\ufffd")", QStringLiteral("\uFFFD"));
    row("lowercase scheme", "propose", "client_reference", R"("lower-scheme")", QStringLiteral("lower-scheme"),
        {"bearer {token}"});
    row("escaped slash", "approve", "note", R"("a\/b")", QStringLiteral("a/b"));
}

void TestHostileInput::accepted()
{
    QFETCH(QString, endpoint);
    QFETCH(QByteArray, member);
    QFETCH(QByteArray, value);
    QFETCH(QByteArray, raw);
    QFETCH(QList<QByteArray>, auth);
    QFETCH(QList<QByteArray>, extra);
    QFETCH(QString, stored);

    cs::Ledger &ledger = m_harness.ledger();
    const QString id = endpoint == u"propose" ? QString() : freshAction();
    const RawReply reply = send(endpoint, id, member, value, raw, auth, extra);
    QVERIFY2(reply.status == (endpoint == u"propose" ? 201 : 200), QByteArray(reply.head + "\n\n" + reply.body).constData());

    if (endpoint == u"propose") {
        const auto record = ledger.reader().action(reply.json.value(QStringLiteral("id")).toString());
        QVERIFY(record.ok());
        QCOMPARE(member == "client_reference" ? record->clientReference : record->businessReference, stored);
        // And the fingerprint survives storage: the action can be approved.
        QCOMPARE(m_client->approve(m_harness.token(QStringLiteral("ana")), record->id, "\"1\"").status, 200);
    } else {
        const auto approvals = ledger.reader().approvals(id);
        QVERIFY(approvals.ok());
        QCOMPARE(approvals->size(), 1);
        QCOMPARE(approvals->constFirst().note, stored);
    }
    verifyChain();
}

// A JSON string of `text` with every non-ASCII character as \uXXXX (surrogate pairs for astral).
static QByteArray escapedLiteral(const QString &text)
{
    QByteArray out = "\"";
    for (const QChar c : text) {
        if (c == u'"' || c == u'\\')
            out += '\\' + QByteArray(1, char(c.unicode()));
        else if (c.unicode() >= 0x20 && c.unicode() < 0x7F)
            out += char(c.unicode());
        else
            out += "\\u" + QByteArray::number(c.unicode(), 16).rightJustified(4, '0');
    }
    return out + '"';
}

// The property test's generator through the API (a subset of tst_audit_property): generated
// text the rules accept, sent raw UTF-8 or \u-escaped, is stored and read back exactly, the
// action stays approvable, and the chain verifies after every request.
void TestHostileInput::generatedTextThroughTheApi()
{
    QRandomGenerator random(20261202);
    cs::Ledger &ledger = m_harness.ledger();
    for (int round = 0; round < 24; ++round) {
        const QString reference = QStringLiteral("gen-%1-").arg(round) + cs::test::randomText(random, 240, false, false);
        const QString business = cs::test::randomText(random, 255, false, false);
        const QString note = cs::test::randomText(random, 2000, true, false);
        const bool escaped = round % 2 == 1;
        const auto literal = [&](const QString &text) {
            return escaped ? escapedLiteral(text)
                           : QJsonDocument(QJsonArray{text}).toJson(QJsonDocument::Compact).chopped(1).mid(1);
        };
        const RawReply proposed = send(QStringLiteral("propose"), QString(), QByteArray(), QByteArray(),
                                       object(with(with(endpoint(QStringLiteral("propose"), 0).body, "client_reference",
                                                        literal(reference)),
                                                   "business_reference", literal(business))),
                                       {"Bearer {token}"}, {});
        QVERIFY2(proposed.status == 201, proposed.body.constData());
        const QString id = proposed.json.value(QStringLiteral("id")).toString();
        const auto record = ledger.reader().action(id);
        QVERIFY(record.ok());
        QCOMPARE(record->clientReference, reference);
        QCOMPARE(record->businessReference, business);
        const RawReply approved = send(QStringLiteral("approve"), id, "note", literal(note), QByteArray(), {"Bearer {token}"}, {});
        QVERIFY2(approved.status == 200, approved.body.constData());
        QCOMPARE(ledger.reader().approvals(id)->constFirst().note, note);
        verifyChain();
        if (QTest::currentTestFailed())
            return;
    }
}

QTEST_GUILESS_MAIN(TestHostileInput)
#include "tst_hostile_input.moc"
