// UserStore's token life cycle (server/api/userstore.h) on a real ledger (a SQLite file, or a
// PostgreSQL database under tst_userstore_postgres): the token format secret scanners match,
// expiry, rotation, disabling, last use (at most once a minute), the migration that adds them to
// an existing SQLite ledger, and the ledger file's mode.
#include "server/api/userstore.h"
#include "server/ledger/ledger.h"
#include "server/ledger/migrations.h"
#include "server/ledger/sqlstatement.h"
#include "tests/support/testledger.h"

#include <QAtomicInteger>
#include <QRegularExpression>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

#include <atomic>
#include <memory>

using namespace cs;

namespace {

// A settable clock, shared by the test and the store (ms since the epoch).
struct TestClock
{
    std::shared_ptr<std::atomic<qint64>> ms = std::make_shared<std::atomic<qint64>>(
        QDateTime(QDate(2026, 6, 1), QTime(9, 0), Qt::UTC).toMSecsSinceEpoch());
    Clock clock() const
    {
        auto shared = ms;
        return [shared] { return QDateTime::fromMSecsSinceEpoch(shared->load(), Qt::UTC); };
    }
    QDateTime now() const { return QDateTime::fromMSecsSinceEpoch(ms->load(), Qt::UTC); }
    void advance(qint64 byMs) { *ms += byMs; }
};

UserStore::Expiry at(const QDateTime &time)
{
    return UserStore::Expiry{true, time};
}

} // namespace

class TestUserStore : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<Ledger> m_ledger;
    std::unique_ptr<UserStore> m_users;
    TestClock m_clock;
    int m_serial = 0;

    QString freshPath() { return m_dir.filePath(QStringLiteral("ledger-%1.db").arg(++m_serial)); }

    UserStore::TokenState state(const QString &token)
    {
        const auto lookup = m_users->lookUpToken(token);
        if (!lookup.ok())
            qWarning() << lookup.error().toString();
        return lookup.ok() ? lookup->state : UserStore::TokenState::Unknown;
    }

    UserStore::Record record(const QString &name)
    {
        const auto all = m_users->users();
        for (const UserStore::Record &r : all.value())
            if (r.user.name == name)
                return r;
        return {};
    }

    qint64 auditRows(const QString &event)
    {
        qint64 n = -1;
        m_ledger->database().query(QStringLiteral("SELECT COUNT(*) FROM audit WHERE event = ?"), {event},
                                   [&](const sql::Statement &row) { n = row.value(0).toLongLong(); });
        return n;
    }

private slots:
    void init()
    {
        m_ledger = std::make_unique<Ledger>();
        QVERIFY(m_ledger->open(cs::test::ledgerLocation(freshPath())).ok());
        m_users = std::make_unique<UserStore>(&m_ledger->database(), m_clock.clock());
    }

    void cleanup()
    {
        m_users.reset();
        m_ledger.reset();
    }

    // One regex finds every token (docs/SECURITY.md, "Tokens and authentication").
    void tokensHaveTheScannablePrefix()
    {
        const QRegularExpression scanner(UserStore::tokenPattern());
        QCOMPARE(UserStore::tokenPattern(), QStringLiteral("\\bcst_[a-z2-7]{52}\\b"));
        for (int i = 0; i < 50; ++i) {
            const QString token = UserStore::newToken();
            QCOMPARE(token.size(), 56);
            QVERIFY2(scanner.match(QStringLiteral("export TOKEN=") + token + QStringLiteral("\n")).hasMatch(),
                     qPrintable(token));
        }
        QVERIFY(!scanner.match(QStringLiteral("cst_short")).hasMatch());
    }

    void activeTokenAuthenticates()
    {
        const auto token = m_users->addUser(QStringLiteral("ana"), Role::Approver);
        QVERIFY(token.ok());
        const auto lookup = m_users->lookUpToken(*token);
        QVERIFY(lookup.ok());
        QCOMPARE(lookup->state, UserStore::TokenState::Active);
        QCOMPARE(lookup->user.name, QStringLiteral("ana"));
        QCOMPARE(lookup->user.role, Role::Approver);
        QCOMPARE(state(UserStore::newToken()), UserStore::TokenState::Unknown);
        QCOMPARE(record(QStringLiteral("ana")).state(m_clock.now()), QStringLiteral("active"));
        QVERIFY(!record(QStringLiteral("ana")).expiresAt);
    }

    void tokenExpires()
    {
        const QDateTime expiry = m_clock.now().addDays(30);
        const auto token = m_users->addUser(QStringLiteral("ana"), Role::Approver, at(expiry));
        QVERIFY(token.ok());
        QCOMPARE(record(QStringLiteral("ana")).expiresAt.value_or(QDateTime()), expiry);
        m_clock.advance(qint64(30) * 24 * 3600 * 1000 - 1);
        QCOMPARE(state(*token), UserStore::TokenState::Active);
        m_clock.advance(1);
        QCOMPARE(state(*token), UserStore::TokenState::Expired);
        QCOMPARE(record(QStringLiteral("ana")).state(m_clock.now()), QStringLiteral("expired"));
    }

    // The backend's own actors, and "policy" (the approval policy's own approvals: a person of
    // that name would pass for them and count toward auto-approval's daily total), in any case.
    void reservedNamesAreRefused_data()
    {
        QTest::addColumn<QString>("name");
        for (const char *name : {"executor", "reconciler", "system", "webhook", "policy", "Policy", "POLICY"})
            QTest::newRow(name) << QString::fromLatin1(name);
    }
    void reservedNamesAreRefused()
    {
        QFETCH(QString, name);
        const auto refused = m_users->addUser(name, Role::Approver);
        QVERIFY(!refused.ok());
        QCOMPARE(refused.error().code(), LedgerError::Code::Invalid);
        QVERIFY2(refused.error().message().contains(QLatin1String("reserved")), qPrintable(refused.error().message()));
        QVERIFY(m_users->addUser(name + QStringLiteral("-2"), Role::Approver).ok()); // only the name itself
    }

    void expiryMustBeInTheFuture()
    {
        const auto refused = m_users->addUser(QStringLiteral("ana"), Role::Approver, at(m_clock.now()));
        QVERIFY(!refused.ok());
        QCOMPARE(refused.error().code(), LedgerError::Code::Invalid);
        QVERIFY(m_users->users()->isEmpty());
    }

    void rotationRetiresTheOldTokenAtOnce()
    {
        const auto old = m_users->addUser(QStringLiteral("ana"), Role::Approver);
        QVERIFY(old.ok());
        const auto fresh = m_users->rotateToken(QStringLiteral("ana"));
        QVERIFY(fresh.ok());
        QVERIFY(*fresh != *old);
        QCOMPARE(state(*old), UserStore::TokenState::Unknown);
        QCOMPARE(state(*fresh), UserStore::TokenState::Active);
        QCOMPARE(auditRows(QStringLiteral("user_token_rotated")), 1);
        QCOMPARE(m_users->rotateToken(QStringLiteral("nobody")).error().code(), LedgerError::Code::NotFound);
        QVERIFY(m_ledger->reader().verifyAudit()->ok);
    }

    // Without --expires a rotated token lives as long as the old one was meant to, from now.
    void rotationKeepsTheLifetime()
    {
        QVERIFY(m_users->addUser(QStringLiteral("ana"), Role::Approver, at(m_clock.now().addDays(30))).ok());
        m_clock.advance(qint64(40) * 24 * 3600 * 1000); // long expired
        const auto fresh = m_users->rotateToken(QStringLiteral("ana"));
        QVERIFY(fresh.ok());
        QCOMPARE(record(QStringLiteral("ana")).expiresAt.value_or(QDateTime()), m_clock.now().addDays(30));
        QCOMPARE(state(*fresh), UserStore::TokenState::Active);
        const auto noExpiry = m_users->rotateToken(QStringLiteral("ana"), UserStore::Expiry{true, std::nullopt});
        QVERIFY(noExpiry.ok());
        QVERIFY(!record(QStringLiteral("ana")).expiresAt);
    }

    void disabledUntilEnabled()
    {
        const auto token = m_users->addUser(QStringLiteral("ana"), Role::Approver);
        QVERIFY(token.ok());
        QVERIFY(m_users->setDisabled(QStringLiteral("ana"), true).ok());
        QCOMPARE(state(*token), UserStore::TokenState::Disabled);
        QVERIFY(m_users->setDisabled(QStringLiteral("ana"), true).ok()); // idempotent, not audited twice
        QCOMPARE(auditRows(QStringLiteral("user_disabled")), 1);
        QCOMPARE(record(QStringLiteral("ana")).state(m_clock.now()), QStringLiteral("disabled"));
        QVERIFY(m_users->setDisabled(QStringLiteral("ana"), false).ok());
        QCOMPARE(state(*token), UserStore::TokenState::Active);
        QCOMPARE(auditRows(QStringLiteral("user_enabled")), 1);
        QCOMPARE(m_users->setDisabled(QStringLiteral("nobody"), true).code(), LedgerError::Code::NotFound);
        QVERIFY(m_ledger->reader().verifyAudit()->ok);
    }

    // Recorded on success, at most once a minute: not a write per request.
    void lastUseIsRecordedCheaply()
    {
        const auto token = m_users->addUser(QStringLiteral("ana"), Role::Approver);
        QVERIFY(token.ok());
        QVERIFY(!record(QStringLiteral("ana")).lastUsedAt);
        const QDateTime first = m_clock.now();
        QCOMPARE(state(*token), UserStore::TokenState::Active);
        QCOMPARE(record(QStringLiteral("ana")).lastUsedAt.value_or(QDateTime()), first);
        m_clock.advance(UserStore::kLastUseResolutionMs - 1);
        QCOMPARE(state(*token), UserStore::TokenState::Active);
        QCOMPARE(record(QStringLiteral("ana")).lastUsedAt.value_or(QDateTime()), first); // no write
        m_clock.advance(1);
        QCOMPARE(state(*token), UserStore::TokenState::Active);
        QCOMPARE(record(QStringLiteral("ana")).lastUsedAt.value_or(QDateTime()), m_clock.now());
        // A refused token records nothing.
        QVERIFY(m_users->setDisabled(QStringLiteral("ana"), true).ok());
        const QDateTime before = m_clock.now();
        m_clock.advance(UserStore::kLastUseResolutionMs * 2);
        QCOMPARE(state(*token), UserStore::TokenState::Disabled);
        QCOMPARE(record(QStringLiteral("ana")).lastUsedAt.value_or(QDateTime()), before);
    }

    // Migration 6 on a ledger written by the previous schema (versions 1..5, a user from
    // before): the user keeps its token, which never expires, minted when the user was added.
    void migratesAnExistingLedger()
    {
        SKIP_ON_POSTGRES("writes the SQLite schema of versions 1 to 5 by hand");
        cleanup();
        const QString path = freshPath();
        const QString oldToken = UserStore::newToken();
        const qint64 addedAt = QDateTime(QDate(2025, 1, 2), QTime(3, 4), Qt::UTC).toMSecsSinceEpoch();
        {
            QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("v5"));
            db.setDatabaseName(path);
            QVERIFY(db.open());
            QSqlQuery q(db);
            QVERIFY(q.exec(QStringLiteral("CREATE TABLE schema_version (version INTEGER NOT NULL PRIMARY KEY,"
                                          " name TEXT NOT NULL, applied_at BIGINT NOT NULL)")));
            for (const Migrations::Migration &m : Migrations::all()) {
                if (m.version > 5)
                    break;
                for (const QString &statement : m.statements)
                    QVERIFY2(q.exec(statement), qPrintable(q.lastError().text()));
                QVERIFY(q.exec(QStringLiteral("INSERT INTO schema_version VALUES (%1, 'old', 0)").arg(m.version)));
            }
            QVERIFY(q.prepare(QStringLiteral("INSERT INTO users (name, role, token_hash, created_at, disabled)"
                                             " VALUES ('old-ana', 'approver', ?, ?, 0)")));
            q.addBindValue(UserStore::hashToken(oldToken));
            q.addBindValue(addedAt);
            QVERIFY2(q.exec(), qPrintable(q.lastError().text()));
            q.finish();
            db.close();
        }
        QSqlDatabase::removeDatabase(QStringLiteral("v5"));

        m_ledger = std::make_unique<Ledger>();
        QVERIFY(m_ledger->open(path).ok());
        QCOMPARE(m_ledger->schemaVersion(), Migrations::latestVersion());
        QVERIFY(Migrations::latestVersion() >= 6);
        m_users = std::make_unique<UserStore>(&m_ledger->database(), m_clock.clock());
        const UserStore::Record old = record(QStringLiteral("old-ana"));
        QCOMPARE(old.user.role, Role::Approver);
        QCOMPARE(old.tokenCreatedAt.toMSecsSinceEpoch(), addedAt);
        QVERIFY(!old.expiresAt);
        QVERIFY(!old.lastUsedAt);
        QCOMPARE(state(oldToken), UserStore::TokenState::Active);
        QVERIFY(record(QStringLiteral("old-ana")).lastUsedAt);
    }

    // Issue 12 #9: a new ledger (and its -wal and -shm) is 0600 under umask 022.
    void newLedgerIsOwnerOnly()
    {
        SKIP_ON_POSTGRES("the mode of the SQLite file and its -wal and -shm");
        cleanup();
        const mode_t previous = ::umask(022);
        const QString path = freshPath();
        m_ledger = std::make_unique<Ledger>();
        const LedgerError opened = m_ledger->open(path);
        m_users = std::make_unique<UserStore>(&m_ledger->database(), m_clock.clock());
        const bool added = m_users->addUser(QStringLiteral("ana"), Role::Approver).ok(); // the WAL has content
        ::umask(previous);
        QVERIFY(opened.ok());
        QVERIFY(added);
        for (const QString &suffix : {QString(), QStringLiteral("-wal"), QStringLiteral("-shm")}) {
            struct stat status = {};
            QVERIFY2(::stat(QFile::encodeName(path + suffix).constData(), &status) == 0, qPrintable(path + suffix));
            QCOMPARE(int(status.st_mode & 0777), 0600);
        }
    }
};

QTEST_GUILESS_MAIN(TestUserStore)
#include "tst_userstore.moc"
