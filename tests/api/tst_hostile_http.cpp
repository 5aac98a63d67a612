// Hostile HTTP against a real countersignd, byte for byte over raw sockets (docs/SECURITY.md, "The
// HTTP layer"): request smuggling and framing leniency, oversized and slow requests, idle and
// capped connections, pipelining, and the TLS listener. Every row asserts the status, the problem
// code, whether the connection is closed, that the ledger is unchanged and that its audit chain
// verifies. The server runs with short timeouts (head 400 ms, idle 800 ms) so no row waits long.
#include "tests/api/apitestsupport.h"

#include <QJsonDocument>
#include <QProcess>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QSslSocket>
#include <QTcpSocket>
#include <QTest>

namespace {

constexpr int kHeadTimeoutMs = 400;
constexpr int kIdleTimeoutMs = 800;
constexpr int kPerAddress = 6;

struct RawAnswer
{
    int status = 0;
    QString code;
    QByteArray headers;
};

// Splits what the server sent into answers (each with a Content-Length body).
QList<RawAnswer> parseAnswers(const QByteArray &raw)
{
    QList<RawAnswer> answers;
    qsizetype at = 0;
    while (at < raw.size()) {
        const qsizetype end = raw.indexOf("\r\n\r\n", at);
        if (end < 0)
            break;
        const QByteArray head = raw.mid(at, end - at);
        RawAnswer answer;
        answer.headers = head;
        const QList<QByteArray> status = head.left(head.indexOf("\r\n")).split(' ');
        answer.status = status.size() > 1 ? status[1].toInt() : -1;
        qsizetype length = 0;
        for (const QByteArray &line : head.split('\n')) {
            if (line.toLower().startsWith("content-length:"))
                length = line.mid(15).trimmed().toLongLong();
        }
        const QByteArray body = raw.mid(end + 4, length);
        if (body.size() < length)
            break;
        answer.code = QJsonDocument::fromJson(body).object().value(QStringLiteral("code")).toString();
        answers.append(answer);
        at = end + 4 + length;
    }
    return answers;
}

// What one connection received: its answers, and whether the server closed it.
struct Exchange
{
    QByteArray raw;
    QList<RawAnswer> answers;
    bool closed = false;
    qint64 firstAnswerMs = -1; // after the call began
};

// Reads from socket until it is closed, `answers` answers arrived and the connection then stayed
// quiet for settleMs, or timeoutMs passed.
Exchange readFrom(QAbstractSocket &socket, int answers, int timeoutMs = 3000, int settleMs = 150)
{
    Exchange out;
    QElapsedTimer clock;
    clock.start();
    qint64 settledSince = -1;
    while (clock.elapsed() < timeoutMs) {
        if (socket.bytesAvailable() > 0 || socket.waitForReadyRead(20))
            out.raw += socket.readAll();
        if (out.firstAnswerMs < 0 && !parseAnswers(out.raw).isEmpty())
            out.firstAnswerMs = clock.elapsed();
        if (socket.state() != QAbstractSocket::ConnectedState) {
            out.raw += socket.readAll();
            out.closed = true;
            break;
        }
        if (parseAnswers(out.raw).size() >= answers && answers > 0) {
            if (settledSince < 0)
                settledSince = clock.elapsed();
            else if (clock.elapsed() - settledSince >= settleMs)
                break;
        }
    }
    out.answers = parseAnswers(out.raw);
    return out;
}

QByteArray proposalBody()
{
    return QJsonDocument(ApiClient::proposal(QStringLiteral("hostile-http-never"))).toJson(QJsonDocument::Compact);
}

bool runOpenssl(std::initializer_list<const char *> words, const QString &dir)
{
    QStringList arguments;
    for (const char *word : words)
        arguments << QString::fromLatin1(word);
    QProcess openssl;
    openssl.setWorkingDirectory(dir);
    openssl.start(QStringLiteral("openssl"), arguments);
    return openssl.waitForFinished(30000) && openssl.exitStatus() == QProcess::NormalExit && openssl.exitCode() == 0;
}

} // namespace

class TestHostileHttp : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    void framing_data();
    void framing();
    void bodyLineBreaksAreNotTheHead();
    void idleKeepAliveIsClosed();
    void perAddressCap();
    void pipelinedAnswersInOrder_data();
    void pipelinedAnswersInOrder();
    void eventStreamOutlivesIdleTimeout();
    void tlsListener();
    void nonLoopbackNeedsTlsOrInsecureListen();

private:
    QByteArray withToken(QByteArray request) const { return request.replace("@TOKEN@", m_agentToken); }
    std::unique_ptr<QTcpSocket> connectRaw();
    bool servesHealth(); // a new connection gets 200 for GET /health
    void expectLedgerIntact();

    ApiHarness m_harness;
    std::unique_ptr<ApiClient> m_client;
    QByteArray m_agentToken;
    LedgerCounts m_before;
};

void TestHostileHttp::initTestCase()
{
    ApiHarness::Options options;
    options.extraServeArguments = {QStringLiteral("--head-timeout-ms"), QString::number(kHeadTimeoutMs),
                                   QStringLiteral("--idle-timeout-ms"), QString::number(kIdleTimeoutMs),
                                   QStringLiteral("--max-connections-per-address"), QString::number(kPerAddress),
                                   QStringLiteral("--sse-heartbeat-ms"), QStringLiteral("5000")};
    QString error;
    QVERIFY2(m_harness.start(options, &error), qPrintable(error));
    m_client = std::make_unique<ApiClient>(m_harness.api());
    m_agentToken = m_harness.token(QStringLiteral("agent-7")).toLatin1();
    // One action, so the audit chain has rows to keep intact.
    const ApiReply created = m_client->propose(m_harness.token(QStringLiteral("agent-7")),
                                               ApiClient::proposal(QStringLiteral("hostile-http-seed")));
    QCOMPARE(created.status, 201);
    m_client.reset(); // its keep-alive connection would count against the per-address cap
}

void TestHostileHttp::init()
{
    m_before = ledgerCounts(m_harness.ledger());
    // The previous row's connections are gone on the server's side too.
    QTRY_VERIFY_WITH_TIMEOUT(servesHealth(), 3000);
}

void TestHostileHttp::cleanup()
{
    expectLedgerIntact();
}

void TestHostileHttp::expectLedgerIntact()
{
    QCOMPARE(ledgerCounts(m_harness.ledger()), m_before);
    const auto verified = m_harness.ledger().reader().verifyAudit();
    QVERIFY(verified.ok());
    QVERIFY(verified->ok);
}

std::unique_ptr<QTcpSocket> TestHostileHttp::connectRaw()
{
    auto socket = std::make_unique<QTcpSocket>();
    socket->connectToHost(QHostAddress::LocalHost, quint16(m_harness.api().port()));
    if (!socket->waitForConnected(2000))
        qWarning() << "cannot connect:" << socket->errorString();
    return socket;
}

bool TestHostileHttp::servesHealth()
{
    auto probe = connectRaw();
    probe->write("GET /api/v1/health HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
    const Exchange e = readFrom(*probe, 1, 1000, 0);
    return e.answers.size() == 1 && e.answers.first().status == 200;
}

void TestHostileHttp::framing_data()
{
    QTest::addColumn<QByteArray>("request"); // @TOKEN@ is agent-7's token
    QTest::addColumn<int>("status");         // 0: no answer at all
    QTest::addColumn<QString>("code");
    QTest::addColumn<bool>("closes");

    const QByteArray body = proposalBody();
    const QByteArray post = "POST /api/v1/actions HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer @TOKEN@\r\n"
                            "Content-Type: application/json\r\nIdempotency-Key: hostile-1\r\n";
    const QByteArray smuggled = "GET /api/v1/health HTTP/1.1\r\nHost: t\r\n\r\n";
    const QByteArray chunked = QByteArray::number(body.size(), 16) + "\r\n" + body + "\r\n0\r\n\r\n";

    QTest::newRow("CL + TE: 400, closed, the smuggled request not answered")
        << post + "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked + smuggled << 400
        << QStringLiteral("malformed_request") << true;
    QTest::newRow("TE + CL (either order): 400")
        << post + "Transfer-Encoding: chunked\r\nContent-Length: " + QByteArray::number(chunked.size()) + "\r\n\r\n" + chunked
        << 400 << QStringLiteral("malformed_request") << true;
    QTest::newRow("Transfer-Encoding alone: 411") << post + "Transfer-Encoding: chunked\r\n\r\n" + chunked << 411
                                                  << QStringLiteral("length_required") << true;
    QTest::newRow("duplicate Content-Length: 400")
        << post + "Content-Length: " + QByteArray::number(body.size()) + "\r\nContent-Length: "
               + QByteArray::number(body.size()) + "\r\n\r\n" + body
        << 400 << QStringLiteral("malformed_request") << true;
    QTest::newRow("Content-Length list: 400")
        << post + "Content-Length: " + QByteArray::number(body.size()) + ", " + QByteArray::number(body.size()) + "\r\n\r\n" + body
        << 400 << QStringLiteral("malformed_request") << true;
    QTest::newRow("signed Content-Length: 400") << post + "Content-Length: +" + QByteArray::number(body.size()) + "\r\n\r\n" + body
                                                << 400 << QStringLiteral("malformed_request") << true;
    QTest::newRow("HTTP/9.9: 505") << QByteArray("GET /api/v1/health HTTP/9.9\r\nHost: t\r\n\r\n") << 505
                                   << QStringLiteral("http_version_not_supported") << true;
    QTest::newRow("HTTP/2.0 in a request line: 505") << QByteArray("GET /api/v1/health HTTP/2.0\r\nHost: t\r\n\r\n") << 505
                                                     << QStringLiteral("http_version_not_supported") << true;
    QTest::newRow("not HTTP at all: 400") << QByteArray("GET /api/v1/health SPDY/3\r\nHost: t\r\n\r\n") << 400
                                          << QStringLiteral("malformed_request") << true;
    QTest::newRow("two-part request line: 400") << QByteArray("GET /api/v1/health\r\nHost: t\r\n\r\n") << 400
                                                << QStringLiteral("malformed_request") << true;
    QTest::newRow("bare LF line ends: 400") << QByteArray("GET /api/v1/health HTTP/1.1\nHost: t\n\n") << 400
                                            << QStringLiteral("malformed_request") << true;
    QTest::newRow("bare LF inside a CRLF head: 400")
        << QByteArray("GET /api/v1/health HTTP/1.1\r\nHost: t\nX-A: b\r\n\r\n") << 400 << QStringLiteral("malformed_request") << true;
    QTest::newRow("obsolete line folding: 400") << QByteArray("GET /api/v1/health HTTP/1.1\r\nHost: t\r\n folded\r\n\r\n")
                                                << 400 << QStringLiteral("malformed_request") << true;
    QTest::newRow("space before the colon: 400")
        << QByteArray("POST /api/v1/actions HTTP/1.1\r\nHost: t\r\nContent-Length : 5\r\n\r\nhello") << 400
        << QStringLiteral("malformed_request") << true;
    QTest::newRow("HTTP/1.0: answered, then closed") << QByteArray("GET /api/v1/health HTTP/1.0\r\n\r\n") << 200 << QString()
                                                     << true;
    QTest::newRow("HTTP/1.0 keep-alive: stays open")
        << QByteArray("GET /api/v1/health HTTP/1.0\r\nConnection: keep-alive\r\n\r\n") << 200 << QString() << false;
    QTest::newRow("Connection: close: answered, then closed")
        << QByteArray("GET /api/v1/health HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n") << 200 << QString() << true;
    QTest::newRow("HTTP/1.1: stays open") << QByteArray("GET /api/v1/health HTTP/1.1\r\nHost: t\r\n\r\n") << 200 << QString()
                                          << false;
    QTest::newRow("Connection: close after a smuggled-looking body is not read")
        << post + "Content-Length: 1\r\nConnection: close\r\n\r\n{" + smuggled << 400 << QStringLiteral("malformed_json")
        << true;
    QTest::newRow("head over 16 KiB: 431")
        << QByteArray("GET /api/v1/health HTTP/1.1\r\nHost: t\r\nX-Pad: ") + QByteArray(20000, 'a') + "\r\n\r\n" << 431
        << QStringLiteral("header_too_large") << true;
    QTest::newRow("100 KiB of unterminated head: 431")
        << QByteArray("GET /api/v1/health HTTP/1.1\r\nX-Pad: ") + QByteArray(100 * 1024, 'a') << 431
        << QStringLiteral("header_too_large") << true;
    QTest::newRow("Content-Length 300 MB: 413 before any body byte")
        << post + "Content-Length: 314572800\r\n\r\n" << 413 << QStringLiteral("payload_too_large") << true;
    QTest::newRow("Content-Length 300 MB without a token: 413 before any body byte")
        << QByteArray("POST /api/v1/actions HTTP/1.1\r\nHost: t\r\nContent-Length: 314572800\r\n\r\n") << 413
        << QStringLiteral("payload_too_large") << true;
    QTest::newRow("slow head: 408") << QByteArray("GET /api/v1/health HTTP/1.1\r\nHost: t\r\n") << 408
                                    << QStringLiteral("request_timeout") << true;
    QTest::newRow("nothing sent: 408") << QByteArray() << 408 << QStringLiteral("request_timeout") << true;
    QTest::newRow("slow body: 408") << post + "Content-Length: 100\r\n\r\n{\"kind\"" << 408
                                    << QStringLiteral("request_timeout") << true;
}

void TestHostileHttp::framing()
{
    QFETCH(QByteArray, request);
    QFETCH(int, status);
    QFETCH(QString, code);
    QFETCH(bool, closes);

    auto socket = connectRaw();
    socket->write(withToken(request));
    const Exchange e = readFrom(*socket, 1, 3000, closes ? 3000 : 150); // a refusal lingers 500 ms, then closes
    QCOMPARE(e.answers.size(), 1); // never a second answer: nothing smuggled is served
    QCOMPARE(e.answers.first().status, status);
    QCOMPARE(e.answers.first().code, code);
    QCOMPARE(e.closed, closes);
    QCOMPARE(e.answers.first().headers.toLower().contains("connection: close"), closes);
    if (status == 413 || status == 431)
        QVERIFY2(e.firstAnswerMs >= 0 && e.firstAnswerMs < kHeadTimeoutMs, "refused from the head, not after a timeout");
}

// Line breaks after the head's blank line belong to the body: a pretty-printed JSON proposal, sent
// in one write with its head, is framed by Content-Length and accepted — the guard's bare-LF rule
// is for the head alone (it once scanned the body bytes that arrived with the head, too).
void TestHostileHttp::bodyLineBreaksAreNotTheHead()
{
    const QByteArray pretty =
        QJsonDocument(ApiClient::proposal(QStringLiteral("hostile-http-pretty"))).toJson(QJsonDocument::Indented);
    QVERIFY(pretty.count('\n') > 3);
    auto socket = connectRaw();
    socket->write(withToken("POST /api/v1/actions HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer @TOKEN@\r\n"
                            "Content-Type: application/json\r\nContent-Length: "
                            + QByteArray::number(pretty.size()) + "\r\n\r\n" + pretty));
    const Exchange e = readFrom(*socket, 1, 3000, 150);
    QCOMPARE(e.answers.size(), 1);
    QCOMPARE(e.answers.first().status, 201);
    QVERIFY(!e.closed);
    // One action more, and nothing else: the cleanup then checks the chain against this.
    const auto after = ledgerCounts(m_harness.ledger());
    QCOMPARE(after.actions, m_before.actions + 1);
    m_before = after;
}

void TestHostileHttp::idleKeepAliveIsClosed()
{
    auto socket = connectRaw();
    socket->write("GET /api/v1/health HTTP/1.1\r\nHost: t\r\n\r\n");
    const Exchange first = readFrom(*socket, 1, 2000, 0);
    QCOMPARE(first.answers.size(), 1);
    QCOMPARE(first.answers.first().status, 200);
    QVERIFY(!first.closed);
    QElapsedTimer clock;
    clock.start();
    const Exchange idle = readFrom(*socket, 0, 4 * kIdleTimeoutMs);
    QVERIFY2(idle.closed, "an idle keep-alive connection must be closed");
    QVERIFY(idle.raw.isEmpty()); // closed without an answer: there was no request
    QVERIFY2(clock.elapsed() >= kIdleTimeoutMs / 2, "not closed before the idle timeout");
}

void TestHostileHttp::perAddressCap()
{
    std::vector<std::unique_ptr<QTcpSocket>> open;
    for (int i = 0; i < kPerAddress; ++i) {
        open.push_back(connectRaw());
        open.back()->write("GET /api/v1/health HTTP/1.1\r\nHost: t\r\n\r\n");
        const Exchange e = readFrom(*open.back(), 1, 2000, 0);
        QCOMPARE(e.answers.size(), 1);
        QCOMPARE(e.answers.first().status, 200);
    }
    auto refused = connectRaw();
    refused->write("GET /api/v1/health HTTP/1.1\r\nHost: t\r\n\r\n");
    const Exchange e = readFrom(*refused, 1, 2000, 2000);
    QCOMPARE(e.answers.size(), 1);
    QCOMPARE(e.answers.first().status, 503);
    QCOMPARE(e.answers.first().code, QStringLiteral("too_many_connections"));
    QVERIFY(e.closed);
    // One closes: a new connection is served again.
    open.front()->disconnectFromHost();
    open.erase(open.begin());
    QTRY_VERIFY_WITH_TIMEOUT(servesHealth(), 3000);
}

void TestHostileHttp::pipelinedAnswersInOrder_data()
{
    QTest::addColumn<QByteArray>("requests");
    QTest::addColumn<QList<int>>("statuses");
    QTest::addColumn<bool>("closes");

    const QByteArray health = "GET /api/v1/health HTTP/1.1\r\nHost: t\r\n\r\n";
    QTest::newRow("three in one write, the last with Connection: close")
        << health + "GET /api/v1/nowhere HTTP/1.1\r\nHost: t\r\n\r\n"
               + "GET /api/v1/health HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"
        << QList<int>{200, 404, 200} << true;
    QTest::newRow("two, then an unauthenticated one, kept open")
        << health + health + "GET /api/v1/actions HTTP/1.1\r\nHost: t\r\n\r\n" << QList<int>{200, 200, 401} << false;
    QTest::newRow("a bad version behind a good request: answered after it")
        << health + "GET /api/v1/health HTTP/9.9\r\nHost: t\r\n\r\n" + health << QList<int>{200, 505} << true;
    QTest::newRow("requests after Connection: close are not served")
        << "GET /api/v1/health HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n" + health << QList<int>{200} << true;
}

void TestHostileHttp::pipelinedAnswersInOrder()
{
    QFETCH(QByteArray, requests);
    QFETCH(QList<int>, statuses);
    QFETCH(bool, closes);

    auto socket = connectRaw();
    socket->write(requests);
    const Exchange e = readFrom(*socket, int(statuses.size()), 3000, closes ? 3000 : 150);
    QList<int> got;
    for (const RawAnswer &a : e.answers)
        got << a.status;
    QCOMPARE(got, statuses);
    QCOMPARE(e.closed, closes);
}

void TestHostileHttp::eventStreamOutlivesIdleTimeout()
{
    auto socket = connectRaw();
    socket->write("GET /api/v1/events HTTP/1.1\r\nHost: t\r\nAccept: text/event-stream\r\nAuthorization: Bearer " + m_agentToken
                  + "\r\n\r\n");
    const Exchange e = readFrom(*socket, 0, 3 * kIdleTimeoutMs);
    QVERIFY2(e.raw.startsWith("HTTP/1.1 200"), e.raw.left(200).constData());
    QVERIFY2(!e.closed, "an event stream is long-lived: the idle timeout must not end it");
    // A request sent on the stream's connection is not served in the middle of the stream.
    socket->write("GET /api/v1/health HTTP/1.1\r\nHost: t\r\n\r\n");
    const Exchange more = readFrom(*socket, 0, 500);
    QVERIFY(!more.raw.contains("HTTP/1.1 200"));
    QVERIFY(!more.closed);
}

void TestHostileHttp::tlsListener()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString d = dir.path();
    QFile ext(dir.filePath(QStringLiteral("server.ext")));
    QVERIFY(ext.open(QIODevice::WriteOnly));
    ext.write("subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n");
    ext.close();
    const char *ec = "ec_paramgen_curve:prime256v1";
    QVERIFY(runOpenssl({"req", "-x509", "-newkey", "ec", "-pkeyopt", ec, "-nodes", "-keyout", "ca.key", "-out", "ca.pem",
                        "-days", "2", "-subj", "/CN=countersign test CA"},
                       d));
    QVERIFY(runOpenssl({"req", "-newkey", "ec", "-pkeyopt", ec, "-nodes", "-keyout", "server.key", "-out", "server.csr",
                        "-subj", "/CN=127.0.0.1"},
                       d));
    QVERIFY(runOpenssl({"x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out",
                        "server.pem", "-days", "2", "-extfile", "server.ext"},
                       d));

    ApiHarness tls;
    ApiHarness::Options options;
    options.extraServeArguments = {QStringLiteral("--tls-cert"), dir.filePath(QStringLiteral("server.pem")),
                                   QStringLiteral("--tls-key"), dir.filePath(QStringLiteral("server.key")),
                                   QStringLiteral("--head-timeout-ms"), QString::number(kHeadTimeoutMs)};
    QString error;
    QVERIFY2(tls.start(options, &error), qPrintable(error));
    const QUrl url = tls.countersignd().url();
    QCOMPARE(url.scheme(), QStringLiteral("https"));
    QCOMPARE(url.host(), QStringLiteral("127.0.0.1"));
    const QList<QSslCertificate> ca = QSslCertificate::fromPath(dir.filePath(QStringLiteral("ca.pem")));
    QCOMPARE(ca.size(), 1);

    const auto connectTls = [&](bool withCa) {
        auto socket = std::make_unique<QSslSocket>();
        QSslConfiguration configuration = QSslConfiguration::defaultConfiguration();
        configuration.setCaCertificates(withCa ? ca : QList<QSslCertificate>());
        socket->setSslConfiguration(configuration);
        socket->connectToHostEncrypted(QStringLiteral("127.0.0.1"), quint16(url.port()));
        return socket;
    };
    {
        auto socket = connectTls(true);
        QVERIFY2(socket->waitForEncrypted(5000), qPrintable(socket->errorString()));
        QVERIFY(socket->sessionProtocol() == QSsl::TlsV1_2 || socket->sessionProtocol() == QSsl::TlsV1_3);
        socket->write("GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        const Exchange e = readFrom(*socket, 1, 3000, 0);
        QCOMPARE(e.answers.size(), 1);
        QCOMPARE(e.answers.first().status, 200);
    }
    {
        auto socket = connectTls(false); // no CA: the certificate is not trusted
        QVERIFY(!socket->waitForEncrypted(5000));
        QVERIFY(!socket->sslHandshakeErrors().isEmpty());
    }
    {
        // The guard works on the decrypted bytes: an oversized head over TLS is 431.
        auto socket = connectTls(true);
        QVERIFY2(socket->waitForEncrypted(5000), qPrintable(socket->errorString()));
        socket->write("GET /api/v1/health HTTP/1.1\r\nHost: t\r\nX-Pad: " + QByteArray(20000, 'a') + "\r\n\r\n");
        const Exchange e = readFrom(*socket, 1, 3000, 3000);
        QCOMPARE(e.answers.size(), 1);
        QCOMPARE(e.answers.first().status, 431);
        QCOMPARE(e.answers.first().code, QStringLiteral("header_too_large"));
        QVERIFY(e.closed);
    }
    {
        // Plain HTTP to the TLS port: no answer, the connection closed, the service unharmed.
        QTcpSocket plain;
        plain.connectToHost(QHostAddress::LocalHost, quint16(url.port()));
        QVERIFY(plain.waitForConnected(2000));
        plain.write("GET /api/v1/health HTTP/1.1\r\nHost: t\r\n\r\n");
        const Exchange e = readFrom(plain, 0, 5000);
        QVERIFY(e.closed);
        QVERIFY(!e.raw.contains("HTTP/1.1 200"));
        auto socket = connectTls(true);
        QVERIFY2(socket->waitForEncrypted(5000), qPrintable(socket->errorString()));
    }
    QVERIFY(tls.countersignd().stop());
}

void TestHostileHttp::nonLoopbackNeedsTlsOrInsecureListen()
{
    for (const QString &listen : {QStringLiteral("0.0.0.0:0"), QStringLiteral("[::]:0")}) {
        ApiHarness refused;
        ApiHarness::Options options;
        options.extraServeArguments = {QStringLiteral("--listen"), listen};
        QString error;
        QVERIFY(!refused.start(options, &error));
        refused.countersignd().process().waitForFinished(5000);
        QVERIFY2(error.contains(QStringLiteral("is not a loopback address")), qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("--insecure-listen")), qPrintable(error));
        QCOMPARE(refused.countersignd().process().exitCode(), 2);
    }
    ApiHarness insecure;
    ApiHarness::Options options;
    options.extraServeArguments = {QStringLiteral("--listen"), QStringLiteral("0.0.0.0:0"), QStringLiteral("--insecure-listen")};
    QString error;
    QVERIFY2(insecure.start(options, &error), qPrintable(error));
    const QUrl url = insecure.countersignd().url();
    QCOMPARE(url.scheme(), QStringLiteral("http"));
    QCOMPARE(url.host(), QStringLiteral("0.0.0.0")); // what it listens on, not 127.0.0.1
    QTcpSocket socket;
    socket.connectToHost(QHostAddress::LocalHost, quint16(url.port()));
    QVERIFY(socket.waitForConnected(2000));
    socket.write("GET /api/v1/health HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
    const Exchange e = readFrom(socket, 1, 3000, 3000);
    QCOMPARE(e.answers.size(), 1);
    QCOMPARE(e.answers.first().status, 200);
    QTRY_VERIFY(insecure.countersignd().standardError().contains("plain HTTP"));
}

QTEST_GUILESS_MAIN(TestHostileHttp)
#include "tst_hostile_http.moc"
