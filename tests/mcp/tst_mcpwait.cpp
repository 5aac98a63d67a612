// wait_for_decision on /mcp is woken by commits, not by a timer (issue 34). In process, so the
// test holds every piece: a Ledger, an ApiServer on 127.0.0.1 with an ephemeral port, /mcp
// mounted on it (HttpTransport), and agents calling it over real HTTP. The reads a wait makes are
// counted by countersign_mcp_wait_reads_total{cause}, which the test reads from the registry: a
// wait reads its action when it starts, when a commit names it, and at its deadline. The poll
// interval is set to a minute wherever the test proves the commit path, and to 50 ms where it
// proves that nothing is read while nothing happens, so a timer could not pass either.
// Also the Host check end to end: exactly localhost, 127.0.0.1 and [::1] (docs/SECURITY.md).
#include "server/api/apiserver.h"
#include "server/api/userstore.h"
#include "server/ledger/ledger.h"
#include "server/mcp/httptransport.h"
#include "server/metrics/metrics.h"
#include "tests/server/ledgertestsupport.h"
#include "tests/support/testledger.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

namespace {

constexpr int kNever = 10 * 60 * 1000; // a poll that cannot fire during the test
constexpr int kWithinMs = 5000;        // how long a woken wait may take here (it takes milliseconds)

double metric(const QString &name, const QStringList &labels = {})
{
    const cs::metrics::Family *family = cs::metrics::Registry::global().find(name);
    return family ? family->value(labels) : -1;
}

// Reads made by waits, by cause, since the object was made.
struct ReadCount
{
    QHash<QString, double> at;
    ReadCount()
    {
        for (const QString &cause : causes())
            at.insert(cause, metric(QStringLiteral("countersign_mcp_wait_reads_total"), {cause}));
    }
    static QStringList causes()
    {
        return {QStringLiteral("start"), QStringLiteral("change"), QStringLiteral("poll"), QStringLiteral("retry"),
                QStringLiteral("deadline")};
    }
    double since(const QString &cause) const
    {
        return metric(QStringLiteral("countersign_mcp_wait_reads_total"), {cause}) - at.value(cause);
    }
    double allSince() const
    {
        double sum = 0;
        for (const QString &cause : causes())
            sum += since(cause);
        return sum;
    }
};

// One agent's MCP session over HTTP: its own QNetworkAccessManager, so that its calls do not
// queue behind another's (six connections per host and manager).
class Agent
{
public:
    Agent(const QUrl &mcp, const QString &token) : m_url(mcp), m_token(token.toLatin1()) {}

    bool initialize()
    {
        QNetworkReply *reply = post(QJsonObject{
            {QStringLiteral("jsonrpc"), QStringLiteral("2.0")}, {QStringLiteral("id"), 0},
            {QStringLiteral("method"), QStringLiteral("initialize")},
            {QStringLiteral("params"),
             QJsonObject{{QStringLiteral("protocolVersion"), QStringLiteral("2025-06-18")},
                         {QStringLiteral("capabilities"), QJsonObject()},
                         {QStringLiteral("clientInfo"), QJsonObject{{QStringLiteral("name"), QStringLiteral("tst_mcpwait")},
                                                                   {QStringLiteral("version"), QStringLiteral("1")}}}}}});
        if (!QTest::qWaitFor([reply] { return reply->isFinished(); }, kWithinMs))
            return false;
        m_session = reply->rawHeader("Mcp-Session-Id");
        reply->deleteLater();
        QNetworkReply *initialized = post(QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                                                      {QStringLiteral("method"), QStringLiteral("notifications/initialized")}});
        const bool accepted = QTest::qWaitFor([initialized] { return initialized->isFinished(); }, kWithinMs)
            && initialized->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() == 202;
        initialized->deleteLater();
        return !m_session.isEmpty() && accepted;
    }

    // tools/call wait_for_decision; the reply finishes with the tool's answer.
    QNetworkReply *wait(const QString &actionId, int timeoutSeconds)
    {
        return post(QJsonObject{
            {QStringLiteral("jsonrpc"), QStringLiteral("2.0")}, {QStringLiteral("id"), ++m_id},
            {QStringLiteral("method"), QStringLiteral("tools/call")},
            {QStringLiteral("params"),
             QJsonObject{{QStringLiteral("name"), QStringLiteral("wait_for_decision")},
                         {QStringLiteral("arguments"), QJsonObject{{QStringLiteral("action_id"), actionId},
                                                                  {QStringLiteral("timeout_seconds"), timeoutSeconds}}}}}});
    }

    static QJsonObject structured(QNetworkReply *reply)
    {
        return QJsonDocument::fromJson(reply->readAll())
            .object()
            .value(QStringLiteral("result"))
            .toObject()
            .value(QStringLiteral("structuredContent"))
            .toObject();
    }

private:
    QNetworkReply *post(const QJsonObject &message)
    {
        QNetworkRequest request(m_url);
        request.setRawHeader("Authorization", "Bearer " + m_token);
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
        request.setRawHeader("Accept", "application/json, text/event-stream");
        if (!m_session.isEmpty())
            request.setRawHeader("Mcp-Session-Id", m_session);
        return m_network.post(request, QJsonDocument(message).toJson(QJsonDocument::Compact));
    }

    QNetworkAccessManager m_network;
    QUrl m_url;
    QByteArray m_token;
    QByteArray m_session;
    int m_id = 0;
};

} // namespace

class TestMcpWait : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_serial = 0;
    std::unique_ptr<cs::Ledger> m_ledger;
    std::unique_ptr<cs::ApiServer> m_api;
    std::unique_ptr<cs::HttpTransport> m_mcp;
    QString m_agentToken;
    QString m_location;

    // countersignd's serve, in process: /mcp's waits poll every pollMs (--mcp-poll-ms); the event
    // stream's own poll of the audit log is off unless `auditPoll`, so only commits wake it.
    bool start(int pollMs, bool auditPoll = false)
    {
        m_location = cs::test::ledgerLocation(m_dir.filePath(QStringLiteral("wait-%1.db").arg(++m_serial)));
        m_ledger = std::make_unique<cs::Ledger>();
        if (m_location.isEmpty() || !m_ledger->open(m_location).ok())
            return false;
        cs::ApiServer::Options options;
        if (!auditPoll) {
            options.events.changes.pollMs = kNever;
            options.events.changes.safetyPollMs = kNever;
        }
        m_api = std::make_unique<cs::ApiServer>(m_ledger.get(), nullptr, options);
        QString error;
        if (!m_api->listen(QHostAddress::LocalHost, 0, &error)) {
            qWarning("cannot listen: %s", qPrintable(error));
            return false;
        }
        cs::HttpTransport::Options mcpOptions;
        mcpOptions.pollIntervalMs = pollMs;
        m_mcp = std::make_unique<cs::HttpTransport>(m_api.get(), mcpOptions);
        const auto token = m_api->users()->addUser(QStringLiteral("agent-7"), cs::Role::Agent);
        if (!token.ok())
            return false;
        m_agentToken = *token;
        return true;
    }
    QUrl mcpUrl() const { return QUrl(m_api->baseUrl().toString() + u"/mcp"); }

    cs::ActionRecord propose(cs::Ledger &ledger)
    {
        const auto proposed = ledger.proposals().propose(cs::test::sampleInput(QStringLiteral("wait-%1").arg(++m_serial)),
                                                         QStringLiteral("agent-7"));
        return proposed.ok() ? proposed->record : cs::ActionRecord();
    }
    static bool reject(cs::Ledger &ledger, const cs::ActionRecord &action)
    {
        return ledger.approvals()
            .reject(action.id, QStringLiteral("ana"), QStringLiteral("duplicate"), QString(), action.stateVersion)
            .ok();
    }
    int followers() const { return std::as_const(*m_api).events()->followers(); }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void cleanup()
    {
        m_mcp.reset();
        m_api.reset();
        m_ledger.reset();
    }

    // The decision is committed while the wait runs; with a minute between polls and no poll of
    // the audit log, only the commit can end it within the seconds allowed.
    void aDecisionEndsTheWaitAtOnce()
    {
        QVERIFY(start(60000));
        const cs::ActionRecord action = propose(*m_ledger);
        QVERIFY(!action.id.isEmpty());
        Agent agent(mcpUrl(), m_agentToken);
        QVERIFY(agent.initialize());
        const ReadCount reads;
        std::unique_ptr<QNetworkReply> waiting(agent.wait(action.id, 30));
        QTRY_COMPARE_WITH_TIMEOUT(reads.since(QStringLiteral("start")), 1.0, kWithinMs);
        QCOMPARE(followers(), 1);
        QVERIFY(!waiting->isFinished());

        QVERIFY(reject(*m_ledger, action));
        QTRY_VERIFY_WITH_TIMEOUT(waiting->isFinished(), kWithinMs);
        const QJsonObject result = Agent::structured(waiting.get());
        QCOMPARE(result.value(QStringLiteral("state")).toString(), QStringLiteral("REJECTED"));
        QCOMPARE(result.value(QStringLiteral("timed_out")).toBool(), false);
        QVERIFY2(result.value(QStringLiteral("waited_seconds")).toDouble() < 5, "answered at once, not at a poll");
        QCOMPARE(reads.since(QStringLiteral("change")), 1.0);
        QCOMPARE(reads.since(QStringLiteral("poll")), 0.0);
        QTRY_COMPARE(followers(), 0); // the event stream reads for nobody any more
    }

    // Four waits over a second and three commits of other actions, polling every 50 ms were it
    // polling: no read at all. Then one decision: one read, for that wait alone.
    void idleWaitsReadNothing()
    {
        QVERIFY(start(50));
        QList<cs::ActionRecord> actions;
        std::vector<std::unique_ptr<Agent>> agents;
        std::vector<std::unique_ptr<QNetworkReply>> waits;
        const ReadCount reads;
        for (int i = 0; i < 4; ++i) {
            actions << propose(*m_ledger);
            agents.push_back(std::make_unique<Agent>(mcpUrl(), m_agentToken));
            QVERIFY(agents.back()->initialize());
            waits.emplace_back(agents.back()->wait(actions.last().id, 30));
        }
        QTRY_COMPARE_WITH_TIMEOUT(reads.since(QStringLiteral("start")), 4.0, kWithinMs);
        const ReadCount idle;
        for (int i = 0; i < 3; ++i)
            QVERIFY(!propose(*m_ledger).id.isEmpty());
        QTest::qWait(1000);
        QCOMPARE(idle.allSince(), 0.0);
        QCOMPARE(metric(QStringLiteral("countersign_mcp_waits")), 4.0);

        QVERIFY(reject(*m_ledger, actions.at(2)));
        QTRY_VERIFY_WITH_TIMEOUT(waits.at(2)->isFinished(), kWithinMs);
        QCOMPARE(Agent::structured(waits.at(2).get()).value(QStringLiteral("state")).toString(), QStringLiteral("REJECTED"));
        QCOMPARE(idle.since(QStringLiteral("change")), 1.0);
        QCOMPARE(idle.allSince(), 1.0);
        for (const int i : {0, 1, 3})
            QVERIFY(!waits.at(size_t(i))->isFinished());

        // Closing the connections cancels the other waits; nothing follows the stream after them.
        for (const int i : {0, 1, 3})
            waits.at(size_t(i))->abort();
        QTRY_COMPARE_WITH_TIMEOUT(followers(), 0, kWithinMs);
        QTRY_COMPARE(metric(QStringLiteral("countersign_mcp_waits")), 0.0);
    }

    // A decision committed by another instance on the same ledger (the CLI, a second countersignd):
    // the event stream's poll of the audit log (SQLite) or LISTEN/NOTIFY (PostgreSQL) brings it.
    void aDecisionOfAnotherInstanceEndsTheWait()
    {
        QVERIFY(start(60000, true));
        const cs::ActionRecord action = propose(*m_ledger);
        Agent agent(mcpUrl(), m_agentToken);
        QVERIFY(agent.initialize());
        const ReadCount reads;
        std::unique_ptr<QNetworkReply> waiting(agent.wait(action.id, 30));
        QTRY_COMPARE_WITH_TIMEOUT(reads.since(QStringLiteral("start")), 1.0, kWithinMs);
        cs::Ledger other;
        QVERIFY(other.open(m_location).ok());
        QVERIFY(reject(other, action));
        QTRY_VERIFY_WITH_TIMEOUT(waiting->isFinished(), kWithinMs);
        QCOMPARE(Agent::structured(waiting.get()).value(QStringLiteral("state")).toString(), QStringLiteral("REJECTED"));
        QCOMPARE(reads.since(QStringLiteral("poll")), 0.0);
    }

    // The deadline is read once, and answered with the state so far.
    void theDeadlineIsOneRead()
    {
        QVERIFY(start(60000));
        const cs::ActionRecord action = propose(*m_ledger);
        Agent agent(mcpUrl(), m_agentToken);
        QVERIFY(agent.initialize());
        const ReadCount reads;
        std::unique_ptr<QNetworkReply> waiting(agent.wait(action.id, 1));
        QTRY_VERIFY_WITH_TIMEOUT(waiting->isFinished(), kWithinMs);
        const QJsonObject result = Agent::structured(waiting.get());
        QCOMPARE(result.value(QStringLiteral("state")).toString(), QStringLiteral("PENDING"));
        QCOMPARE(result.value(QStringLiteral("timed_out")).toBool(), true);
        QCOMPARE(reads.since(QStringLiteral("start")), 1.0);
        QCOMPARE(reads.since(QStringLiteral("deadline")), 1.0);
        QCOMPARE(reads.allSince(), 2.0);
    }

    void hostIsExact_data()
    {
        QTest::addColumn<QByteArray>("host");
        QTest::addColumn<int>("status");
        QTest::newRow("127.0.0.1:port") << QByteArray("127.0.0.1:%1") << 200;
        QTest::newRow("127.0.0.1") << QByteArray("127.0.0.1") << 200;
        QTest::newRow("localhost:port") << QByteArray("localhost:%1") << 200;
        QTest::newRow("[::1]:port") << QByteArray("[::1]:%1") << 200;
        QTest::newRow("127.0.0.2:port") << QByteArray("127.0.0.2:%1") << 403;
        QTest::newRow("127.0.0.2") << QByteArray("127.0.0.2") << 403;
        QTest::newRow("127.1.2.3:port") << QByteArray("127.1.2.3:%1") << 403;
        QTest::newRow("rebound name") << QByteArray("attacker.example:%1") << 403;
    }

    // POST /mcp initialize with this Host, on a server listening on 127.0.0.1.
    void hostIsExact()
    {
        QFETCH(QByteArray, host);
        QFETCH(int, status);
        QVERIFY(start(1000));
        const QByteArray body = R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",)"
                                R"("capabilities":{},"clientInfo":{"name":"t","version":"1"}}})";
        QTcpSocket socket;
        socket.connectToHost(QHostAddress::LocalHost, quint16(m_api->baseUrl().port()));
        QVERIFY(socket.waitForConnected(kWithinMs));
        socket.write("POST /mcp HTTP/1.1\r\nHost: " + host.replace("%1", QByteArray::number(m_api->baseUrl().port()))
                     + "\r\nAuthorization: Bearer " + m_agentToken.toLatin1()
                     + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: "
                     + QByteArray::number(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
        QByteArray answer;
        QTRY_VERIFY_WITH_TIMEOUT((answer += socket.readAll()).contains("\r\n\r\n"), kWithinMs);
        QVERIFY2(answer.startsWith(QByteArray("HTTP/1.1 " + QByteArray::number(status))), answer.constData());
    }
};

QTEST_GUILESS_MAIN(TestMcpWait)
#include "tst_mcpwait.moc"
