#include "server/ledger/ledgerwatcher.h"

#include "server/ledger/auditchain.h"
#include "server/ledger/ledgerconnections.h"
#include "server/ledger/ledgerdatabase.h"
#include "server/ledger/ledgerlog.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QMutex>
#include <QMutexLocker>
#include <QSqlDatabase>
#include <QSqlDriver>
#include <QSqlError>
#include <QSqlQuery>
#include <QTimer>

#include <algorithm>
#include <future>

namespace cs {

// The commit observer's way back to the watcher: cleared (under its mutex) before the watcher
// goes, since a committing thread may still hold a copy of the observer after it was removed.
struct LedgerWatcher::ObserverTarget
{
    QMutex mutex;
    LedgerWatcher *watcher = nullptr;
};

// Everything that runs on the watcher's thread: the poll, the listening connection, its health
// checks and the subscriptions after a loss.
class LedgerWatcher::Listener : public QObject
{
public:
    Listener(LedgerWatcher *watcher, QEventLoop *loop)
        : m_watcher(watcher), m_loop(loop), m_options(watcher->m_options), m_poll(this), m_health(this),
          m_resubscribe(this)
    {
        m_resubscribe.setSingleShot(true);
        connect(&m_poll, &QTimer::timeout, this, [this] { emit m_watcher->changed(); });
        connect(&m_health, &QTimer::timeout, this, &Listener::checkHealth);
        connect(&m_resubscribe, &QTimer::timeout, this, &Listener::subscribe);
    }

    void begin()
    {
        m_poll.setInterval(std::max(1, m_options.pollMs));
        m_poll.start();
        const bool postgres = m_watcher->m_database->engine() == sql::Engine::Postgres;
        if (postgres && m_options.notifications) {
            m_health.setInterval(std::max(1, m_options.healthCheckMs));
            m_backoffMs = std::max(1, m_options.resubscribeMinMs);
            subscribe();
        }
    }

    void quit() { m_loop->quit(); }

    void stop()
    {
        m_poll.stop();
        m_health.stop();
        m_resubscribe.stop();
        if (m_db.isValid())
            dropSession();
    }

private:
    void subscribe()
    {
        LedgerError error;
        QSqlDatabase db = m_watcher->m_database->connection(&error);
        qint64 pid = 0;
        QString why;
        if (!error.ok()) {
            why = error.toString();
        } else {
            // Named apart from the ledger's other sessions, so an operator (or a test) can find it.
            QSqlQuery q(db);
            if (q.exec(QStringLiteral("SELECT pg_backend_pid(), set_config('application_name',"
                                      " current_setting('application_name') || '-listen', false)"))
                && q.next()) {
                pid = q.value(0).toLongLong();
            } else {
                why = q.lastError().text();
            }
        }
        if (why.isEmpty()) {
            QObject::disconnect(m_notification);
            m_notification = connect(db.driver(), &QSqlDriver::notification, this,
                                     [this](const QString &channel, QSqlDriver::NotificationSource, const QVariant &) {
                                         if (channel == AuditChain::changesChannel())
                                             emit m_watcher->changed();
                                     });
            if (!db.driver()->subscribeToNotification(AuditChain::changesChannel()))
                why = QStringLiteral("LISTEN failed: ") + db.driver()->lastError().text();
        }
        if (!why.isEmpty()) {
            QObject::disconnect(m_notification);
            if (db.isValid())
                db.close(); // a fresh session next time
            if (!m_failing)
                qCWarning(lcLedger) << "cannot listen for changes on" << m_watcher->m_database->path() << ":" << why
                                    << "- polling the audit log every" << m_options.pollMs << "ms meanwhile";
            m_failing = true;
            m_resubscribe.start(m_backoffMs);
            m_backoffMs = std::min(std::max(1, m_options.resubscribeMaxMs), m_backoffMs * 2);
            return;
        }
        m_db = db;
        if (m_lostFor.isValid())
            qCWarning(lcLedger) << "listening for changes on" << m_watcher->m_database->path() << "again after"
                                << m_lostFor.elapsed() << "ms";
        else
            qCInfo(lcLedger) << "listening for changes on" << m_watcher->m_database->path() << "(backend" << pid << ")";
        m_lostFor.invalidate();
        m_failing = false;
        m_backoffMs = std::max(1, m_options.resubscribeMinMs);
        m_poll.setInterval(std::max(1, m_options.safetyPollMs));
        m_health.start();
        m_watcher->setSubscribed(true, pid);
        emit m_watcher->changed(); // whatever was committed before LISTEN took effect
    }

    void checkHealth()
    {
        if (!m_db.isValid())
            return;
        bool healthy = !LedgerConnections::isBroken(m_db);
        if (healthy) {
            QSqlQuery q(m_db);
            healthy = q.exec(QStringLiteral("SELECT 1"));
        }
        if (healthy)
            return;
        qCWarning(lcLedger) << "lost the connection listening for changes on" << m_watcher->m_database->path()
                            << "- polling the audit log every" << m_options.pollMs << "ms until it is back";
        m_lostFor.start();
        dropSession();
        m_poll.setInterval(std::max(1, m_options.pollMs));
        emit m_watcher->changed(); // a notification may have been lost with the session
        m_resubscribe.start(m_backoffMs);
    }

    // Closed, so that the next subscription opens a new session (QPSQL keeps the subscription
    // list of a connection until it is closed).
    void dropSession()
    {
        QObject::disconnect(m_notification);
        m_health.stop();
        m_db.close();
        m_db = QSqlDatabase();
        m_watcher->setSubscribed(false, 0);
    }

    LedgerWatcher *m_watcher;
    QEventLoop *m_loop;
    const Options m_options;
    QTimer m_poll;
    QTimer m_health;
    QTimer m_resubscribe;
    QSqlDatabase m_db; // valid while subscribed
    QMetaObject::Connection m_notification;
    QElapsedTimer m_lostFor;
    int m_backoffMs = 250;
    bool m_failing = false;
};

LedgerWatcher::LedgerWatcher(LedgerDatabase *database, Options options, QObject *parent)
    : QObject(parent), m_database(database), m_options(options)
{
}

LedgerWatcher::~LedgerWatcher()
{
    if (m_observerTarget) {
        {
            QMutexLocker locker(&m_observerTarget->mutex);
            m_observerTarget->watcher = nullptr;
        }
        m_database->removeCommitObserver(m_observerId);
    }
    if (m_thread.joinable()) {
        Listener *listener = m_listener;
        QMetaObject::invokeMethod(listener, [listener] { listener->quit(); }, Qt::QueuedConnection);
        m_thread.join();
        m_listener = nullptr;
    }
}

void LedgerWatcher::start()
{
    if (m_thread.joinable())
        return;
    if (m_options.localCommits) {
        m_observerTarget = std::make_shared<ObserverTarget>();
        m_observerTarget->watcher = this;
        // On the committing thread: only posts (queued receivers), never waits for them.
        m_observerId = m_database->addCommitObserver([target = m_observerTarget](qint64) {
            QMutexLocker locker(&target->mutex);
            if (target->watcher)
                emit target->watcher->changed();
        });
    }
    std::promise<Listener *> ready;
    std::future<Listener *> listener = ready.get_future();
    m_thread = std::thread([this, &ready] {
        QEventLoop loop; // Qt adopts the thread: timers, socket notifiers and queued calls work
        Listener self(this, &loop);
        ready.set_value(&self);
        self.begin();
        loop.exec();
        self.stop();
    });
    m_listener = listener.get();
}

void LedgerWatcher::setSubscribed(bool subscribed, qint64 pid)
{
    m_listenerPid.store(pid);
    if (subscribed)
        m_subscriptions.fetch_add(1);
    if (m_subscribed.exchange(subscribed) != subscribed)
        emit subscriptionChanged(subscribed);
}

} // namespace cs
