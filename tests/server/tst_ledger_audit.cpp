// Invariant 9: the audit log is hash-chained and verifyAudit() finds any edit. The attacker here
// has the database (the SQLite file, or PostgreSQL's superuser under tst_ledger_audit_postgres):
// turns the append-only triggers off first, then edits or deletes rows.

#include "server/ledger/ledger.h"
#include "tests/server/ledgertestsupport.h"
#include "tests/support/testledger.h"

#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace cs;
using namespace cs::test;
using namespace std::chrono_literals;

class TestLedgerAudit : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void chainVerifiesAfterManyOperations();
    void everyMutationIsAudited();
    void editedRowIsDetected_data();
    void editedRowIsDetected();
    void deletedRowIsDetected_data();
    void deletedRowIsDetected();

private:
    void runWorkload();
    bool attack(const QStringList &statements, QString *error);
    static QString disableTrigger(const QString &sqliteTrigger);
    QList<AuditEvent> log() const { return m_store->reader().auditLog(0, 100000).value(); }

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<Ledger> m_store;
    ManualClock m_clock;
    QString m_path;
};

void TestLedgerAudit::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_path = ledgerLocation(m_dir->filePath(QStringLiteral("ledger.db")));
    m_store = std::make_unique<Ledger>();
    Ledger::Options options;
    options.clock = m_clock.clock();
    QVERIFY(m_store->open(m_path, options).ok());
    runWorkload();
}

void TestLedgerAudit::cleanup()
{
    m_store.reset();
    m_dir.reset();
}

// Every kind of mutation, several times over.
void TestLedgerAudit::runWorkload()
{
    for (int i = 0; i < 8; ++i) {
        const auto p = m_store->proposals().propose(sampleInput(QStringLiteral("w-%1").arg(i), 1000 + i), agent());
        QVERIFY(p.ok());
        m_clock.advance(7);
        ActionRecord a = p->record;
        if (i % 4 == 3) {
            QVERIFY(m_store->approvals().reject(a.id, approver(), QStringLiteral("not_eligible"), QStringLiteral("no"), a.stateVersion).ok());
            continue;
        }
        a = m_store->proposals().amendBeforeSending(a.id, approver(), 900 + i, QString(), a.stateVersion).value();
        a = m_store->approvals().approve(a.id, approver(), QStringLiteral("ok \"quoted\" ünïcode"), a.stateVersion).value();
        const auto c = m_store->execution().claim(a.id, QStringLiteral("exec-1"), 30s);
        QVERIFY(c.ok());
        QVERIFY(m_store->execution().renewLease(a.id, QStringLiteral("exec-1"), 30s).ok());
        ExecutionStore::AttemptResult result;
        result.outcome = i % 2 ? Attempt::Outcome::Succeeded : Attempt::Outcome::Unknown;
        const auto f = m_store->execution().finishAttempt(a.id, 1, result,
                                              i % 2 ? Trigger::ProviderSucceeded : Trigger::OutcomeUnknown,
                                              QStringLiteral("answer"), QStringLiteral("exec-1"));
        QVERIFY(f.ok());
        if (f->record.state == ActionState::ConfirmationUnknown) {
            ProviderLookup lookup;
            lookup.actionId = a.id;
            lookup.askedBy = QStringLiteral("reconciler");
            lookup.result = ProviderLookup::Result::Found;
            lookup.status = QStringLiteral("succeeded");
            lookup.amount = f->record.amount;
            const auto l = m_store->evidence().recordLookup(lookup, Trigger::ProviderSucceeded, QStringLiteral("found"));
            QVERIFY2(l.ok(), qPrintable(l.error().toString()));
        }
        QVERIFY(m_store->proposals().propose(sampleInput(QStringLiteral("w-%1").arg(i), 5), agent()).ok()); // conflict
    }
    // A changed resubmission of a PENDING action stops it for review.
    const auto p = m_store->proposals().propose(sampleInput(QStringLiteral("stop")), agent());
    QVERIFY(p.ok());
    const auto stopped = m_store->proposals().propose(sampleInput(QStringLiteral("stop"), 1), agent());
    QVERIFY(stopped.ok());
    QCOMPARE(toWire(stopped->record.state), QStringLiteral("REQUIRES_REVIEW"));
}

bool TestLedgerAudit::attack(const QStringList &statements, QString *error)
{
    bool ok = true;
    {
        QSqlDatabase db = openRawDatabase(m_path, QStringLiteral("attacker"), error);
        ok = db.isOpen();
        for (const QString &sql : statements) {
            QSqlQuery q(db);
            if (ok && !q.exec(sql)) {
                *error = q.lastError().text() + QStringLiteral(" [") + sql + QLatin1Char(']');
                ok = false;
            }
        }
    }
    QSqlDatabase::removeDatabase(QStringLiteral("attacker"));
    return ok;
}

// SQLite: drop the one trigger; PostgreSQL (whose triggers belong to their table): turn every
// trigger of the audit table off, which its owner may.
QString TestLedgerAudit::disableTrigger(const QString &sqliteTrigger)
{
    return onPostgres() ? QStringLiteral("ALTER TABLE audit DISABLE TRIGGER USER")
                        : QStringLiteral("DROP TRIGGER ") + sqliteTrigger;
}

void TestLedgerAudit::chainVerifiesAfterManyOperations()
{
    const QList<AuditEvent> events = log();
    QVERIFY(events.size() > 50);
    const auto v = m_store->reader().verifyAudit();
    QVERIFY(v.ok());
    QVERIFY2(v->ok, qPrintable(v->reason));
    QCOMPARE(v->rowsChecked, qint64(events.size()));
    QCOMPARE(v->firstBrokenSeq, 0);

    QCOMPARE(events.first().prevHash, QString(64, QLatin1Char('0')));
    for (qsizetype i = 0; i < events.size(); ++i) {
        QCOMPARE(events.at(i).seq, qint64(i + 1));
        QCOMPARE(events.at(i).hash, events.at(i).chainHash(events.at(i).prevHash));
        if (i > 0)
            QCOMPARE(events.at(i).prevHash, events.at(i - 1).hash);
    }

    // A fresh store on the same file sees the same verified chain, and extends it.
    m_store.reset();
    m_store = std::make_unique<Ledger>();
    QVERIFY(m_store->open(m_path).ok());
    QVERIFY(m_store->proposals().propose(sampleInput(QStringLiteral("after-reopen")), agent()).ok());
    QVERIFY(m_store->reader().verifyAudit()->ok);
    QCOMPARE(m_store->reader().verifyAudit()->rowsChecked, qint64(events.size() + 1));
}

void TestLedgerAudit::everyMutationIsAudited()
{
    QSet<QString> events;
    for (const AuditEvent &e : log()) {
        events.insert(e.event);
        QVERIFY(!e.actor.isEmpty());
        QVERIFY(e.at.isValid());
    }
    for (const QString &expected : {QStringLiteral("proposed"), QStringLiteral("approved"), QStringLiteral("rejected"),
                                    QStringLiteral("amended"), QStringLiteral("claimed"), QStringLiteral("lease_renewed"),
                                    QStringLiteral("attempt_finished"), QStringLiteral("resubmission_conflict"),
                                    QStringLiteral("lookup"), QStringLiteral("state_changed")}) {
        QVERIFY2(events.contains(expected), qPrintable(expected));
    }
}

void TestLedgerAudit::editedRowIsDetected_data()
{
    QTest::addColumn<QString>("assignment");
    QTest::addColumn<bool>("rehash"); // the attacker also recomputes the edited row's own hash

    QTest::newRow("reason") << QStringLiteral("reason = 'nothing to see'") << false;
    QTest::newRow("actor") << QStringLiteral("actor = 'mallory'") << false;
    QTest::newRow("event") << QStringLiteral("event = 'noop'") << false;
    QTest::newRow("time") << QStringLiteral("at = at + 1") << false;
    QTest::newRow("action id") << QStringLiteral("action_id = NULL") << false;
    QTest::newRow("before json") << QStringLiteral("before_json = '{\"forged\":true}'") << false;
    QTest::newRow("after json") << QStringLiteral("after_json = '{\"state\":\"COMPLETED\"}'") << false;
    QTest::newRow("hash") << QStringLiteral("hash = '" ) + QString(64, QLatin1Char('a')) + QStringLiteral("'") << false;
    QTest::newRow("prev hash") << QStringLiteral("prev_hash = '") + QString(64, QLatin1Char('b')) + QStringLiteral("'")
                               << false;
    QTest::newRow("reason, rehashed") << QStringLiteral("reason = 'nothing to see'") << true;
    QTest::newRow("actor, rehashed") << QStringLiteral("actor = 'mallory'") << true;
}

void TestLedgerAudit::editedRowIsDetected()
{
    QFETCH(QString, assignment);
    QFETCH(bool, rehash);

    const QList<AuditEvent> events = log();
    const qint64 target = events.size() / 2;
    QString error;
    QVERIFY2(attack({disableTrigger(QStringLiteral("audit_no_update")),
                     QStringLiteral("UPDATE audit SET %1 WHERE seq = %2").arg(assignment).arg(target)},
                    &error),
             qPrintable(error));
    if (rehash) {
        // Recompute the edited row's hash so it is self-consistent: the next row still points at
        // the old hash.
        AuditEvent edited = log().at(target - 1);
        QCOMPARE(edited.seq, target);
        const QString forged = edited.chainHash(edited.prevHash);
        QVERIFY2(attack({QStringLiteral("UPDATE audit SET hash = '%1' WHERE seq = %2").arg(forged).arg(target)}, &error),
                 qPrintable(error));
    }
    const auto v = m_store->reader().verifyAudit();
    QVERIFY(v.ok());
    QVERIFY(!v->ok);
    QCOMPARE(v->firstBrokenSeq, rehash ? target + 1 : target);
    QVERIFY(!v->reason.isEmpty());
}

void TestLedgerAudit::deletedRowIsDetected_data()
{
    QTest::addColumn<int>("which"); // 0 first, 1 middle
    QTest::newRow("middle row") << 1;
    QTest::newRow("first row") << 0;
}

void TestLedgerAudit::deletedRowIsDetected()
{
    QFETCH(int, which);
    const qint64 target = which == 0 ? 1 : log().size() / 2;
    QString error;
    QVERIFY2(attack({disableTrigger(QStringLiteral("audit_no_delete")),
                     QStringLiteral("DELETE FROM audit WHERE seq = %1").arg(target)},
                    &error),
             qPrintable(error));
    const auto v = m_store->reader().verifyAudit();
    QVERIFY(v.ok());
    QVERIFY(!v->ok);
    QCOMPARE(v->firstBrokenSeq, target + 1);
    QVERIFY2(v->reason.contains(QStringLiteral("missing")), qPrintable(v->reason));
}

QTEST_GUILESS_MAIN(TestLedgerAudit)
#include "tst_ledger_audit.moc"
