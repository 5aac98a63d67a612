// Tokens with a life cycle and failed-authentication throttling through the real thing:
// countersignd's `user` subcommands on the ledger file and its HTTP API on 127.0.0.1 (issue 12,
// "Tokens with a life cycle"; the provider URL rule at startup, "TLS").
#include "apitestsupport.h"

#include "server/api/userstore.h"
#include "tests/support/testledger.h"

#include "models/actionrecord.h"

#include <QProcess>
#include <QRegularExpression>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

namespace {

struct Run
{
    int exitCode = -1;
    QString out;
    QString err;
};

Run countersignd(const QStringList &arguments)
{
    QProcess p;
    p.start(ApiHarness::countersigndBinary(), arguments);
    Run run;
    if (!p.waitForFinished(15000)) {
        p.kill();
        p.waitForFinished();
        return run;
    }
    run.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    run.out = QString::fromUtf8(p.readAllStandardOutput());
    run.err = QString::fromUtf8(p.readAllStandardError());
    return run;
}

QString lastWord(const QString &text)
{
    return text.simplified().split(u' ').constLast();
}

// The status of GET /api/v1/me sent from `source` (any 127/8 address reaches a 127.0.0.1 listener).
int statusFrom(const QHostAddress &source, const QUrl &api, const QString &token)
{
    QTcpSocket socket;
    if (!socket.bind(source))
        return -1;
    socket.connectToHost(QHostAddress::LocalHost, quint16(api.port()));
    if (!socket.waitForConnected(5000))
        return -2;
    socket.write("GET /api/v1/me HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + token.toLatin1() + "\r\n\r\n");
    QByteArray head;
    while (!head.contains("\r\n") && socket.waitForReadyRead(5000))
        head += socket.readAll();
    const QList<QByteArray> parts = head.left(head.indexOf("\r\n")).split(' ');
    return parts.size() >= 2 ? parts.at(1).toInt() : -3;
}

} // namespace

class TestApiTokens : public QObject
{
    Q_OBJECT

    ApiHarness m_harness;
    std::unique_ptr<ApiClient> m_client;

    QStringList db() const { return {QStringLiteral("--db"), m_harness.dbPath()}; }

    QString listLine(const QString &name)
    {
        const Run list = countersignd(QStringList{QStringLiteral("user"), QStringLiteral("list")} + db());
        for (const QString &line : list.out.split(u'\n'))
            if (line.startsWith(name + u' '))
                return line;
        return QString();
    }

private slots:
    void initTestCase()
    {
        QString error;
        QVERIFY2(m_harness.start(&error), qPrintable(error));
        m_client = std::make_unique<ApiClient>(m_harness.api());
    }

    void cleanupTestCase() { QVERIFY(m_harness.countersignd().stop()); }

    void listShowsTheLifeCycle()
    {
        QCOMPARE(m_client->get(QStringLiteral("/me"), m_harness.token(QStringLiteral("sam"))).status, 200);
        const Run list = countersignd(QStringList{QStringLiteral("user"), QStringLiteral("list")} + db());
        QCOMPARE(list.exitCode, 0);
        QCOMPARE(list.out.section(u'\n', 0, 0), QStringLiteral("NAME ROLE STATE CREATED TOKEN_CREATED EXPIRES LAST_USED"));
        const QStringList sam = listLine(QStringLiteral("sam")).split(u' ');
        QCOMPARE(sam.size(), 7);
        QCOMPARE(sam.at(1), QStringLiteral("supervisor"));
        QCOMPARE(sam.at(2), QStringLiteral("active"));
        QCOMPARE(sam.at(5), QStringLiteral("-"));   // never expires
        QVERIFY(sam.at(6) != u"-");                 // used just now
        QCOMPARE(listLine(QStringLiteral("bob")).split(u' ').value(6), QStringLiteral("-")); // never used
    }

    void addWithExpiry()
    {
        const Run added = countersignd(QStringList{QStringLiteral("user"), QStringLiteral("add"), QStringLiteral("tmp-1"),
                                                   QStringLiteral("--role"), QStringLiteral("auditor"),
                                                   QStringLiteral("--expires"), QStringLiteral("30d")} + db());
        QCOMPARE(added.exitCode, 0);
        const QString token = lastWord(added.out);
        QVERIFY2(QRegularExpression(cs::UserStore::tokenPattern()).match(token).hasMatch(), qPrintable(added.out));
        QVERIFY(added.out.contains(QLatin1String("expires ")));
        const QDateTime expires = cs::timeFromWire(listLine(QStringLiteral("tmp-1")).split(u' ').value(5));
        QVERIFY(qAbs(expires.secsTo(QDateTime::currentDateTimeUtc().addDays(30))) < 120);
        QCOMPARE(m_client->get(QStringLiteral("/me"), token).status, 200);
    }

    void badExpiryIsRefused_data()
    {
        QTest::addColumn<QString>("expires");
        QTest::addColumn<int>("exitCode");
        QTest::newRow("words") << QStringLiteral("tomorrow") << 2;
        QTest::newRow("zero days") << QStringLiteral("0d") << 2;
        QTest::newRow("no offset") << QStringLiteral("2030-01-01T10:00:00") << 2;
        QTest::newRow("past date") << QStringLiteral("2020-01-01") << 1;
    }

    void badExpiryIsRefused()
    {
        QFETCH(QString, expires);
        QFETCH(int, exitCode);
        const Run added = countersignd(QStringList{QStringLiteral("user"), QStringLiteral("add"), QStringLiteral("tmp-2"),
                                                   QStringLiteral("--role"), QStringLiteral("auditor"),
                                                   QStringLiteral("--expires"), expires} + db());
        QCOMPARE(added.exitCode, exitCode);
        QVERIFY(!added.err.isEmpty());
        QVERIFY(listLine(QStringLiteral("tmp-2")).isEmpty());
    }

    void rotationRetiresTheOldToken()
    {
        const QString old = m_harness.token(QStringLiteral("aud"));
        QCOMPARE(m_client->get(QStringLiteral("/me"), old).status, 200);
        const Run rotated = countersignd(
            QStringList{QStringLiteral("user"), QStringLiteral("token"), QStringLiteral("rotate"), QStringLiteral("aud")} + db());
        QCOMPARE(rotated.exitCode, 0);
        const QString fresh = lastWord(rotated.out);
        QVERIFY(fresh.startsWith(QLatin1String("cst_")));
        const ApiReply refused = m_client->get(QStringLiteral("/me"), old);
        QCOMPARE(refused.status, 401);
        QCOMPARE(refused.code(), QStringLiteral("unauthenticated")); // an old token is simply unknown
        const ApiReply me = m_client->get(QStringLiteral("/me"), fresh);
        QCOMPARE(me.status, 200);
        QCOMPARE(me.json.value(QStringLiteral("user")).toString(), QStringLiteral("aud"));
        QCOMPARE(countersignd(QStringList{QStringLiteral("user"), QStringLiteral("token"), QStringLiteral("rotate"),
                                          QStringLiteral("nobody")} + db()).exitCode, 1);
    }

    void disabledUserIsRefused()
    {
        const QString token = m_harness.token(QStringLiteral("bob"));
        QCOMPARE(countersignd(QStringList{QStringLiteral("user"), QStringLiteral("disable"), QStringLiteral("bob")} + db())
                     .exitCode, 0);
        const ApiReply refused = m_client->get(QStringLiteral("/me"), token);
        QCOMPARE(refused.status, 401);
        QCOMPARE(refused.code(), QStringLiteral("token_disabled"));
        QVERIFY(refused.header("WWW-Authenticate").contains("invalid_token"));
        QCOMPARE(listLine(QStringLiteral("bob")).split(u' ').value(2), QStringLiteral("disabled"));
        QCOMPARE(countersignd(QStringList{QStringLiteral("user"), QStringLiteral("enable"), QStringLiteral("bob")} + db())
                     .exitCode, 0);
        QCOMPARE(m_client->get(QStringLiteral("/me"), token).status, 200);
    }

    // An expired token (planted with a store whose clock runs two hours behind) → token_expired.
    void expiredTokenIsRefused()
    {
        cs::UserStore behind(&m_harness.ledger().database(),
                             [] { return QDateTime::currentDateTimeUtc().addSecs(-7200); });
        const auto token = behind.addUser(QStringLiteral("tmp-3"), cs::Role::Auditor,
                                          cs::UserStore::Expiry{true, QDateTime::currentDateTimeUtc().addSecs(-3600)});
        QVERIFY(token.ok());
        const ApiReply refused = m_client->get(QStringLiteral("/me"), *token);
        QCOMPARE(refused.status, 401);
        QCOMPARE(refused.code(), QStringLiteral("token_expired"));
        QCOMPARE(listLine(QStringLiteral("tmp-3")).split(u' ').value(2), QStringLiteral("expired"));
        QVERIFY(m_harness.ledger().reader().verifyAudit()->ok);
    }

    // After 20 refused tokens from one address: 429 with Retry-After for that address (even with
    // a good token), others and the token-less health check unaffected.
    void failedAuthenticationIsThrottled()
    {
        ApiHarness fresh;
        QString error;
        QVERIFY2(fresh.start(&error), qPrintable(error));
        ApiClient client(fresh.api());
        const QHostAddress attacker(QStringLiteral("127.0.0.2"));
        for (int i = 0; i < 20; ++i)
            QCOMPARE(statusFrom(attacker, fresh.api(), cs::UserStore::newToken()), 401);
        QCOMPARE(statusFrom(attacker, fresh.api(), cs::UserStore::newToken()), 429);
        QCOMPARE(statusFrom(attacker, fresh.api(), fresh.token(QStringLiteral("sam"))), 429); // a right guess too
        QCOMPARE(statusFrom(QHostAddress(QStringLiteral("127.0.0.3")), fresh.api(), fresh.token(QStringLiteral("sam"))),
                 200);
        QCOMPARE(client.get(QStringLiteral("/health"), QString()).status, 200);
        // The answer itself, through the ordinary client (127.0.0.1) once it is throttled too.
        for (int i = 0; i < 20; ++i)
            QCOMPARE(client.get(QStringLiteral("/me"), QStringLiteral("cst_wrong")).status, 401);
        const ApiReply throttled = client.get(QStringLiteral("/me"), fresh.token(QStringLiteral("sam")));
        QCOMPARE(throttled.status, 429);
        QCOMPARE(throttled.code(), QStringLiteral("too_many_auth_failures"));
        const int retryAfter = throttled.header("Retry-After").toInt();
        QVERIFY2(retryAfter >= 1 && retryAfter <= 60, throttled.header("Retry-After").constData());
        QCOMPARE(throttled.header("Content-Type"), QByteArray("application/problem+json"));
        QCOMPARE(client.get(QStringLiteral("/health"), QString()).status, 200);
        QVERIFY(fresh.countersignd().stop());
    }

    // serve --auth-failure-limit N: the (N+1)th refused token from an address gets 429.
    void failureLimitIsConfigurable()
    {
        ApiHarness fresh;
        ApiHarness::Options options;
        options.extraServeArguments = {QStringLiteral("--auth-failure-limit"), QStringLiteral("3")};
        QString error;
        QVERIFY2(fresh.start(options, &error), qPrintable(error));
        ApiClient client(fresh.api());
        for (int i = 0; i < 3; ++i)
            QCOMPARE(client.get(QStringLiteral("/me"), QStringLiteral("cst_wrong")).status, 401);
        QCOMPARE(client.get(QStringLiteral("/me"), QStringLiteral("cst_wrong")).status, 429);
        QVERIFY(fresh.countersignd().stop());
        const Run refused = countersignd({QStringLiteral("serve"), QStringLiteral("--db"), fresh.dbPath(),
                                          QStringLiteral("--auth-failure-limit"), QStringLiteral("0")});
        QCOMPARE(refused.exitCode, 2);
        QVERIFY(refused.err.contains(QLatin1String("--auth-failure-limit")));
    }

    // Issue 12 #6: the secret key must not go out in clear text to a remote provider.
    void plainHttpProviderIsRefusedAtStartup_data()
    {
        QTest::addColumn<QString>("url");
        QTest::newRow("lan address") << QStringLiteral("http://10.0.0.5:8080");
        QTest::newRow("host name") << QStringLiteral("http://example.com");
    }

    void plainHttpProviderIsRefusedAtStartup()
    {
        QFETCH(QString, url);
        QTemporaryDir dir;
        const QString key = dir.filePath(QStringLiteral("key"));
        QFile file(key);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("sk_test_x\n");
        file.close();
        const Run serve = countersignd({QStringLiteral("serve"), QStringLiteral("--db"), cs::test::ledgerLocation(dir.filePath(QStringLiteral("l.db"))),
                                        QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0"), QStringLiteral("--provider"),
                                        QStringLiteral("stripe"), QStringLiteral("--provider-url"), url,
                                        QStringLiteral("--provider-key-file"), key});
        QCOMPARE(serve.exitCode, 2);
        QVERIFY2(serve.err.contains(QLatin1String("clear text")), qPrintable(serve.err));
        QVERIFY(serve.out.isEmpty()); // never listened
    }
};

QTEST_GUILESS_MAIN(TestApiTokens)
#include "tst_api_tokens.moc"
