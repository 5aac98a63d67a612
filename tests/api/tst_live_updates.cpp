// Live updates (issue 13): what wakes GET /events. In process, so the test can hold each
// instance's watcher: an ApiServer on its own Ledger, the console's EventStreamClient over real
// HTTP on 127.0.0.1, and on PostgreSQL a second Ledger on the same database as "instance A".
// The polls are set to ten minutes wherever the test proves a faster path, so only that path can
// deliver the event within the few seconds allowed.
#include "client/eventstreamclient.h"
#include "server/api/apiserver.h"
#include "server/api/userstore.h"
#include "server/ledger/ledger.h"
#include "server/ledger/ledgerwatcher.h"
#include "tests/server/ledgertestsupport.h"
#include "tests/support/pgcluster.h"
#include "tests/support/testledger.h"

#include <QSet>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace std::chrono_literals;

namespace {

constexpr int kNever = 10 * 60 * 1000; // a poll that cannot fire during the test
constexpr int kWithinMs = 5000;         // how long an event may take here (it takes milliseconds)

// One countersignd's API in this process: a Ledger, an ApiServer on an ephemeral port, a token.
struct Instance
{
    cs::Ledger ledger;
    std::unique_ptr<cs::ApiServer> api;
    QString token;

    bool start(const QString &location, const cs::LedgerWatcher::Options &changes, QString *error)
    {
        const cs::LedgerError opened = ledger.open(location);
        if (!opened.ok()) {
            *error = opened.toString();
            return false;
        }
        cs::ApiServer::Options options;
        options.events.changes = changes;
        options.events.heartbeatMs = 1000;
        api = std::make_unique<cs::ApiServer>(&ledger, nullptr, options);
        if (!api->listen(QHostAddress::LocalHost, 0, error))
            return false;
        const auto minted = api->users()->addUser(QStringLiteral("ana"), cs::Role::Approver);
        if (!minted.ok()) {
            *error = minted.error().toString();
            return false;
        }
        token = *minted;
        return true;
    }
    const cs::LedgerWatcher &watcher() const { return *api->events()->watcher(); }
};

// The console's client on one instance's stream, keeping what it received.
struct Follower
{
    cs::EventStreamClient client;
    QSet<QString> arrived; // action ids

    explicit Follower(const Instance &instance)
    {
        QObject::connect(&client, &cs::EventStreamClient::actionChanged, &client, [this](const cs::ActionChange &change) {
            arrived.insert(change.actionId);
        });
        client.setBaseUrl(instance.api->baseUrl());
        client.setToken(instance.token);
        client.setHeartbeatTimeout(30s);
        client.start();
    }
    bool live() const { return client.state() == cs::EventStreamClient::State::Live; }
    bool has(const QString &actionId) const { return arrived.contains(actionId); }
};

QString propose(cs::Ledger &ledger, const QString &reference)
{
    const auto result = ledger.proposals().propose(cs::test::sampleInput(reference), QStringLiteral("agent-7"));
    return result.ok() ? result->record.id : QString();
}

// The same database under another application_name, so B's sessions can be told apart.
QString named(const QString &location, const QString &applicationName)
{
    return location + (location.contains(u'?') ? u'&' : u'?') + QStringLiteral("application_name=") + applicationName;
}

cs::LedgerWatcher::Options onlyNotifications()
{
    cs::LedgerWatcher::Options changes;
    changes.localCommits = false;
    changes.pollMs = kNever;
    changes.safetyPollMs = kNever;
    return changes;
}

} // namespace

class TestLiveUpdates : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    int m_serial = 0;

    QString location(const QString &name) { return cs::test::ledgerLocation(m_dir.filePath(name + u".db")); }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        qRegisterMetaType<cs::ActionChange>();
    }

    // A commit of this process reaches the stream through the commit observer alone: no poll can
    // fire and notifications are off. (The first may ride on the wake of the stream's opening; the
    // later ones only on the observer.)
    void localCommitWakesTheStream()
    {
        cs::LedgerWatcher::Options changes;
        changes.notifications = false;
        changes.pollMs = kNever;
        changes.safetyPollMs = kNever;
        Instance b;
        QString error;
        const QString where = location(QStringLiteral("local"));
        QVERIFY(!where.isEmpty());
        QVERIFY2(b.start(where, changes, &error), qPrintable(error));
        QVERIFY(!b.watcher().isSubscribed());
        Follower follower(b);
        QTRY_VERIFY_WITH_TIMEOUT(follower.live(), kWithinMs);
        for (int i = 0; i < 3; ++i) {
            const QString id = propose(b.ledger, QStringLiteral("local-%1").arg(++m_serial));
            QVERIFY(!id.isEmpty());
            QTRY_VERIFY_WITH_TIMEOUT(follower.has(id), kWithinMs);
        }
    }

    // A commit through another instance (its own Ledger: B's commit observer never hears of it)
    // reaches B's stream by NOTIFY alone. (The first may ride on the wake of B's subscription or
    // of the stream's opening; the later ones only on NOTIFY.)
    void anotherInstancesCommitReachesTheStream()
    {
        if (!cs::test::onPostgres())
            QSKIP("SQLite notifies no other process: their commits arrive by the poll (tst_api_events)");
        const QString where = location(QStringLiteral("two"));
        QVERIFY(!where.isEmpty());
        Instance b;
        QString error;
        QVERIFY2(b.start(named(where, QStringLiteral("live-b")), onlyNotifications(), &error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(b.watcher().isSubscribed(), kWithinMs);
        QVERIFY(b.watcher().listenerPid() > 0);
        cs::Ledger a;
        QVERIFY2(a.open(where).ok(), "instance A's ledger");
        Follower follower(b);
        QTRY_VERIFY_WITH_TIMEOUT(follower.live(), kWithinMs);
        for (int i = 0; i < 3; ++i) {
            const QString id = propose(a, QStringLiteral("a-to-b-%1").arg(++m_serial));
            QVERIFY(!id.isEmpty());
            QTRY_VERIFY_WITH_TIMEOUT(follower.has(id), kWithinMs);
        }
    }

    // pg_terminate_backend of B's listening session: B notices, polls (every 100 ms here) while
    // it has no subscription — a change through A still arrives — then subscribes again on a new
    // session, after which NOTIFY alone delivers again.
    void lostListenerPollsThenSubscribesAgain()
    {
        if (!cs::test::onPostgres())
            QSKIP("SQLite has no listening connection to lose");
        const QString where = location(QStringLiteral("lost"));
        QVERIFY(!where.isEmpty());
        cs::LedgerWatcher::Options changes = onlyNotifications();
        changes.pollMs = 100;
        changes.healthCheckMs = 100;
        changes.resubscribeMinMs = 6000; // the window in which only the poll can deliver
        Instance b;
        QString error;
        QVERIFY2(b.start(named(where, QStringLiteral("live-b")), changes, &error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(b.watcher().isSubscribed(), kWithinMs);
        const qint64 firstPid = b.watcher().listenerPid();
        cs::Ledger a;
        QVERIFY2(a.open(where).ok(), "instance A's ledger");
        Follower follower(b);
        QTRY_VERIFY_WITH_TIMEOUT(follower.live(), kWithinMs);

        QSignalSpy lost(&b.watcher(), &cs::LedgerWatcher::subscriptionChanged);
        QVERIFY(lost.isValid());
        QCOMPARE(cs::test::PgCluster::shared().terminateBackends(cs::test::postgresDatabaseName(where),
                                                                 QStringLiteral("live-b-listen")),
                 1);
        QTRY_VERIFY_WITH_TIMEOUT(!b.watcher().isSubscribed(), kWithinMs);
        QCOMPARE(lost.count(), 1);

        // Polling: changed() keeps coming with nothing committed, and A's changes arrive while B
        // is still without a subscription. The second is proposed after the first arrived, when
        // the one wake of the loss itself has been served: only a poll can bring it.
        QSignalSpy polls(&b.watcher(), &cs::LedgerWatcher::changed);
        QVERIFY(polls.isValid());
        QTRY_VERIFY_WITH_TIMEOUT(polls.count() >= 3, kWithinMs);
        for (int i = 0; i < 2; ++i) {
            const QString id = propose(a, QStringLiteral("lost-%1").arg(++m_serial));
            QVERIFY(!id.isEmpty());
            QTRY_VERIFY_WITH_TIMEOUT(follower.has(id), kWithinMs);
            QVERIFY2(!b.watcher().isSubscribed(), "delivered by the poll, before the subscription came back");
        }

        // Back on a new session, and the poll is the ten-minute one again. The first change after
        // it may ride on the catch-up wake of the new subscription; the second only on NOTIFY.
        QTRY_VERIFY_WITH_TIMEOUT(b.watcher().isSubscribed(), 3 * kWithinMs);
        QCOMPARE(b.watcher().subscriptions(), 2);
        QVERIFY(b.watcher().listenerPid() != firstPid);
        for (int i = 0; i < 2; ++i) {
            const QString id = propose(a, QStringLiteral("back-%1").arg(++m_serial));
            QVERIFY(!id.isEmpty());
            QTRY_VERIFY_WITH_TIMEOUT(follower.has(id), kWithinMs);
        }
    }
};

QTEST_GUILESS_MAIN(TestLiveUpdates)
#include "tst_live_updates.moc"
