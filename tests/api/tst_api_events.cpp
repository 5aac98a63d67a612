// GET /events against a real countersignd: every change once, in audit order, resumed exactly
// after Last-Event-ID, resync when the id is ahead, an agent's stream limited to its actions,
// heartbeats, and streams ended cleanly when the service drains.
#include "tests/api/apitestsupport.h"

#include <QJsonDocument>
#include <QTest>

namespace {

struct SseEvent
{
    qint64 id = -1;
    QString name;
    QJsonObject data;
};

// Reads one event stream as it arrives.
class SseReader
{
public:
    SseReader(ApiClient &client, const QString &token, std::optional<qint64> lastEventId = std::nullopt)
    {
        Headers headers = {{"Accept", "text/event-stream"}};
        if (lastEventId)
            headers.append({"Last-Event-ID", QByteArray::number(*lastEventId)});
        m_reply = client.sendAsync("GET", QStringLiteral("/events"), token, {}, headers);
        m_reply->setReadBufferSize(0);
        QObject::connect(m_reply, &QNetworkReply::readyRead, m_reply, [this] { read(); });
    }
    ~SseReader()
    {
        if (m_reply) {
            m_reply->abort();
            m_reply->deleteLater();
        }
    }
    int status() const { return m_reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(); }
    bool finished() const { return m_reply->isFinished(); }
    const QList<SseEvent> &events() const { return m_events; }
    const QByteArray &raw() const { return m_raw; }
    int heartbeats() const { return int(m_raw.count(": heartbeat\n")); }
    bool waitForEvents(int count, int timeoutMs = 5000)
    {
        QElapsedTimer clock;
        clock.start();
        while (m_events.size() < count && clock.elapsed() < timeoutMs)
            QTest::qWait(20);
        return m_events.size() >= count;
    }
    QList<qint64> ids() const
    {
        QList<qint64> out;
        for (const SseEvent &e : m_events)
            out << e.id;
        return out;
    }

private:
    void read()
    {
        const QByteArray chunk = m_reply->readAll();
        m_raw += chunk;
        m_buffer += chunk;
        qsizetype end;
        while ((end = m_buffer.indexOf("\n\n")) >= 0) {
            const QByteArray block = m_buffer.left(end);
            m_buffer.remove(0, end + 2);
            SseEvent event;
            for (const QByteArray &line : block.split('\n')) {
                if (line.startsWith("id: "))
                    event.id = line.mid(4).toLongLong();
                else if (line.startsWith("event: "))
                    event.name = QString::fromUtf8(line.mid(7));
                else if (line.startsWith("data: "))
                    event.data = QJsonDocument::fromJson(line.mid(6)).object();
            }
            if (!event.name.isEmpty())
                m_events.append(event);
        }
    }

    QNetworkReply *m_reply = nullptr;
    QByteArray m_raw;
    QByteArray m_buffer;
    QList<SseEvent> m_events;
};

} // namespace

class TestApiEvents : public QObject
{
    Q_OBJECT

private:
    ApiHarness m_harness;
    std::unique_ptr<ApiClient> m_client;
    int m_serial = 0;

    QString token(const QString &user) const { return m_harness.token(user); }
    ApiReply propose(const QString &agent)
    {
        return m_client->propose(token(agent), ApiClient::proposal(QStringLiteral("ev-%1").arg(++m_serial)));
    }

private slots:
    void initTestCase()
    {
        QString error;
        ApiHarness::Options options;
        options.extraServeArguments = {QStringLiteral("--sse-heartbeat-ms"), QStringLiteral("400"),
                                       QStringLiteral("--sse-poll-ms"), QStringLiteral("50")};
        QVERIFY2(m_harness.start(options, &error), qPrintable(error));
        m_client = std::make_unique<ApiClient>(m_harness.api());
    }

    void eachChangeOnceThenResume()
    {
        SseReader live(*m_client, token(QStringLiteral("ana")));
        QTRY_COMPARE_WITH_TIMEOUT(live.status(), 200, 5000);
        QTRY_VERIFY_WITH_TIMEOUT(live.raw().startsWith("retry: 3000\n\n"), 5000);
        const ApiReply first = propose(QStringLiteral("agent-7"));
        const QString id = first.json.value(QStringLiteral("id")).toString();
        QCOMPARE(m_client->approve(token(QStringLiteral("ana")), id, first.ifMatch()).status, 200);
        QVERIFY(live.waitForEvents(2));
        QTest::qWait(300); // nothing else may arrive
        QCOMPARE(live.events().size(), 2);
        QCOMPARE(live.events().at(0).data.value(QStringLiteral("event")).toString(), QStringLiteral("proposed"));
        QCOMPARE(live.events().at(1).data.value(QStringLiteral("event")).toString(), QStringLiteral("approved"));
        QCOMPARE(live.events().at(1).data.value(QStringLiteral("action_id")).toString(), id);
        QCOMPARE(live.events().at(1).data.value(QStringLiteral("state_version")).toInteger(), 2);
        QCOMPARE(live.events().at(1).data.value(QStringLiteral("state")).toString(), QStringLiteral("PENDING"));
        QVERIFY(live.events().at(0).id < live.events().at(1).id);
        const qint64 lastSeen = live.events().at(1).id;

        // While this client is away, three more changes (and one refusal, which writes nothing).
        const ApiReply second = propose(QStringLiteral("agent-8"));
        const QString id2 = second.json.value(QStringLiteral("id")).toString();
        QCOMPARE(m_client->post(QStringLiteral("/actions/%1/rejections").arg(id2), token(QStringLiteral("bob")),
                                {{QStringLiteral("reason"), QStringLiteral("not_eligible")}, {QStringLiteral("note"), QStringLiteral("not ours")}}, {{"If-Match", second.ifMatch()}}).status, 200);
        QCOMPARE(m_client->approve(token(QStringLiteral("bob")), id, first.ifMatch()).status, 412);
        const ApiReply third = propose(QStringLiteral("agent-7"));
        QVERIFY(live.waitForEvents(5));

        SseReader resumed(*m_client, token(QStringLiteral("ana")), lastSeen);
        QVERIFY(resumed.waitForEvents(3));
        QTest::qWait(300);
        QCOMPARE(resumed.ids(), live.ids().mid(2)); // exactly what was missed, once, in order
        QCOMPARE(resumed.events().at(1).data.value(QStringLiteral("event")).toString(), QStringLiteral("rejected"));
        // ...then live.
        const ApiReply fourth = propose(QStringLiteral("agent-8"));
        QVERIFY(resumed.waitForEvents(4));
        QCOMPARE(resumed.events().constLast().data.value(QStringLiteral("action_id")).toString(),
                 fourth.json.value(QStringLiteral("id")).toString());
        QVERIFY(live.waitForEvents(6));
        const QList<qint64> ids = live.ids();
        QCOMPARE(QSet<qint64>(ids.begin(), ids.end()).size(), ids.size()); // no duplicates
        Q_UNUSED(third);
    }

    void agentSeesOnlyItsOwnActions()
    {
        SseReader mine(*m_client, token(QStringLiteral("agent-8")));
        QTRY_COMPARE_WITH_TIMEOUT(mine.status(), 200, 5000);
        QTRY_VERIFY_WITH_TIMEOUT(!mine.raw().isEmpty(), 5000);
        const ApiReply other = propose(QStringLiteral("agent-7"));
        const ApiReply own = propose(QStringLiteral("agent-8"));
        QVERIFY(mine.waitForEvents(1));
        QTest::qWait(300);
        QCOMPARE(mine.events().size(), 1);
        QCOMPARE(mine.events().first().data.value(QStringLiteral("action_id")).toString(), own.json.value(QStringLiteral("id")).toString());
        Q_UNUSED(other);
    }

    void resyncWhenAhead()
    {
        SseReader ahead(*m_client, token(QStringLiteral("aud")), 999999);
        QVERIFY(ahead.waitForEvents(1));
        QCOMPARE(ahead.events().first().name, QStringLiteral("resync"));
        const qint64 latest = ahead.events().first().data.value(QStringLiteral("latest_seq")).toInteger();
        QCOMPARE(ahead.events().first().id, latest);
        QCOMPARE(latest, ledgerCounts(m_harness.ledger()).lastAuditSeq);
        // It carries on live from there.
        propose(QStringLiteral("agent-7"));
        QVERIFY(ahead.waitForEvents(2));
        QCOMPARE(ahead.events().at(1).name, QStringLiteral("action.changed"));
    }

    void heartbeats()
    {
        SseReader quiet(*m_client, token(QStringLiteral("sam")));
        QTRY_VERIFY_WITH_TIMEOUT(quiet.heartbeats() >= 2, 5000);
        QCOMPARE(quiet.events().size(), 0);
    }

    void unauthenticated()
    {
        const ApiReply reply = m_client->get(QStringLiteral("/events"), QString());
        QCOMPARE(reply.status, 401);
    }

    // SIGTERM drains: open streams end, the process exits 0 — also with a client still connected.
    void drainEndsStreams()
    {
        SseReader open(*m_client, token(QStringLiteral("ana")));
        QTRY_COMPARE_WITH_TIMEOUT(open.status(), 200, 5000);
        QVERIFY(m_harness.countersignd().stop());
        QTRY_VERIFY_WITH_TIMEOUT(open.finished(), 5000);
    }
};

QTEST_GUILESS_MAIN(TestApiEvents)
#include "tst_api_events.moc"
