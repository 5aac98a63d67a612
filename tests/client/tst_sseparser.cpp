// The server-sent-event parser: the WHATWG rules that matter for countersignd's stream, fed in
// every chunking.

#include "client/sseparser.h"

#include <QTest>

using namespace cs;

Q_DECLARE_METATYPE(QList<cs::SseEvent>)

namespace cs {
char *toString(const SseEvent &e)
{
    return qstrdup(QStringLiteral("{id=%1 type=%2 data=%3}").arg(e.id, e.type, e.data).toUtf8().constData());
}
} // namespace cs

class TestSseParser : public QObject
{
    Q_OBJECT

private slots:
    void events_data()
    {
        QTest::addColumn<QByteArray>("stream");
        QTest::addColumn<QList<SseEvent>>("expected");
        QTest::addColumn<QString>("lastId");
        QTest::addColumn<int>("retry");

        QTest::newRow("countersignd's own stream")
            << QByteArray("retry: 3000\n\nid: 1042\nevent: action.changed\ndata: {\"a\":1}\n\n: heartbeat\n\n")
            << QList<SseEvent>{ { QStringLiteral("1042"), QStringLiteral("action.changed"), QStringLiteral("{\"a\":1}") } }
            << QStringLiteral("1042") << 3000;
        QTest::newRow("CRLF line ends")
            << QByteArray("id: 7\r\nevent: resync\r\ndata: {\"latest_seq\":7}\r\n\r\n")
            << QList<SseEvent>{ { QStringLiteral("7"), QStringLiteral("resync"), QStringLiteral("{\"latest_seq\":7}") } }
            << QStringLiteral("7") << -1;
        QTest::newRow("CR line ends")
            << QByteArray("data: x\rdata: y\r\r")
            << QList<SseEvent>{ { QString(), QStringLiteral("message"), QStringLiteral("x\ny") } } << QString() << -1;
        QTest::newRow("a comment alone dispatches nothing") << QByteArray(": heartbeat\n\n") << QList<SseEvent>{}
                                                            << QString() << -1;
        QTest::newRow("an event without data is not dispatched")
            << QByteArray("id: 5\nevent: action.changed\n\n") << QList<SseEvent>{} << QStringLiteral("5") << -1;
        QTest::newRow("no space after the colon")
            << QByteArray("data:x\n\n") << QList<SseEvent>{ { QString(), QStringLiteral("message"), QStringLiteral("x") } }
            << QString() << -1;
        QTest::newRow("the id persists to the next event")
            << QByteArray("id: 3\ndata: a\n\ndata: b\n\n")
            << QList<SseEvent>{ { QStringLiteral("3"), QStringLiteral("message"), QStringLiteral("a") },
                                { QStringLiteral("3"), QStringLiteral("message"), QStringLiteral("b") } }
            << QStringLiteral("3") << -1;
        QTest::newRow("an incomplete event waits") << QByteArray("id: 9\ndata: a\n") << QList<SseEvent>{}
                                                   << QStringLiteral("9") << -1;
        QTest::newRow("a bad retry is ignored") << QByteArray("retry: soon\n\n") << QList<SseEvent>{} << QString() << -1;
        QTest::newRow("BOM at the start") << QByteArray("\xEF\xBB\xBF" "data: x\n\n")
                                          << QList<SseEvent>{ { QString(), QStringLiteral("message"), QStringLiteral("x") } }
                                          << QString() << -1;
        // Found with fuzz_sseparser (the same events in every chunking): fed byte by byte, a BOM
        // after the first line used to be dropped as if it started the stream.
        QTest::newRow("a BOM after the first line is not a BOM")
            << QByteArray("\n\xEF\xBB\xBF" "data: x\n\n") << QList<SseEvent>{} << QString() << -1;
        QTest::newRow("a lone BOM byte then a line") << QByteArray("\xEF\ndata: x\n\n")
                                                    << QList<SseEvent>{ { QString(), QStringLiteral("message"), QStringLiteral("x") } }
                                                    << QString() << -1;
        QTest::newRow("retry with a space inside is ignored") << QByteArray("retry:  5\n\n") << QList<SseEvent>{}
                                                             << QString() << -1;
        QTest::newRow("retry out of range is ignored") << QByteArray("retry: 99999999999\n\n") << QList<SseEvent>{}
                                                      << QString() << -1;
    }

    void events()
    {
        QFETCH(QByteArray, stream);
        QFETCH(QList<SseEvent>, expected);
        QFETCH(QString, lastId);
        QFETCH(int, retry);

        // Whole, then byte by byte, then in chunks of 5: the same events.
        for (int chunk : { int(stream.size()), 1, 5 }) {
            SseParser parser;
            QList<SseEvent> events;
            for (qsizetype i = 0; i < stream.size(); i += chunk)
                events += parser.feed(stream.mid(i, chunk));
            QCOMPARE(events, expected);
            QCOMPARE(parser.lastEventId(), lastId);
            QCOMPARE(parser.retryMs().value_or(-1), retry);
        }
    }

    void resetDropsAHalfEvent()
    {
        SseParser parser;
        parser.feed("id: 4\ndata: half");
        parser.reset();
        const QList<SseEvent> events = parser.feed("data: whole\n\n");
        QCOMPARE(events.size(), 1);
        QCOMPARE(events.first().data, QStringLiteral("whole"));
        QCOMPARE(parser.lastEventId(), QStringLiteral("4")); // survives reconnects: Last-Event-ID
    }

    void activityIncludesHeartbeats()
    {
        SseParser parser;
        QVERIFY(!parser.takeActivity());
        parser.feed(": heartbeat\n\n");
        QVERIFY(parser.takeActivity());
        QVERIFY(!parser.takeActivity());
    }
};

QTEST_GUILESS_MAIN(TestSseParser)
#include "tst_sseparser.moc"
