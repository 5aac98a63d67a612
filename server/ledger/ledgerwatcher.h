#pragma once

#include <QObject>

#include <atomic>
#include <memory>
#include <thread>

namespace cs {

class LedgerDatabase;

// Tells when the ledger may hold new audit rows, wherever they were written: changed() is emitted
//   - at once for every commit of this process that appended audit rows (the commit observer of
//     LedgerDatabase), on the committing thread, without blocking it;
//   - on PostgreSQL, for every commit of any instance (`NOTIFY countersign_changes`, sent by the
//     audit chain inside each such transaction and delivered after its COMMIT), received on a
//     connection of its own that LISTENs on a thread of its own;
//   - on a poll timer, as a safety net: every Options::pollMs while there is no subscription
//     (SQLite, where another process on the same file notifies nobody; notifications disabled;
//     the listening connection lost), every Options::safetyPollMs while subscribed.
// A receiver reads what is new itself (the audit log after the last seq it has seen): changed()
// carries no rows and may come more often than there are changes — coalesce.
//
// The listening connection is checked every Options::healthCheckMs (libpq's status, then
// `SELECT 1`): Qt's QPSQL driver neither notices a lost session by itself nor subscribes again.
// When it is lost the watcher polls every pollMs and subscribes again on a new connection with
// backoff (resubscribeMinMs doubling to resubscribeMaxMs), then emits changed() once for what
// it may have missed meanwhile. A loss and a return are logged as warnings (countersign.ledger).
// The listening session's application_name is the ledger's with "-listen" appended.
// Notifications need a direct session with PostgreSQL: through PgBouncer in transaction (or
// statement) pooling mode LISTEN seems to work but nothing is delivered — then only the safety
// poll brings other instances' changes.
//
// Receivers must connect with Qt::QueuedConnection: changed() is emitted on whichever thread
// committed, which may be the receiver's own, inside LedgerDatabase::write. Create and destroy
// it on one thread; the database must be open before start() and outlive this object.
class LedgerWatcher : public QObject
{
    Q_OBJECT
public:
    struct Options
    {
        bool localCommits = true;   // changed() for this process's own commits
        bool notifications = true;  // PostgreSQL: LISTEN for every instance's commits
        int pollMs = 150;           // the poll while not subscribed
        int safetyPollMs = 1000;    // the poll while subscribed
        int healthCheckMs = 1000;   // how often the listening connection is checked
        int resubscribeMinMs = 250; // backoff of new subscriptions after a loss
        int resubscribeMaxMs = 5000;
    };

    LedgerWatcher(LedgerDatabase *database, Options options, QObject *parent = nullptr);
    ~LedgerWatcher() override;

    // Starts the watcher's thread (its timers, and its subscription on PostgreSQL). Once.
    void start();
    const Options &options() const { return m_options; }

    // Listening now (PostgreSQL, notifications on, the session healthy as last checked).
    bool isSubscribed() const { return m_subscribed.load(); }
    // The listening session's backend pid (0 while not subscribed), for pg_terminate_backend.
    qint64 listenerPid() const { return m_listenerPid.load(); }
    // Times a subscription was made: 1 after the first, +1 each time it came back after a loss.
    int subscriptions() const { return m_subscriptions.load(); }

signals:
    void changed();
    void subscriptionChanged(bool subscribed);

private:
    class Listener;
    struct ObserverTarget;

    void setSubscribed(bool subscribed, qint64 pid);

    LedgerDatabase *m_database;
    const Options m_options;
    // A std::thread, not a QThread: join() returns only after the thread's thread_local
    // destructors (its ledger connection) ran, so the database may be destroyed right after.
    std::thread m_thread;
    Listener *m_listener = nullptr; // lives on m_thread
    std::shared_ptr<ObserverTarget> m_observerTarget;
    int m_observerId = 0;
    std::atomic<bool> m_subscribed{false};
    std::atomic<qint64> m_listenerPid{0};
    std::atomic<int> m_subscriptions{0};
};

} // namespace cs
