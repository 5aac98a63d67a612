// The DNS rebinding defence of /mcp without a network: which Host and Origin values
// HttpTransport takes for loopback ones. A wrong "yes" here lets a web page whose name was rebound
// to 127.0.0.1 drive an agent's session; the end-to-end refusals are in tests/node/mcp_http.mjs.
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
};

void TestMcpHttp::loopbackHost_data()
{
    QTest::addColumn<QByteArray>("host");
    QTest::addColumn<bool>("loopback");
    QTest::newRow("localhost") << QByteArray("localhost") << true;
    QTest::newRow("localhost:port") << QByteArray("localhost:8470") << true;
    QTest::newRow("LocalHost") << QByteArray("LocalHost:8470") << true;
    QTest::newRow("127.0.0.1:port") << QByteArray("127.0.0.1:8470") << true;
    QTest::newRow("127.8.9.10") << QByteArray("127.8.9.10") << true;
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

QTEST_GUILESS_MAIN(TestMcpHttp)
#include "tst_mcphttp.moc"
