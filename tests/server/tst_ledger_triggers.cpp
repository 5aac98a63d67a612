// Invariant 2 and the append-only tables, enforced by the database itself: raw SQL through a
// separate connection (as a buggy component or a careless operator would send it) is refused by
// the schema's triggers, and the data is unchanged; the statements the ledger needs still work.
// On both engines (tests/support/testledger.h): QSQLITE on the file, QPSQL on the database.

#include "server/ledger/ledger.h"
#include "tests/server/ledgertestsupport.h"
#include "tests/support/testledger.h"

#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QSqlRecord>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace cs;
using namespace cs::test;
using namespace std::chrono_literals;

class TestLedgerTriggers : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void forbiddenStatementFails_data();
    void forbiddenStatementFails();
    void allowedStatementSucceeds_data();
    void allowedStatementSucceeds();
    void finishingTwiceFails();

private:
    QSqlDatabase raw() const { return QSqlDatabase::database(m_rawName, false); }
    // Runs sql with :sent, :pending, :open, :key, :fp bound to the fixture's values.
    bool exec(const QString &sql, QString *error = nullptr);
    QString dump();

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<Ledger> m_store;
    ManualClock m_clock;
    QString m_rawName = QStringLiteral("raw-triggers");
    ActionRecord m_sent;    // COMPLETED via review: a finished attempt, lookup, reconciliation, conflict
    ActionRecord m_pending; // approved, never sent
    ActionRecord m_open;    // EXECUTING with an open attempt
};

void TestLedgerTriggers::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    const QString path = ledgerLocation(m_dir->filePath(QStringLiteral("ledger.db")));
    m_store = std::make_unique<Ledger>();
    Ledger::Options options;
    options.clock = m_clock.clock();
    QVERIFY(m_store->open(path, options).ok());

    auto approve = [&](const QString &ref) {
        ProposalStore::ProposalInput input = sampleInput(ref);
        input.justification = QStringLiteral("the parcel was lost");
        input.contextUrl = QStringLiteral("https://support.example.com/tickets/") + ref;
        input.facts = {{QStringLiteral("order_total"), QStringLiteral("USD 99.00")}};
        const auto p = m_store->proposals().propose(input, agent());
        m_clock.advance(1);
        return m_store->approvals().approve(p->record.id, approver(), QStringLiteral("ok"), p->record.stateVersion).value();
    };
    const ActionRecord sent = approve(QStringLiteral("sent"));
    const auto c = m_store->execution().claim(sent.id, QStringLiteral("exec-1"), 30s);
    QVERIFY(c.ok());
    ExecutionStore::AttemptResult mismatch;
    mismatch.outcome = Attempt::Outcome::IdempotencyMismatch;
    QVERIFY(m_store->execution().finishAttempt(sent.id, 1, mismatch, Trigger::StopForReview, QStringLiteral("mismatch"),
                                   QStringLiteral("exec-1")).ok());
    ProviderLookup lookup;
    lookup.actionId = sent.id;
    lookup.askedBy = QStringLiteral("sue");
    lookup.result = ProviderLookup::Result::Found;
    lookup.status = QStringLiteral("succeeded");
    lookup.amount = 4000;
    const auto l = m_store->evidence().recordLookup(lookup, std::nullopt, QString());
    QVERIFY(l.ok());
    QVERIFY(m_store->evidence().reconcile(sent.id, QStringLiteral("sue"), Reconciliation::Outcome::Committed, 1, QString(),
                               l->record.stateVersion).ok());
    QVERIFY(m_store->proposals().propose(sampleInput(QStringLiteral("sent"), 4500), agent()).ok()); // a conflict row
    // Issue 18: its refund failed afterwards: the settlement's review item is open.
    ProviderLookup failed = lookup;
    failed.status = QStringLiteral("failed");
    QVERIFY(m_store->evidence().recordLookup(failed, std::nullopt, QString()).ok());
    m_sent = m_store->reader().action(sent.id).value();
    QCOMPARE(toWire(m_sent.state), QStringLiteral("COMPLETED"));
    QVERIFY(m_store->reader().settlement(sent.id).value()->needsReview());

    m_pending = approve(QStringLiteral("pending"));
    const ActionRecord open = approve(QStringLiteral("open"));
    QVERIFY(m_store->execution().claim(open.id, QStringLiteral("exec-1"), 30s).ok());
    m_open = m_store->reader().action(open.id).value();

    QString error;
    QVERIFY2(openRawDatabase(path, m_rawName, &error).isOpen(), qPrintable(error));
}

void TestLedgerTriggers::cleanup()
{
    QSqlDatabase::removeDatabase(m_rawName);
    m_store.reset();
    m_dir.reset();
}

bool TestLedgerTriggers::exec(const QString &sql, QString *error)
{
    QSqlQuery q(raw());
    if (!q.prepare(sql)) {
        if (error)
            *error = q.lastError().text();
        return false;
    }
    const QList<QPair<QString, QString>> values = {
        {QStringLiteral(":sent"), m_sent.id},
        {QStringLiteral(":pending"), m_pending.id},
        {QStringLiteral(":open"), m_open.id},
        {QStringLiteral(":key"), m_open.idempotencyKey},
        {QStringLiteral(":fp"), m_open.requestFingerprint},
    };
    for (const auto &[name, value] : values) {
        if (sql.contains(name))
            q.bindValue(name, value);
    }
    const bool ok = q.exec();
    if (!ok && error)
        *error = q.lastError().text();
    return ok;
}

// Every row of every table, in a stable order: "unchanged" means this string is identical.
QString TestLedgerTriggers::dump()
{
    QString out;
    for (const QString &table : {QStringLiteral("actions"), QStringLiteral("approvals"), QStringLiteral("attempts"),
                                 QStringLiteral("lookups"), QStringLiteral("reconciliations"),
                                 QStringLiteral("conflicts"), QStringLiteral("audit"), QStringLiteral("settlements"),
                                 QStringLiteral("settlement_changes")}) {
        QSqlQuery q(raw());
        if (!q.exec(QStringLiteral("SELECT * FROM %1 ORDER BY 1, 2").arg(table)))
            return QStringLiteral("dump failed: ") + q.lastError().text();
        out += table + QLatin1Char('\n');
        while (q.next()) {
            for (int i = 0; i < q.record().count(); ++i)
                out += q.value(i).toString() + QLatin1Char('|');
            out += QLatin1Char('\n');
        }
    }
    return out;
}

void TestLedgerTriggers::forbiddenStatementFails_data()
{
    QTest::addColumn<QString>("sql");

    // Invariant 2: the payload, fingerprint and key of a sent action are frozen.
    QTest::newRow("UPDATE amount after an attempt") << QStringLiteral("UPDATE actions SET amount = 4500 WHERE id = :sent");
    QTest::newRow("UPDATE key after an attempt")
        << QStringLiteral("UPDATE actions SET idempotency_key = 'csk_fresh' WHERE id = :sent");
    QTest::newRow("UPDATE fingerprint after an attempt")
        << QStringLiteral("UPDATE actions SET request_fingerprint = 'ff' WHERE id = :sent");
    QTest::newRow("UPDATE amount and fingerprint together")
        << QStringLiteral("UPDATE actions SET amount = 4500, request_fingerprint = 'ff' WHERE id = :open");
    QTest::newRow("UPDATE reason after an attempt") << QStringLiteral("UPDATE actions SET reason = 'fraudulent' WHERE id = :open");
    QTest::newRow("UPDATE currency after an attempt") << QStringLiteral("UPDATE actions SET currency = 'eur' WHERE id = :sent");
    QTest::newRow("UPDATE target after an attempt") << QStringLiteral("UPDATE actions SET target_id = 'ch_other' WHERE id = :sent");
    QTest::newRow("UPDATE target type after an attempt")
        << QStringLiteral("UPDATE actions SET target_type = 'payment_intent' WHERE id = :sent");
    QTest::newRow("UPDATE business reference after an attempt")
        << QStringLiteral("UPDATE actions SET business_reference = 'x' WHERE id = :sent");
    QTest::newRow("UPDATE provider after an attempt") << QStringLiteral("UPDATE actions SET provider = 'stripe' WHERE id = :sent");
    QTest::newRow("UPDATE provider account after an attempt")
        << QStringLiteral("UPDATE actions SET provider_account = 'acct_x' WHERE id = :sent");
    QTest::newRow("UPDATE kind after an attempt") << QStringLiteral("UPDATE actions SET kind = 'payout' WHERE id = :sent");
    QTest::newRow("UPDATE requested_by after an attempt")
        << QStringLiteral("UPDATE actions SET requested_by = 'mallory' WHERE id = :sent");
    QTest::newRow("UPDATE client reference after an attempt")
        << QStringLiteral("UPDATE actions SET client_reference = 'other' WHERE id = :sent");
    QTest::newRow("UPDATE parent after an attempt") << QStringLiteral("UPDATE actions SET parent_id = :pending WHERE id = :sent");
    QTest::newRow("UPDATE key to NULL-like empty") << QStringLiteral("UPDATE actions SET idempotency_key = '' WHERE id = :open");
    QTest::newRow("UPDATE id") << QStringLiteral("UPDATE actions SET id = 'act_other' WHERE id = :pending");
    QTest::newRow("UPDATE proposed payload") << QStringLiteral("UPDATE actions SET proposed_payload = '{}' WHERE id = :pending");

    // Issue 19: the agent's reasons never change, sent or not (the approver read them).
    QTest::newRow("UPDATE justification before any attempt")
        << QStringLiteral("UPDATE actions SET justification = 'changed' WHERE id = :pending");
    QTest::newRow("UPDATE justification after an attempt")
        << QStringLiteral("UPDATE actions SET justification = '' WHERE id = :sent");
    QTest::newRow("UPDATE context_url before any attempt")
        << QStringLiteral("UPDATE actions SET context_url = 'https://evil.example.com/' WHERE id = :pending");
    QTest::newRow("UPDATE context_url while executing")
        << QStringLiteral("UPDATE actions SET context_url = '' WHERE id = :open");
    QTest::newRow("UPDATE facts before any attempt")
        << QStringLiteral("UPDATE actions SET facts = '{\"a\":\"b\"}' WHERE id = :pending");
    QTest::newRow("UPDATE facts after an attempt") << QStringLiteral("UPDATE actions SET facts = '{}' WHERE id = :sent");
    QTest::newRow("UPDATE amount and justification before any attempt")
        << QStringLiteral("UPDATE actions SET amount = 4100, justification = 'other' WHERE id = :pending");

    QTest::newRow("DELETE from actions") << QStringLiteral("DELETE FROM actions WHERE id = :pending");
    QTest::newRow("DELETE all actions") << QStringLiteral("DELETE FROM actions");
    QTest::newRow("DELETE from attempts") << QStringLiteral("DELETE FROM attempts WHERE action_id = :sent");
    QTest::newRow("DELETE an open attempt") << QStringLiteral("DELETE FROM attempts WHERE action_id = :open");
    QTest::newRow("DELETE from approvals") << QStringLiteral("DELETE FROM approvals WHERE action_id = :sent");
    QTest::newRow("DELETE from lookups") << QStringLiteral("DELETE FROM lookups WHERE action_id = :sent");
    QTest::newRow("DELETE from reconciliations") << QStringLiteral("DELETE FROM reconciliations WHERE action_id = :sent");
    QTest::newRow("DELETE from conflicts") << QStringLiteral("DELETE FROM conflicts WHERE action_id = :sent");
    QTest::newRow("DELETE from audit") << QStringLiteral("DELETE FROM audit WHERE seq = 1");
    QTest::newRow("DELETE all audit") << QStringLiteral("DELETE FROM audit");

    QTest::newRow("UPDATE audit") << QStringLiteral("UPDATE audit SET reason = 'nothing happened' WHERE seq = 2");
    QTest::newRow("UPDATE audit hash") << QStringLiteral("UPDATE audit SET hash = prev_hash");
    QTest::newRow("UPDATE approval key")
        << QStringLiteral("UPDATE approvals SET idempotency_key = 'csk_forged' WHERE action_id = :pending");
    QTest::newRow("UPDATE approved fingerprint")
        << QStringLiteral("UPDATE approvals SET approved_fingerprint = 'ff' WHERE action_id = :pending");
    QTest::newRow("UPDATE approval decision") << QStringLiteral("UPDATE approvals SET decision = 'rejected'");
    QTest::newRow("UPDATE lookup") << QStringLiteral("UPDATE lookups SET status = 'failed' WHERE action_id = :sent");
    QTest::newRow("UPDATE reconciliation")
        << QStringLiteral("UPDATE reconciliations SET outcome = 'not_committed' WHERE action_id = :sent");
    QTest::newRow("UPDATE conflict") << QStringLiteral("UPDATE conflicts SET conflicting_payload = '{}'");

    // Attempts: finished exactly once; identity never changes.
    QTest::newRow("re-finish a finished attempt")
        << QStringLiteral("UPDATE attempts SET outcome = 'succeeded' WHERE action_id = :sent AND seq = 1");
    QTest::newRow("re-open a finished attempt")
        << QStringLiteral("UPDATE attempts SET outcome = 'open', finished_at = NULL WHERE action_id = :sent");
    QTest::newRow("edit a finished attempt's excerpt")
        << QStringLiteral("UPDATE attempts SET error_excerpt = 'fine' WHERE action_id = :sent");
    QTest::newRow("finish while changing the key")
        << QStringLiteral("UPDATE attempts SET outcome = 'succeeded', idempotency_key = 'csk_x' WHERE action_id = :open");
    QTest::newRow("finish while changing the fingerprint")
        << QStringLiteral("UPDATE attempts SET outcome = 'unknown', request_fingerprint = 'ff' WHERE action_id = :open");
    QTest::newRow("finish while changing started_at")
        << QStringLiteral("UPDATE attempts SET outcome = 'unknown', started_at = 0 WHERE action_id = :open");
    QTest::newRow("finish while changing seq")
        << QStringLiteral("UPDATE attempts SET outcome = 'unknown', seq = 9 WHERE action_id = :open");
    QTest::newRow("change an open attempt's key without finishing")
        << QStringLiteral("UPDATE attempts SET idempotency_key = 'csk_x' WHERE action_id = :open");

    // Invariants 3 and 4: attempts are born open with their action's one key and fingerprint.
    const QString insert = QStringLiteral(
        "INSERT INTO attempts (action_id, seq, idempotency_key, request_fingerprint, executor, started_at, outcome,"
        " http_status, error_code, provider_request_id, provider_object_id, replayed, error_excerpt)"
        " VALUES (%1, 0, '', '', '', 0, '')");
    QTest::newRow("INSERT attempt with a different key")
        << insert.arg(QStringLiteral(":open, 2, 'csk_different', :fp, 'exec-2', 1, 'open'"));
    QTest::newRow("INSERT attempt with a different fingerprint")
        << insert.arg(QStringLiteral(":open, 2, :key, 'ff', 'exec-2', 1, 'open'"));
    QTest::newRow("INSERT attempt for an action with another key")
        << insert.arg(QStringLiteral(":pending, 1, :key, :fp, 'exec-2', 1, 'open'"));
    QTest::newRow("INSERT attempt born finished")
        << insert.arg(QStringLiteral(":open, 2, :key, :fp, 'exec-2', 1, 'succeeded'"));
    QTest::newRow("INSERT attempt with an empty key")
        << insert.arg(QStringLiteral(":sent, 2, '', :fp, 'exec-2', 1, 'open'"));

    // Issue 18: a settlement exists only for a COMPLETED action; failed is final; a review item is
    // never reopened or removed; the history is append-only.
    QTest::newRow("INSERT settlement of an action not COMPLETED")
        << QStringLiteral("INSERT INTO settlements (action_id, refund_id, status, failure_reason, started_at, confirmed_at,"
                          " confirmed_by, checks, attention, resolved_by, resolution_note, follow_up_id)"
                          " VALUES (:pending, 're_x', 'succeeded', '', 1, 1, 'lookup', 0, 'none', '', '', '')");
    QTest::newRow("UPDATE a failed settlement to succeeded")
        << QStringLiteral("UPDATE settlements SET status = 'succeeded' WHERE action_id = :sent");
    QTest::newRow("UPDATE an open review item back to none")
        << QStringLiteral("UPDATE settlements SET attention = 'none', attention_since = NULL WHERE action_id = :sent");
    QTest::newRow("DELETE a settlement") << QStringLiteral("DELETE FROM settlements WHERE action_id = :sent");
    QTest::newRow("UPDATE a settlement change")
        << QStringLiteral("UPDATE settlement_changes SET to_status = 'succeeded' WHERE action_id = :sent");
    QTest::newRow("DELETE a settlement change") << QStringLiteral("DELETE FROM settlement_changes WHERE action_id = :sent");
}

void TestLedgerTriggers::forbiddenStatementFails()
{
    QFETCH(QString, sql);
    const QString before = dump();
    QVERIFY(!before.startsWith(QStringLiteral("dump failed")));
    QString error;
    QVERIFY2(!exec(sql, &error), qPrintable(QStringLiteral("accepted: ") + sql));
    QVERIFY2(error.contains(QStringLiteral("countersign")) || error.contains(QStringLiteral("constraint")),
             qPrintable(error));
    QCOMPARE(dump(), before);
    QVERIFY(m_store->reader().verifyAudit()->ok);
}

void TestLedgerTriggers::allowedStatementSucceeds_data()
{
    QTest::addColumn<QString>("sql");

    QTest::newRow("UPDATE amount before any attempt")
        << QStringLiteral("UPDATE actions SET amount = 4100, request_fingerprint = 'ff', idempotency_key = ''"
                          " WHERE id = :pending");
    QTest::newRow("state change after an attempt")
        << QStringLiteral("UPDATE actions SET state = 'CONFIRMATION_UNKNOWN', state_version = state_version + 1,"
                          " lease_owner = NULL, lease_expires_at = NULL WHERE id = :open");
    QTest::newRow("review bookkeeping after an attempt")
        << QStringLiteral("UPDATE actions SET review_reason = 'x', review_requested = 1, updated_at = 5 WHERE id = :sent");
    QTest::newRow("finish an open attempt once")
        << QStringLiteral("UPDATE attempts SET outcome = 'unknown', finished_at = 5, error_excerpt = 'timeout'"
                          " WHERE action_id = :open AND seq = 1");
    QTest::newRow("decide an open settlement review item")
        << QStringLiteral("UPDATE settlements SET attention = 'closed', resolved_by = 'sue', resolved_at = 9,"
                          " resolution_note = 'paid by transfer' WHERE action_id = :sent");
    QTest::newRow("INSERT same-key attempt")
        << QStringLiteral("INSERT INTO attempts (action_id, seq, idempotency_key, request_fingerprint, executor,"
                          " started_at, outcome, http_status, error_code, provider_request_id, provider_object_id,"
                          " replayed, error_excerpt) VALUES (:open, 2, :key, :fp, 'exec-2', 1, 'open', 0, '', '', '',"
                          " 0, '')");
}

void TestLedgerTriggers::allowedStatementSucceeds()
{
    QFETCH(QString, sql);
    const QString before = dump();
    QString error;
    QVERIFY2(exec(sql, &error), qPrintable(error));
    QVERIFY(dump() != before);
}

void TestLedgerTriggers::finishingTwiceFails()
{
    const QString finish = QStringLiteral("UPDATE attempts SET outcome = 'succeeded', finished_at = 5"
                                          " WHERE action_id = :open AND seq = 1");
    QString error;
    QVERIFY2(exec(finish, &error), qPrintable(error));
    const QString before = dump();
    QVERIFY(!exec(QStringLiteral("UPDATE attempts SET outcome = 'rejected', finished_at = 6"
                                 " WHERE action_id = :open AND seq = 1"),
                  &error));
    QVERIFY2(error.contains(QStringLiteral("finished exactly once")), qPrintable(error));
    QCOMPARE(dump(), before);
    // Once a key has been used, the action's payload is frozen even though the open attempt is gone.
    QVERIFY(!exec(QStringLiteral("UPDATE actions SET amount = 1 WHERE id = :open")));
}

QTEST_GUILESS_MAIN(TestLedgerTriggers)
#include "tst_ledger_triggers.moc"
