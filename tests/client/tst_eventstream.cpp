// The event-stream client against a real countersignd: live events (also a pause and a resume of
// execution), heartbeats, reconnect with backoff when the backend goes away, and Last-Event-ID
// resume so nothing is missed.

#include "client/apiclient.h"
#include "client/eventstreamclient.h"
#include "tests/client/backendprocess.h"
#include "tests/client/faultproxy.h"

#include <QSignalSpy>
#include <QTest>

using namespace cs;
using namespace std::chrono_literals;

class TestEventStream : public QObject
{
    Q_OBJECT

private:
    BackendProcess m_backend;
    QStringList m_charges;
    int m_next = 0;

    QString proposeOne()
    {
        ++m_next;
        return m_backend.propose(m_charges.at(m_next % m_charges.size()), 1000 + m_next, QStringLiteral("ev-%1").arg(m_next))
            .value(QLatin1String("id")).toString();
    }

    static bool waitForEvent(QSignalSpy &spy, const QString &actionId, const QString &event, int timeoutMs = 8000)
    {
        QElapsedTimer timer;
        timer.start();
        int seen = 0;
        while (timer.elapsed() < timeoutMs) {
            for (; seen < spy.count(); ++seen) {
                const auto change = spy.at(seen).at(0).value<ActionChange>();
                if (change.actionId == actionId && (event.isEmpty() || change.event == event))
                    return true;
            }
            spy.wait(200);
        }
        return false;
    }

private slots:
    void initTestCase()
    {
        qRegisterMetaType<ActionChange>();
        QVERIFY2(m_backend.start(10, { QStringLiteral("--sse-heartbeat-ms"), QStringLiteral("300"),
                                       QStringLiteral("--sse-poll-ms"), QStringLiteral("50") }),
                 qPrintable(m_backend.error()));
        m_charges = m_backend.charges();
    }

    void cleanupTestCase()
    {
        m_backend.stop();
    }

    void liveEvents()
    {
        EventStreamClient events;
        events.setBaseUrl(m_backend.url());
        events.setToken(m_backend.token(QStringLiteral("ana")));
        QSignalSpy changed(&events, &EventStreamClient::actionChanged);
        QSignalSpy states(&events, &EventStreamClient::stateChanged);
        QVERIFY(changed.isValid() && states.isValid());
        events.start();
        QTRY_COMPARE_WITH_TIMEOUT(events.state(), EventStreamClient::State::Live, 5000);

        const QString id = proposeOne();
        QVERIFY(waitForEvent(changed, id, QStringLiteral("proposed")));
        const auto change = changed.last().at(0).value<ActionChange>();
        QCOMPARE(change.state, ActionState::Pending);
        QCOMPARE(change.stateVersion, 1);
        QVERIFY(change.seq > 0);
        QCOMPARE(events.lastEventId(), QString::number(change.seq));

        QCOMPARE(m_backend.post(QStringLiteral("ana"), QStringLiteral("/actions/%1/approvals").arg(id),
                                QJsonObject{ { QStringLiteral("note"), QStringLiteral("ok") } }, 1).status, 200);
        QVERIFY(waitForEvent(changed, id, QStringLiteral("approved")));
        // The state as it is when the event is sent: the executor may already have moved on.
        QVERIFY(changed.last().at(0).value<ActionChange>().stateVersion >= 2);
        events.stop();
        QCOMPARE(events.state(), EventStreamClient::State::Stopped);
    }

    // A supervisor pauses and resumes execution: every client (an auditor here) hears of it as
    // `execution.changed`, with what happened and who did it — never as an action.changed.
    void executionChangesReachEveryClient()
    {
        EventStreamClient events;
        events.setBaseUrl(m_backend.url());
        events.setToken(m_backend.token(QStringLiteral("audrey")));
        QSignalSpy execution(&events, &EventStreamClient::executionChanged);
        QSignalSpy changed(&events, &EventStreamClient::actionChanged);
        QVERIFY(execution.isValid() && changed.isValid());
        events.start();
        QTRY_COMPARE_WITH_TIMEOUT(events.state(), EventStreamClient::State::Live, 5000);

        const BackendProcess::Reply paused = m_backend.post(
            QStringLiteral("sue"), QStringLiteral("/execution/pauses"),
            QJsonObject{ { QStringLiteral("scope"), QStringLiteral("agent") }, { QStringLiteral("agent"), QStringLiteral("agent-nobody") },
                         { QStringLiteral("reason"), QStringLiteral("stream test") } });
        QCOMPARE(paused.status, 201);
        QTRY_COMPARE_WITH_TIMEOUT(execution.count(), 1, 8000);
        QCOMPARE(execution.at(0).at(0).toString(), QStringLiteral("execution_paused"));
        QCOMPARE(execution.at(0).at(1).toString(), QStringLiteral("sue"));
        const QString id = paused.body.value(QLatin1String("id")).toString();
        QCOMPARE(m_backend.post(QStringLiteral("sue"), QStringLiteral("/execution/pauses/%1/resume").arg(id), QJsonObject()).status,
                 200);
        QTRY_COMPARE_WITH_TIMEOUT(execution.count(), 2, 8000);
        QCOMPARE(execution.at(1).at(0).toString(), QStringLiteral("execution_resumed"));
        // (Earlier tests' actions may still be moving: their events name them.)
        for (const QList<QVariant> &args : std::as_const(changed))
            QVERIFY(!args.at(0).value<ActionChange>().actionId.isEmpty());
        events.stop();
    }

    void heartbeatsKeepASilentStreamAlive()
    {
        EventStreamClient events;
        events.setBaseUrl(m_backend.url());
        events.setToken(m_backend.token(QStringLiteral("ana")));
        events.setHeartbeatTimeout(1500ms); // the server beats every 300 ms
        events.start();
        QTRY_COMPARE_WITH_TIMEOUT(events.state(), EventStreamClient::State::Live, 5000);
        QTest::qWait(3500);
        QCOMPARE(events.state(), EventStreamClient::State::Live);
        QCOMPARE(events.reconnectCount(), 0);
    }

    // Gone, events happen meanwhile, back: the stream reconnects with Last-Event-ID and the
    // missed events arrive.
    void reconnectsAndResumes()
    {
        FaultProxy proxy(m_backend.port());
        QVERIFY(proxy.listen());
        EventStreamClient events;
        events.setBaseUrl(proxy.url());
        events.setToken(m_backend.token(QStringLiteral("sue")));
        events.setBackoff(100ms, 400ms);
        events.setHeartbeatTimeout(2s);
        QSignalSpy changed(&events, &EventStreamClient::actionChanged);
        QVERIFY(changed.isValid());
        events.start();
        QTRY_COMPARE_WITH_TIMEOUT(events.state(), EventStreamClient::State::Live, 5000);
        const QString before = proposeOne();
        QVERIFY(waitForEvent(changed, before, QString()));
        const qint64 lastSeen = events.lastEventId().toLongLong();

        proxy.goDown();
        QTRY_COMPARE_WITH_TIMEOUT(events.state(), EventStreamClient::State::Reconnecting, 5000);
        const QString missed = proposeOne(); // while the console cannot hear
        QTest::qWait(300);
        QVERIFY(proxy.comeBack());
        QTRY_COMPARE_WITH_TIMEOUT(events.state(), EventStreamClient::State::Live, 8000);
        QVERIFY(waitForEvent(changed, missed, QStringLiteral("proposed")));
        QVERIFY(events.reconnectCount() >= 1);
        // Resumed, not replayed from the start: nothing at or before the last seen id again.
        int duplicates = 0;
        for (const QList<QVariant> &args : changed) {
            const auto change = args.at(0).value<ActionChange>();
            if (change.actionId == before && change.seq <= lastSeen)
                ++duplicates;
        }
        QCOMPARE(duplicates, 1);
    }

    void backendRestartIsSurvived()
    {
        EventStreamClient events;
        events.setBaseUrl(m_backend.url());
        events.setToken(m_backend.token(QStringLiteral("ana")));
        events.setBackoff(100ms, 500ms);
        QSignalSpy changed(&events, &EventStreamClient::actionChanged);
        QVERIFY(changed.isValid());
        events.start();
        QTRY_COMPARE_WITH_TIMEOUT(events.state(), EventStreamClient::State::Live, 5000);
        QSignalSpy states(&events, &EventStreamClient::stateChanged);
        QVERIFY(states.isValid());
        QVERIFY(m_backend.restartBackend());
        QTRY_VERIFY_WITH_TIMEOUT(events.reconnectCount() >= 1, 10000);
        QTRY_COMPARE_WITH_TIMEOUT(events.state(), EventStreamClient::State::Live, 10000);
        const QString id = proposeOne();
        QVERIFY(waitForEvent(changed, id, QStringLiteral("proposed")));
    }
};

QTEST_GUILESS_MAIN(TestEventStream)
#include "tst_eventstream.moc"
