// The DNS rebinding defence of /mcp without a network: which Host and Origin values
// HttpTransport takes for loopback ones, and the Host check of a loopback listener with its listen
// address and --mcp-allow-host names. A wrong "yes" here lets a web page whose name was rebound
// to a loopback address drive an agent's session. Exactly localhost, 127.0.0.1 and [::1]
// (docs/SECURITY.md): 127.0.0.2 is loopback too, but not a name this server answers to unless it
// listens there or is told to. The end-to-end refusals are in tests/node/mcp_http.mjs and
// tst_mcpwait.
#include "server/mcp/httptransport.h"

#include <QtTest>

using namespace cs;

class TestMcpHttp : public QObject
{
    Q_OBJECT
private slots:
    void loopbackHost_data();
    void loopbackHost();
    void loopbackOrigin_data();
    void loopbackOrigin();
    void hostAllowed_data();
    void hostAllowed();
};

void TestMcpHttp::loopbackHost_data()
{
    QTest::addColumn<QByteArray>("host");
    QTest::addColumn<bool>("loopback");
    QTest::newRow("localhost") << QByteArray("localhost") << true;
    QTest::newRow("localhost:port") << QByteArray("localhost:8470") << true;
    QTest::newRow("LocalHost") << QByteArray("LocalHost:8470") << true;
    QTest::newRow("127.0.0.1:port") << QByteArray("127.0.0.1:8470") << true;
    QTest::newRow("127.0.0.1") << QByteArray("127.0.0.1") << true;
    QTest::newRow("127.0.0.2 (loopback, not a name of ours)") << QByteArray("127.0.0.2") << false;
    QTest::newRow("127.0.0.2:port") << QByteArray("127.0.0.2:8470") << false;
    QTest::newRow("127.8.9.10") << QByteArray("127.8.9.10") << false;
    QTest::newRow("127.1 (short form)") << QByteArray("127.1:8470") << false;
    QTest::newRow("[::1] spelled out") << QByteArray("[0:0:0:0:0:0:0:1]:8470") << false;
    QTest::newRow("[::ffff:127.0.0.1]") << QByteArray("[::ffff:127.0.0.1]:8470") << false;
    QTest::newRow("[::1]:port") << QByteArray("[::1]:8470") << true;
    QTest::newRow("[::1]") << QByteArray("[::1]") << true;
    QTest::newRow("empty") << QByteArray() << false;
    QTest::newRow("rebound name") << QByteArray("attacker.example:8470") << false;
    QTest::newRow("localhost as a label") << QByteArray("localhost.attacker.example") << false;
    QTest::newRow("127.0.0.1 as a label") << QByteArray("127.0.0.1.nip.io:8470") << false;
    QTest::newRow("public address") << QByteArray("192.0.2.7:8470") << false;
    QTest::newRow("0.0.0.0") << QByteArray("0.0.0.0:8470") << false;
    QTest::newRow("port not digits") << QByteArray("localhost:8470@attacker.example") << false;
    QTest::newRow("two ports") << QByteArray("localhost:80:81") << false;
    QTest::newRow("port too long") << QByteArray("localhost:1234567") << false;
    QTest::newRow("bare colon") << QByteArray("localhost:") << false;
    QTest::newRow("v6 unclosed") << QByteArray("[::1:8470") << false;
    QTest::newRow("v6 trailing text") << QByteArray("[::1]x") << false;
    QTest::newRow("v6 public") << QByteArray("[2001:db8::1]:8470") << false;
}

void TestMcpHttp::loopbackHost()
{
    QFETCH(QByteArray, host);
    QFETCH(bool, loopback);
    QCOMPARE(HttpTransport::isLoopbackHost(host), loopback);
}

void TestMcpHttp::loopbackOrigin_data()
{
    QTest::addColumn<QByteArray>("origin");
    QTest::addColumn<bool>("loopback");
    QTest::newRow("http localhost") << QByteArray("http://localhost:8470") << true;
    QTest::newRow("https 127.0.0.1") << QByteArray("https://127.0.0.1") << true;
    QTest::newRow("http [::1]") << QByteArray("http://[::1]:3000") << true;
    QTest::newRow("http 127.0.0.1:port") << QByteArray("http://127.0.0.1:5173") << true;
    QTest::newRow("http 127.0.0.2") << QByteArray("http://127.0.0.2:5173") << false;
    QTest::newRow("https 127.3.4.5") << QByteArray("https://127.3.4.5") << false;
    QTest::newRow("null (sandboxed page, file:)") << QByteArray("null") << false;
    QTest::newRow("rebound name") << QByteArray("http://attacker.example:8470") << false;
    QTest::newRow("localhost as a label") << QByteArray("http://localhost.attacker.example") << false;
    QTest::newRow("user info") << QByteArray("http://localhost@attacker.example") << false;
    QTest::newRow("user info before localhost") << QByteArray("http://attacker@localhost") << false;
    QTest::newRow("with a path") << QByteArray("http://localhost/page") << false;
    QTest::newRow("with a query") << QByteArray("http://localhost?x=1") << false;
    QTest::newRow("file scheme") << QByteArray("file://localhost") << false;
    QTest::newRow("extension scheme") << QByteArray("chrome-extension://abcdef") << false;
    QTest::newRow("no scheme") << QByteArray("localhost:8470") << false;
    QTest::newRow("empty") << QByteArray() << false;
}

void TestMcpHttp::loopbackOrigin()
{
    QFETCH(QByteArray, origin);
    QFETCH(bool, loopback);
    QCOMPARE(HttpTransport::isLoopbackOrigin(origin), loopback);
}

void TestMcpHttp::hostAllowed_data()
{
    QTest::addColumn<QByteArray>("host");
    QTest::addColumn<QString>("listen");
    QTest::addColumn<QStringList>("allowed");
    QTest::addColumn<bool>("accepted");
    const QStringList none;
    const QStringList named{QStringLiteral("countersign.internal"), QStringLiteral("10.1.2.3")};
    const QString v4 = QStringLiteral("127.0.0.1");
    QTest::newRow("localhost on 127.0.0.1") << QByteArray("localhost:8470") << v4 << none << true;
    QTest::newRow("127.0.0.1 without a port") << QByteArray("127.0.0.1") << v4 << none << true;
    QTest::newRow("[::1] on 127.0.0.1") << QByteArray("[::1]:8470") << v4 << none << true;
    QTest::newRow("127.0.0.2 on 127.0.0.1") << QByteArray("127.0.0.2:8470") << v4 << none << false;
    QTest::newRow("127.0.0.2 without a port on 127.0.0.1") << QByteArray("127.0.0.2") << v4 << none << false;
    QTest::newRow("the listen address 127.0.0.2") << QByteArray("127.0.0.2:8470") << QStringLiteral("127.0.0.2") << none << true;
    QTest::newRow("the listen address, no port") << QByteArray("127.0.0.2") << QStringLiteral("127.0.0.2") << none << true;
    QTest::newRow("127.0.0.3 on 127.0.0.2") << QByteArray("127.0.0.3:8470") << QStringLiteral("127.0.0.2") << none << false;
    QTest::newRow("listening on ::1") << QByteArray("[::1]:8470") << QStringLiteral("::1") << none << true;
    QTest::newRow("an allowed name") << QByteArray("countersign.internal") << v4 << named << true;
    QTest::newRow("an allowed name with a port") << QByteArray("countersign.internal:8470") << v4 << named << true;
    QTest::newRow("an allowed name, other case") << QByteArray("CounterSign.Internal:8470") << v4 << named << true;
    QTest::newRow("an allowed address") << QByteArray("10.1.2.3:8470") << v4 << named << true;
    QTest::newRow("a label under an allowed name") << QByteArray("x.countersign.internal") << v4 << named << false;
    QTest::newRow("an allowed name as a label") << QByteArray("countersign.internal.attacker.example") << v4 << named << false;
    QTest::newRow("an allowed name, bad port") << QByteArray("countersign.internal:80x") << v4 << named << false;
    QTest::newRow("rebound name") << QByteArray("attacker.example:8470") << v4 << named << false;
    QTest::newRow("no Host") << QByteArray() << v4 << named << false;
    QTest::newRow("empty allowed name does not admit an empty Host") << QByteArray() << v4 << QStringList{QString()} << false;
}

void TestMcpHttp::hostAllowed()
{
    QFETCH(QByteArray, host);
    QFETCH(QString, listen);
    QFETCH(QStringList, allowed);
    QFETCH(bool, accepted);
    QCOMPARE(HttpTransport::hostAllowed(host, listen, allowed), accepted);
}

QTEST_GUILESS_MAIN(TestMcpHttp)
#include "tst_mcphttp.moc"
