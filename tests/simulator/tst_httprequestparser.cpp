// paysim's HTTP request reading without a socket (simulator/httprequestparser.*): what
// HttpConnection takes off a connection's bytes, and what it refuses with which status.

#include "simulator/httprequestparser.h"

#include <QTest>

using cs::paysim::HttpRequestParser;

namespace {

// Takes the next head; the status of the refusal, 0 for a head, -1 for "need more".
int take(QByteArray *buffer, HttpRequestParser::Head *head = nullptr)
{
    HttpRequestParser::Step step = HttpRequestParser::takeHead(buffer);
    if (std::holds_alternative<HttpRequestParser::NeedMore>(step))
        return -1;
    if (const auto *refused = std::get_if<HttpRequestParser::Refusal>(&step))
        return refused->status;
    if (head)
        *head = std::get<HttpRequestParser::Head>(std::move(step));
    return 0;
}

} // namespace

class TestHttpRequestParser : public QObject
{
    Q_OBJECT

private slots:
    void pipelinedRequestsComeOffOneByOne()
    {
        QByteArray buffer("\r\nPOST /v1/refunds?expand[]=charge HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n"
                          "Idempotency-Key:  k1 \r\n\r\nc=ch1GET /v1/refunds/re_1 HTTP/1.0\r\n\r\nGET /v1");
        HttpRequestParser::Head head;
        QCOMPARE(take(&buffer, &head), 0);
        QCOMPARE(head.request.method, QByteArray("POST"));
        QCOMPARE(head.request.path(), QStringLiteral("/v1/refunds"));
        QCOMPARE(head.request.query(), QByteArray("expand[]=charge"));
        QCOMPARE(head.request.header("idempotency-key"), QByteArray("k1"));
        QCOMPARE(head.bodyLength, qsizetype(5));
        QVERIFY(buffer.startsWith("c=ch1GET"));
        buffer.remove(0, head.bodyLength);

        QCOMPARE(take(&buffer, &head), 0);
        QCOMPARE(head.request.version, QByteArray("HTTP/1.0"));
        QCOMPARE(head.bodyLength, qsizetype(0));
        QVERIFY(!head.request.keepAlive());
        QCOMPARE(take(&buffer), -1);
        QCOMPARE(buffer, QByteArray("GET /v1")); // need more: nothing taken
    }

    void refusals_data()
    {
        QTest::addColumn<QByteArray>("head");
        QTest::addColumn<int>("status");
        QTest::newRow("bare LF") << QByteArray("GET / HTTP/1.1\nHost: x\r\n\r\n") << 400;
        QTest::newRow("request line") << QByteArray("GET  / HTTP/1.1\r\nHost: x\r\n\r\n") << 400;
        QTest::newRow("relative target") << QByteArray("GET v1 HTTP/1.1\r\nHost: x\r\n\r\n") << 400;
        QTest::newRow("control in target") << QByteArray("GET /\x7f HTTP/1.1\r\nHost: x\r\n\r\n") << 400;
        // Found by fuzz_paysim_http: a bare CR inside a header line was kept in the value, so
        // "X: a\rContent-Length: 0" was one header to paysim and two to a reader that ends lines at CR.
        QTest::newRow("bare CR in a header") << QByteArray("GET / HTTP/1.0\r\nX: a\rContent-Length: 0\r\n\r\n") << 400;
        QTest::newRow("bare CR in the request line") << QByteArray("GET /\r HTTP/1.0\r\n\r\n") << 400;
        QTest::newRow("NUL in a header") << QByteArray("GET / HTTP/1.0\r\nX: a\0b\r\n\r\n", 26) << 400;
        QTest::newRow("folded header") << QByteArray("GET / HTTP/1.1\r\nHost: x\r\n y\r\n\r\n") << 400;
        QTest::newRow("no Host in 1.1") << QByteArray("GET / HTTP/1.1\r\n\r\n") << 400;
        QTest::newRow("bad Content-Length") << QByteArray("POST / HTTP/1.0\r\nContent-Length: +5\r\n\r\n") << 400;
        QTest::newRow("conflicting Content-Length")
            << QByteArray("POST / HTTP/1.0\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n") << 400;
        QTest::newRow("POST without length") << QByteArray("POST / HTTP/1.0\r\n\r\n") << 411;
        QTest::newRow("chunked") << QByteArray("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n") << 411;
        QTest::newRow("too large") << QByteArray("POST / HTTP/1.0\r\nContent-Length: 1048577\r\n\r\n") << 413;
        QTest::newRow("HTTP/2.0") << QByteArray("GET / HTTP/2.0\r\n\r\n") << 505;
        QTest::newRow("no version") << QByteArray("GET / FTP\r\n\r\n") << 400;
    }

    void refusals()
    {
        QFETCH(QByteArray, head);
        QFETCH(int, status);
        QCOMPARE(take(&head), status);
    }

    // A head of exactly MaxHeadBytes is accepted however it arrives. It used to be refused with 431
    // when its first MaxHeadBytes + 1..3 bytes came in one read and the blank line in the next.
    void aHeadAtTheLimitIsAcceptedInAnyChunking()
    {
        QByteArray head("GET / HTTP/1.0\r\nX-Pad: ");
        head += QByteArray(HttpRequestParser::MaxHeadBytes - head.size(), 'a');
        QCOMPARE(head.size(), HttpRequestParser::MaxHeadBytes);
        const QByteArray whole = head + "\r\n\r\n";
        for (qsizetype split = HttpRequestParser::MaxHeadBytes; split <= whole.size(); ++split) {
            QByteArray buffer = whole.left(split);
            if (split < whole.size()) {
                QCOMPARE(take(&buffer), -1);
                buffer += whole.mid(split);
            }
            QCOMPARE(take(&buffer), 0);
        }
        QByteArray over = head + "a\r\n\r";
        QCOMPARE(take(&over), 431);
        QByteArray overWhole = head + "a\r\n\r\n";
        QCOMPARE(take(&overWhole), 431);
    }
};

QTEST_GUILESS_MAIN(TestHttpRequestParser)
#include "tst_httprequestparser.moc"
