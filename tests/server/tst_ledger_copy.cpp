// `countersignd migrate --from FILE --to URI` (issue 13): LedgerCopy moves a SQLite ledger with real
// history into an empty PostgreSQL database of a private cluster, and the command line takes a
// PostgreSQL URI with --db-password-file everywhere it takes --db.
//
// - copyKeepsEveryRow: every row of every table arrives equal (read back here, independently of
//   the copy's own digests), the audit chain verifies on both sides with the same last hash,
//   and the awkward texts of the audit rows (emoji, combining marks, lone surrogates that toUtf8
//   replaced) arrive byte-identical.
// - copiedLedgerKeepsWorking: the PostgreSQL ledger appends to the copied chain, and its triggers
//   refuse an UPDATE of a copied attempt (the copy did not switch them off).
// - refusesNonEmptyTarget: a second copy into the same database, and a copy into a database with
//   a table of its own, are refused and change nothing.
// - failedCopyLeavesTargetEmpty: a target whose lookups table refuses inserts stops the copy
//   midway; every table is left as empty as before. A source text PostgreSQL cannot store (a
//   lone surrogate that SQLite stored as is) stops it too, and not even the schema is left.
// - cli: the real countersignd migrate --from/--to, then audit verify and user list --db URI.
// - passwordFile: a role with a password (scram): --db-password-file works; a world-readable
//   file, a password in the URI and no password at all are refused.
#include "server/api/requestreplaystore.h"
#include "server/api/userstore.h"
#include "server/ledger/ledger.h"
#include "server/ledger/ledgercopy.h"
#include "server/ledger/migrations.h"
#include "server/policy/policy.h"

#include "tests/server/countersigndrun.h"
#include "tests/server/ledgertestsupport.h"
#include "tests/support/pgcluster.h"

#include <QFile>
#include <QProcess>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QSqlRecord>
#include <QTemporaryDir>
#include <QtTest>

using namespace cs;
using namespace cs::test;
using namespace std::chrono_literals;

namespace {

// The awkward texts of the audit rows: an emoji, combining marks, a lone surrogate inside and at
// the end of a text (toUtf8 replaces them: the replaced bytes are what is stored and hashed).
QString awkward(int i)
{
    switch (i % 4) {
    case 0:
        return QStringLiteral("refund \U0001F600 for a happy customer");
    case 1:
        return QStringLiteral("e\u0301te\u0301 \u0928\u093F combining");
    case 2:
        return QStringLiteral("lone ") + QChar(0xD800) + QStringLiteral(" surrogate");
    default:
        return QStringLiteral("ends with a lone surrogate ") + QChar(0xDC00);
    }
}

// Every row of a table as text, in key order, read with plain SELECT * (not the copy's code):
// bytes as hex, NULL as a marker.
QList<QStringList> rowsOf(QSqlDatabase &db, const QString &table, const QString &order)
{
    QList<QStringList> rows;
    QSqlQuery q(db);
    if (!q.exec(QStringLiteral("SELECT * FROM %1 ORDER BY %2").arg(table, order))) {
        qWarning() << table << q.lastError().text();
        return {{QStringLiteral("query failed")}};
    }
    while (q.next()) {
        QStringList row;
        for (int i = 0; i < q.record().count(); ++i) {
            const QVariant v = q.value(i);
            row << (v.isNull() ? QStringLiteral("<null>")
                               : v.typeId() == QMetaType::QByteArray ? QString::fromLatin1(v.toByteArray().toHex())
                                                                     : v.toString());
        }
        rows << row;
    }
    return rows;
}

} // namespace

class TestLedgerCopy : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanupTestCase();
    void copyKeepsEveryRow();
    void copiedLedgerKeepsWorking();
    void refusesNonEmptyTarget();
    void failedCopyLeavesTargetEmpty();
    void refusesTextPostgresCannotStore();
    void cli();
    void passwordFile();

private:
    void buildHistory(const QString &path);
    qint64 count(const QString &database, const QString &table) const;
    QString newDatabase();

    QTemporaryDir m_dir;
    QString m_source;
    PgCluster *m_cluster = nullptr;
    int m_databases = 0;
    qint64 m_auditRows = 0;
    QString m_copiedUri; // the database copyKeepsEveryRow filled
    QString m_copiedName;
    QString m_reasonedId; // an action proposed with the agent's reasons
};

void TestLedgerCopy::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_cluster = &PgCluster::shared();
    QVERIFY2(m_cluster->isRunning(), qPrintable(m_cluster->errorString()));
    m_source = m_dir.filePath(QStringLiteral("source.db"));
    buildHistory(m_source);
}

void TestLedgerCopy::cleanupTestCase()
{
    QSqlDatabase::removeDatabase(QStringLiteral("copy-source"));
    QSqlDatabase::removeDatabase(QStringLiteral("copy-target"));
}

QString TestLedgerCopy::newDatabase()
{
    return m_cluster->createDatabase(QStringLiteral("copy_%1").arg(++m_databases));
}

qint64 TestLedgerCopy::count(const QString &database, const QString &table) const
{
    const auto r = m_cluster->psql(database, QStringLiteral("SELECT COUNT(*) FROM %1").arg(table));
    return r.ok ? r.output.toLongLong() : -1;
}

// A SQLite ledger with the history of every table: COMPLETED, CONFIRMATION_UNKNOWN, reviewed and
// reconciled, rejected and pending actions, a partial refund, a refused resubmission, a webhook
// event, the reconciler's schedule, users and a stored API response.
void TestLedgerCopy::buildHistory(const QString &path)
{
    ManualClock clock;
    Ledger ledger;
    Ledger::Options options;
    options.clock = clock.clock();
    QVERIFY(ledger.open(path, options).ok());
    // Notes live only in the audit log (toUtf8: every variant); other columns are bound as QString,
    // which SQLite stores as valid UTF-8 unless a lone surrogate ends the text (see
    // refusesTextPostgresCannotStore): they get the first three variants.
    int next = 0;
    int notes = 0; // the four approved() proposals carry the four variants
    const auto text = [&next] { return awkward(next++ % 3); };
    const auto approved = [&](const QString &ref, const QString &parent = QString()) {
        auto input = sampleInput(ref);
        input.note = awkward(notes++);
        // The agent's reasons (migration 10): copied like every other column.
        input.justification = text() + QStringLiteral("\n\tline two");
        input.contextUrl = QStringLiteral("https://support.example.com/tickets/") + ref;
        input.facts = {{QStringLiteral("customer_said"), text()}, {QStringLiteral("order_total"), QStringLiteral("USD 99.00")}};
        input.parentId = parent;
        if (!parent.isEmpty())
            input.amount = 1000;
        const auto p = ledger.proposals().propose(input, agent());
        clock.advance(7);
        if (!p.ok())
            qWarning() << p.error().toString();
        return ledger.approvals().approve(p->record.id, approver(), text(), p->record.stateVersion).value();
    };
    const auto finish = [&](const ExecutionStore::Claim &c, Attempt::Outcome outcome, std::optional<Trigger> trigger) {
        ExecutionStore::AttemptResult result;
        result.outcome = outcome;
        result.httpStatus = outcome == Attempt::Outcome::Succeeded ? 200 : 0;
        result.providerObjectId = QStringLiteral("re_%1").arg(c.record.id);
        result.errorExcerpt = text();
        const auto f = ledger.execution().finishAttempt(c.record.id, c.attempt.seq, result, trigger, text(),
                                                        QStringLiteral("exec-1"));
        QVERIFY2(f.ok(), qPrintable(f.error().toString()));
    };

    // COMPLETED, and a partial refund of it left pending.
    const ActionRecord done = approved(QStringLiteral("done"));
    m_reasonedId = done.id;
    auto c = ledger.execution().claim(done.id, QStringLiteral("exec-1"), 30s);
    QVERIFY(c.ok());
    finish(*c, Attempt::Outcome::Succeeded, Trigger::ProviderSucceeded);
    approved(QStringLiteral("partial"), done.id);

    // CONFIRMATION_UNKNOWN with an unknown attempt, a same-key retry still open, and a schedule.
    const ActionRecord unknown = approved(QStringLiteral("unknown"));
    c = ledger.execution().claim(unknown.id, QStringLiteral("exec-1"), 30s);
    QVERIFY(c.ok());
    finish(*c, Attempt::Outcome::Unknown, Trigger::OutcomeUnknown);
    QVERIFY(ledger.evidence().scheduleReconciliation(unknown.id, 2, clock.now().addSecs(60), text()).ok());
    clock.advance(40000);
    QVERIFY(ledger.execution().acquireLease(unknown.id, QStringLiteral("reconciler"), 30s).ok());
    QVERIFY(ledger.execution().beginRetryAttempt(unknown.id, QStringLiteral("reconciler")).ok());

    // REQUIRES_REVIEW through an idempotency mismatch, a lookup, reconciled as committed.
    const ActionRecord reviewed = approved(QStringLiteral("reviewed"));
    c = ledger.execution().claim(reviewed.id, QStringLiteral("exec-1"), 30s);
    QVERIFY(c.ok());
    finish(*c, Attempt::Outcome::IdempotencyMismatch, Trigger::StopForReview);
    ProviderLookup lookup;
    lookup.actionId = reviewed.id;
    lookup.askedBy = QStringLiteral("sue");
    lookup.result = ProviderLookup::Result::Found;
    lookup.providerObjectId = QStringLiteral("re_first");
    lookup.status = QStringLiteral("succeeded");
    lookup.amount = 4000;
    lookup.currency = QStringLiteral("usd");
    lookup.excerpt = text();
    const auto l = ledger.evidence().recordLookup(lookup, std::nullopt, text());
    QVERIFY(l.ok());
    const auto r = ledger.evidence().reconcile(reviewed.id, QStringLiteral("sue"), Reconciliation::Outcome::Committed,
                                               l->lookup.seq, text(), l->record.stateVersion);
    QVERIFY(r.ok());
    // Issue 33: a second refund for it at the provider, then its discrepancy.
    ProviderLookup second = lookup;
    second.providerObjectId = QStringLiteral("re_second");
    const EvidenceFinding twice = judgeEvidence(r->record, {sightingOf(second)}, QStringLiteral("re_first"));
    QVERIFY(twice.duplicate);
    QVERIFY(ledger.evidence().recordLookup(second, std::nullopt, text(), twice).ok());
    // A changed resubmission: refused, recorded as a conflict.
    QVERIFY(ledger.proposals().propose(sampleInput(QStringLiteral("reviewed"), 4500), agent()).ok());

    // Rejected, and pending.
    const auto p = ledger.proposals().propose(sampleInput(QStringLiteral("rejected")), agent());
    QVERIFY(p.ok());
    QVERIFY(ledger.approvals().reject(p->record.id, approver(), QStringLiteral("not_eligible"), text(), p->record.stateVersion).ok());
    QVERIFY(ledger.proposals().propose(sampleInput(QStringLiteral("pending")), agent()).ok());

    // A webhook event with its lookup, users, a stored API response.
    EvidenceStore::WebhookEvent event;
    event.eventId = QStringLiteral("evt_1");
    event.type = QStringLiteral("refund.updated");
    event.actionId = done.id;
    event.disposition = QStringLiteral("recorded");
    QVERIFY(ledger.evidence().recordWebhookEvent(event, std::nullopt, std::nullopt, QStringLiteral("webhook")).ok());
    UserStore users(&ledger.database(), clock.clock());
    QVERIFY(users.addUser(QStringLiteral("alice"), Role::Approver).ok());
    QVERIFY(users.addUser(QStringLiteral("agent-7"), Role::Agent).ok());
    QVERIFY(users.setDisabled(QStringLiteral("agent-7"), true).ok());
    // The provider's word on a charge (a refund of it listed, the reasons' text variants kept).
    ChargeSnapshot charge;
    charge.targetId = sampleInput(QStringLiteral("x")).targetId;
    charge.chargeId = charge.targetId;
    charge.askedBy = QStringLiteral("proposal");
    charge.result = ChargeSnapshot::Result::Found;
    charge.amount = charge.amountCaptured = 1000000; // room for what the later tests propose on it
    charge.amountRefunded = 4000;
    charge.currency = QStringLiteral("usd");
    charge.readAt = clock.now();
    ChargeSnapshot::Refund listed;
    listed.id = QStringLiteral("re_1");
    listed.amount = 4000;
    listed.status = QStringLiteral("succeeded");
    listed.actionId = done.id;
    charge.refunds = {listed};
    QVERIFY(ledger.charges().record(charge).ok());
    RequestReplayStore replays(&ledger.database(), clock.clock(), {});
    QVERIFY(replays.begin(QStringLiteral("agent-7"), QStringLiteral("key-1"), QStringLiteral("hash"),
                          QStringLiteral("POST"), QStringLiteral("/api/v1/actions"))
                .ok());
    ApiResponse response;
    response.status = 201;
    response.body = QByteArray("{\"ok\":true}\0\xff binary", 21);
    QVERIFY(replays.complete(QStringLiteral("agent-7"), QStringLiteral("key-1"), response).ok());
    // The approval policy (migration 11): a version, and a quorum of two (a signature, then the
    // approval listing both).
    QVERIFY(ledger.policies().recordLoad(QStringLiteral("{\"rules\": [] } ") + text(), QStringLiteral("/etc/policy.json"),
                                         QStringLiteral("startup")).ok());
    PolicyRule rule;
    rule.id = QStringLiteral("dual");
    rule.requireApprovals = 2;
    ledger.approvals().setPolicy(policyOf({rule}));
    const auto quorum = ledger.proposals().propose(sampleInput(QStringLiteral("quorum")), agent());
    QVERIFY(quorum.ok());
    QVERIFY(ledger.approvals().approve(quorum->record.id, approver(), text(), quorum->record.stateVersion).ok());
    clock.advance(5);
    QVERIFY(ledger.approvals().approve(quorum->record.id, QStringLiteral("bob"), text(), quorum->record.stateVersion).ok());
    // Approval expiry (migration 13): an approval that expired unsent, then was sent under a
    // fresh one (the copy must insert the expiry before the attempt its trigger would refuse).
    rule.id = QStringLiteral("expiring");
    rule.requireApprovals = 1;
    rule.approvalExpiresAfterSeconds = 60;
    ledger.approvals().setPolicy(policyOf({rule}));
    const auto expiring = ledger.proposals().propose(sampleInput(QStringLiteral("expiring")), agent());
    QVERIFY(expiring.ok());
    QVERIFY(ledger.approvals().approve(expiring->record.id, approver(), text(), expiring->record.stateVersion).ok());
    clock.advance(61000);
    const auto expired = ledger.execution().expireDueApprovals();
    QVERIFY(expired.ok());
    QCOMPARE(expired.value(), 1);
    const auto again = ledger.reader().action(expiring->record.id);
    QVERIFY(ledger.approvals().approve(expiring->record.id, approver(), text(), again->stateVersion).ok());
    const auto sent = ledger.execution().claim(expiring->record.id, QStringLiteral("exec-copy"), std::chrono::seconds(60));
    QVERIFY2(sent.ok(), qPrintable(sent.error().toString()));
    // The stop switch (last: a pause in force would hold the claim above): one pause resumed,
    // one in force.
    const auto paused = ledger.pauses().pause(ExecutionPause::Scope::Agent, QStringLiteral("agent-7"), {}, text(),
                                              approver());
    QVERIFY(paused.ok());
    QVERIFY(ledger.pauses().resume(paused->id, approver(), text()).ok());
    // GET /health/ready's write (migration 16).
    QVERIFY(ledger.database().probeWritable(std::chrono::milliseconds(2000)).ok());
    QVERIFY(ledger.pauses().pause(ExecutionPause::Scope::Account, {}, QStringLiteral("acct_demo"),
                                  QStringLiteral("incident"), approver()).ok());

    const auto verified = ledger.reader().verifyAudit();
    QVERIFY(verified.ok() && verified->ok);
    m_auditRows = verified->rowsChecked;
    QVERIFY(m_auditRows > 20);
}

void TestLedgerCopy::copyKeepsEveryRow()
{
    const QString uri = newDatabase();
    QVERIFY(!uri.isEmpty());
    QStringList progress;
    LedgerCopy::Options options;
    options.batchRows = 3; // several batches per table
    options.progress = [&progress](const QString &table, qint64) { progress << table; };
    const auto report = LedgerCopy::copy(m_source, uri, options);
    QVERIFY2(report.ok(), qPrintable(report.error().toString()));
    QVERIFY(report->createdSchema);
    QCOMPARE(report->auditRows, m_auditRows);
    QCOMPARE(report->tables.size(), LedgerCopy::tables().size());
    QVERIFY(progress.contains(QStringLiteral("audit")));
    m_copiedUri = uri;
    m_copiedName = QStringLiteral("copy_%1").arg(m_databases);

    // Every row of every table, read back with plain SQL on both sides.
    QSqlDatabase source = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("copy-source"));
    source.setDatabaseName(m_source);
    QVERIFY(source.open());
    QSqlDatabase target = QSqlDatabase::addDatabase(QStringLiteral("QPSQL"), QStringLiteral("copy-target"));
    target.setHostName(PgCluster::host());
    target.setPort(m_cluster->port());
    target.setUserName(PgCluster::superuser());
    target.setDatabaseName(m_copiedName);
    QVERIFY2(target.open(), qPrintable(target.lastError().text()));
    const QList<std::pair<QString, QString>> tables = {
        {QStringLiteral("schema_version"), QStringLiteral("version")},
        {QStringLiteral("users"), QStringLiteral("name")},
        {QStringLiteral("actions"), QStringLiteral("id")},
        {QStringLiteral("approvals"), QStringLiteral("action_id, version")},
        {QStringLiteral("approval_expiries"), QStringLiteral("action_id, approval_version")},
        {QStringLiteral("attempts"), QStringLiteral("action_id, seq")},
        {QStringLiteral("lookups"), QStringLiteral("action_id, seq")},
        {QStringLiteral("reconciliations"), QStringLiteral("action_id, seq")},
        {QStringLiteral("conflicts"), QStringLiteral("action_id, seq")},
        {QStringLiteral("settlements"), QStringLiteral("action_id")},
        {QStringLiteral("settlement_changes"), QStringLiteral("action_id, seq")},
        {QStringLiteral("discrepancies"), QStringLiteral("action_id")},
        {QStringLiteral("audit"), QStringLiteral("seq")},
        {QStringLiteral("reconcile_schedule"), QStringLiteral("action_id")},
        {QStringLiteral("webhook_events"), QStringLiteral("event_id")},
        {QStringLiteral("api_requests"), QStringLiteral("user_name, idempotency_key")},
        {QStringLiteral("charges"), QStringLiteral("charge_key")},
        {QStringLiteral("charge_snapshots"), QStringLiteral("charge_key, seq")},
        {QStringLiteral("policy_versions"), QStringLiteral("version")},
        {QStringLiteral("approval_signatures"), QStringLiteral("action_id, seq")},
        {QStringLiteral("execution_pauses"), QStringLiteral("id")},
        {QStringLiteral("readiness_probe"), QStringLiteral("instance")},
        {QStringLiteral("action_state_counts"), QStringLiteral("state")},
        {QStringLiteral("action_requester_state_counts"), QStringLiteral("requested_by, state")},
    };
    QCOMPARE(qsizetype(tables.size()), LedgerCopy::tables().size());
    for (const auto &[table, order] : tables) {
        const QList<QStringList> before = rowsOf(source, table, order);
        QVERIFY2(!before.isEmpty(), qPrintable(table)); // the history fills every table
        QCOMPARE(rowsOf(target, table, order), before);
    }
    // The search's copy (migration 8), filled by the target's trigger; and the planner's
    // statistics, taken by the copy (pg_stats has rows only after an ANALYZE).
    QCOMPARE(count(m_copiedName, QStringLiteral("actions_search")), count(m_copiedName, QStringLiteral("actions")));
    const auto analyzed = m_cluster->psql(m_copiedName, QStringLiteral("SELECT COUNT(DISTINCT tablename) FROM pg_stats"
                                                                       " WHERE tablename IN ('actions', 'approvals', 'attempts', 'audit')"));
    QVERIFY2(analyzed.ok, qPrintable(analyzed.error));
    QCOMPARE(analyzed.output.trimmed(), QStringLiteral("4"));
    // The stored bytes of the audit text columns, byte for byte.
    QSqlQuery a(source);
    QVERIFY(a.exec(QStringLiteral("SELECT hex(CAST(reason AS BLOB)) || hex(CAST(after_json AS BLOB)) FROM audit ORDER BY seq")));
    QSqlQuery b(target);
    QVERIFY(b.exec(QStringLiteral("SELECT upper(encode(convert_to(reason, 'UTF8'), 'hex') || encode(convert_to(after_json,"
                                  " 'UTF8'), 'hex')) FROM audit ORDER BY seq")));
    int rows = 0;
    bool sawEmoji = false;
    while (a.next()) {
        QVERIFY(b.next());
        QCOMPARE(b.value(0).toString(), a.value(0).toString());
        sawEmoji = sawEmoji || a.value(0).toString().contains(QLatin1String("F09F9880"));
        ++rows;
    }
    QVERIFY(!b.next());
    QVERIFY(sawEmoji);
    QCOMPARE(rows, int(m_auditRows));

    // audit verify on both sides, with the same last hash.
    Ledger copied;
    Ledger::Options quiet;
    quiet.recoverExpiredLeasesOnOpen = false;
    QVERIFY(copied.open(uri, quiet).ok());
    const auto onTarget = copied.reader().verifyAudit();
    QVERIFY(onTarget.ok() && onTarget->ok);
    QCOMPARE(onTarget->rowsChecked, m_auditRows);
    Ledger original;
    QVERIFY(original.open(m_source, quiet).ok());
    const auto onSource = original.reader().verifyAudit();
    QVERIFY(onSource.ok() && onSource->ok);
    const auto lastOnTarget = copied.reader().auditLog(m_auditRows - 1, 1);
    const auto lastOnSource = original.reader().auditLog(m_auditRows - 1, 1);
    QVERIFY(lastOnTarget.ok() && lastOnSource.ok() && lastOnTarget->size() == 1 && lastOnSource->size() == 1);
    QCOMPARE(lastOnTarget->first().hash, lastOnSource->first().hash);
    QCOMPARE(lastOnTarget->first().hash, report->auditHead);

    // The agent's reasons, read back through the ledger on both sides.
    const auto reasonedOnSource = original.reader().action(m_reasonedId);
    const auto reasonedOnTarget = copied.reader().action(m_reasonedId);
    QVERIFY(reasonedOnSource.ok() && reasonedOnTarget.ok());
    QVERIFY(reasonedOnSource->hasReasons());
    QCOMPARE(reasonedOnSource->facts.size(), 2);
    QVERIFY(reasonedOnSource->justification.endsWith(QStringLiteral("line two")));
    QCOMPARE(reasonedOnTarget->justification, reasonedOnSource->justification);
    QCOMPARE(reasonedOnTarget->contextUrl, reasonedOnSource->contextUrl);
    QCOMPARE(reasonedOnTarget->facts, reasonedOnSource->facts);
}

void TestLedgerCopy::copiedLedgerKeepsWorking()
{
    QVERIFY2(!m_copiedUri.isEmpty(), "copyKeepsEveryRow runs first");
    {
        Ledger ledger;
        QVERIFY(ledger.open(m_copiedUri).ok());
        const auto p = ledger.proposals().propose(sampleInput(QStringLiteral("after-the-move")), agent());
        QVERIFY2(p.ok(), qPrintable(p.error().toString()));
        const auto verified = ledger.reader().verifyAudit();
        QVERIFY(verified.ok() && verified->ok);
        QVERIFY(verified->rowsChecked > m_auditRows); // appended to the copied chain
    }
    // The triggers are in force: a copied, finished attempt cannot be changed.
    const auto update = m_cluster->psql(m_copiedName, QStringLiteral("UPDATE attempts SET outcome = 'open'"
                                                                     " WHERE outcome = 'succeeded'"));
    QVERIFY(!update.ok);
    QVERIFY2(update.error.contains(QLatin1String("finished exactly once")), qPrintable(update.error));
    const auto remove = m_cluster->psql(m_copiedName, QStringLiteral("DELETE FROM audit WHERE seq = 1"));
    QVERIFY(!remove.ok);
    QVERIFY2(remove.error.contains(QLatin1String("append-only")), qPrintable(remove.error));
}

void TestLedgerCopy::refusesNonEmptyTarget()
{
    QVERIFY2(!m_copiedUri.isEmpty(), "copyKeepsEveryRow runs first");
    const qint64 auditBefore = count(m_copiedName, QStringLiteral("audit"));
    const qint64 actionsBefore = count(m_copiedName, QStringLiteral("actions"));
    const auto again = LedgerCopy::copy(m_source, m_copiedUri, {});
    QVERIFY(!again.ok());
    QCOMPARE(int(again.code()), int(LedgerError::Code::Conflict));
    QVERIFY2(again.error().message().contains(QLatin1String("not empty")), qPrintable(again.error().message()));
    QCOMPARE(count(m_copiedName, QStringLiteral("audit")), auditBefore);
    QCOMPARE(count(m_copiedName, QStringLiteral("actions")), actionsBefore);

    // A database with a table of its own is not a target either; it is left as it was.
    const QString uri = newDatabase();
    const QString name = QStringLiteral("copy_%1").arg(m_databases);
    QVERIFY(m_cluster->psql(name, QStringLiteral("CREATE TABLE invoices (id integer)")).ok);
    const auto foreign = LedgerCopy::copy(m_source, uri, {});
    QVERIFY(!foreign.ok());
    QVERIFY2(foreign.error().message().contains(QLatin1String("invoices")), qPrintable(foreign.error().message()));
    const auto tables = m_cluster->psql(name, QStringLiteral("SELECT string_agg(table_name, ',') FROM information_schema.tables"
                                                             " WHERE table_schema = 'public'"));
    QVERIFY(tables.ok);
    QCOMPARE(tables.output, QStringLiteral("invoices"));

    // Not a file, not a URI.
    QCOMPARE(int(LedgerCopy::copy(m_dir.filePath(QStringLiteral("missing.db")), uri, {}).code()),
             int(LedgerError::Code::Invalid));
    QCOMPARE(int(LedgerCopy::copy(m_source, m_dir.filePath(QStringLiteral("other.db")), {}).code()),
             int(LedgerError::Code::Invalid));
}

void TestLedgerCopy::failedCopyLeavesTargetEmpty()
{
    // An empty ledger (the schema, no rows) whose lookups table refuses every insert.
    const QString uri = newDatabase();
    const QString name = QStringLiteral("copy_%1").arg(m_databases);
    {
        Ledger empty;
        QVERIFY(empty.open(uri).ok());
    }
    QVERIFY(m_cluster->psql(name, QStringLiteral("CREATE FUNCTION no_lookups() RETURNS trigger LANGUAGE plpgsql AS $$"
                                                 " BEGIN RAISE EXCEPTION 'lookups refused for the test'; END $$;"
                                                 " CREATE TRIGGER no_lookups BEFORE INSERT ON lookups FOR EACH ROW"
                                                 " EXECUTE FUNCTION no_lookups();"))
                .ok);
    const auto failed = LedgerCopy::copy(m_source, uri, {});
    QVERIFY(!failed.ok());
    QVERIFY2(failed.error().message().contains(QLatin1String("lookups refused for the test")),
             qPrintable(failed.error().message()));
    for (const QString &table : LedgerCopy::tables()) {
        if (table != u"schema_version")
            QCOMPARE(count(name, table), qint64(0));
    }
    // What the empty ledger had: one version row per migration (numbers may leave gaps).
    QCOMPARE(count(name, QStringLiteral("schema_version")), qint64(Migrations::latestVersion()));

    // Once the table takes rows again, the same empty ledger is a target.
    QVERIFY(m_cluster->psql(name, QStringLiteral("DROP TRIGGER no_lookups ON lookups")).ok);
    const auto copied = LedgerCopy::copy(m_source, uri, {});
    QVERIFY2(copied.ok(), qPrintable(copied.error().toString()));
    QVERIFY(!copied->createdSchema);
    QCOMPARE(count(name, QStringLiteral("audit")), m_auditRows);
}

void TestLedgerCopy::refusesTextPostgresCannotStore()
{
    // SQLite stores a lone surrogate at the very end of a bound text as its three bytes (not
    // UTF-8); PostgreSQL cannot hold those as text. The copy names the row and writes nothing —
    // not even the schema it had begun to create.
    const QString path = m_dir.filePath(QStringLiteral("surrogate.db"));
    {
        Ledger ledger;
        QVERIFY(ledger.open(path).ok());
        const auto p = ledger.proposals().propose(sampleInput(QStringLiteral("odd")), agent());
        QVERIFY(p.ok());
        QVERIFY(ledger.approvals().reject(p->record.id, approver(), QStringLiteral("not_eligible"), QStringLiteral("no ") + QChar(0xD800),
                                          p->record.stateVersion).ok());
    }
    const QString uri = newDatabase();
    const QString name = QStringLiteral("copy_%1").arg(m_databases);
    const auto refused = LedgerCopy::copy(path, uri, {});
    QVERIFY(!refused.ok());
    QVERIFY2(refused.error().message().contains(QLatin1String("table approvals"))
                 && refused.error().message().contains(QLatin1String("column note")),
             qPrintable(refused.error().message()));
    const auto tables = m_cluster->psql(name, QStringLiteral("SELECT COUNT(*) FROM information_schema.tables"
                                                             " WHERE table_schema = 'public'"));
    QVERIFY(tables.ok);
    QCOMPARE(tables.output, QStringLiteral("0"));
}

void TestLedgerCopy::cli()
{
    const QString uri = newDatabase();
    const Run copied = countersignd({QStringLiteral("migrate"), QStringLiteral("--from"), m_source, QStringLiteral("--to"), uri});
    QVERIFY2(copied.exitCode == 0, qPrintable(copied.err));
    QVERIFY2(copied.out.contains(QStringLiteral("audit chain verified on both sides: %1 rows").arg(m_auditRows)),
             qPrintable(copied.out));
    QVERIFY2(copied.err.contains(QLatin1String("copied audit")), qPrintable(copied.err));

    const Run verified = countersignd({QStringLiteral("audit"), QStringLiteral("verify"), QStringLiteral("--db"), uri});
    QVERIFY2(verified.exitCode == 0, qPrintable(verified.err));
    QVERIFY2(verified.out.contains(QStringLiteral("audit log ok: %1 rows").arg(m_auditRows)), qPrintable(verified.out));
    const Run users = countersignd({QStringLiteral("user"), QStringLiteral("list"), QStringLiteral("--db"), uri});
    QVERIFY2(users.exitCode == 0, qPrintable(users.err));
    QVERIFY2(users.out.contains(QLatin1String("agent-7 agent disabled")), qPrintable(users.out));
    const Run migrated = countersignd({QStringLiteral("migrate"), QStringLiteral("--db"), uri});
    QVERIFY2(migrated.exitCode == 0, qPrintable(migrated.err));
    QVERIFY2(migrated.out.contains(QStringLiteral("at schema version %1").arg(Migrations::latestVersion())), qPrintable(migrated.out));

    const Run again = countersignd({QStringLiteral("migrate"), QStringLiteral("--from"), m_source, QStringLiteral("--to"), uri});
    QCOMPARE(again.exitCode, 1);
    QVERIFY2(again.err.contains(QLatin1String("not empty")), qPrintable(again.err));
    const Run half = countersignd({QStringLiteral("migrate"), QStringLiteral("--from"), m_source});
    QCOMPARE(half.exitCode, 2);
    QVERIFY2(half.err.contains(QLatin1String("--to URI")), qPrintable(half.err));
}

void TestLedgerCopy::passwordFile()
{
    const QString role = QStringLiteral("ledger_owner");
    const QString password = QStringLiteral("c0rrect horse; battery");
    QVERIFY(m_cluster->createRole(role, password));
    QVERIFY(!newDatabase().isEmpty());
    const QString name = QStringLiteral("copy_%1").arg(m_databases);
    QVERIFY(m_cluster->psql(name, QStringLiteral("ALTER DATABASE %1 OWNER TO %2; ALTER SCHEMA public OWNER TO %2")
                                      .arg(name, role)).ok);
    const QString uri = m_cluster->uri(name, role);
    // No libpq password from anywhere else: the test's own environment decides.
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("PGPASSWORD"));
    env.insert(QStringLiteral("PGPASSFILE"), m_dir.filePath(QStringLiteral("no-such-pgpass")));

    const QString file = m_dir.filePath(QStringLiteral("db-password"));
    QFile out(file);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(password.toUtf8() + "\n");
    out.close();
    QVERIFY(QFile::setPermissions(file, QFile::ReadOwner | QFile::WriteOwner));

    const Run none = countersignd({QStringLiteral("migrate"), QStringLiteral("--db"), uri}, false, env);
    QVERIFY2(none.exitCode != 0, qPrintable(none.out));
    QVERIFY2(none.err.contains(QLatin1String("password")), qPrintable(none.err));

    const Run added = countersignd({QStringLiteral("user"), QStringLiteral("add"), QStringLiteral("root"), QStringLiteral("--role"),
                                    QStringLiteral("admin"), QStringLiteral("--db"), uri, QStringLiteral("--db-password-file"), file},
                                   false, env);
    QVERIFY2(added.exitCode == 0, qPrintable(added.err));
    QVERIFY2(added.out.contains(QLatin1String("bearer token:")), qPrintable(added.out));
    const Run verified = countersignd({QStringLiteral("audit"), QStringLiteral("verify"), QStringLiteral("--db"), uri,
                                       QStringLiteral("--db-password-file"), file},
                                      false, env);
    QVERIFY2(verified.exitCode == 0, qPrintable(verified.err));
    QVERIFY2(verified.out.contains(QLatin1String("audit log ok: 1 rows")), qPrintable(verified.out));

    // A password file others may read is refused before anything connects.
    QVERIFY(QFile::setPermissions(file, QFile::ReadOwner | QFile::WriteOwner | QFile::ReadOther | QFile::ReadGroup));
    const Run open = countersignd({QStringLiteral("user"), QStringLiteral("list"), QStringLiteral("--db"), uri,
                                   QStringLiteral("--db-password-file"), file},
                                  false, env);
    QVERIFY(open.exitCode != 0);
    QVERIFY2(open.err.contains(QLatin1String("readable by others")), qPrintable(open.err));
    // A password in the URI is refused (it would show in the process list), even the right one.
    QString withPassword = uri;
    withPassword.replace(role + u'@', role + QStringLiteral(":c0rrect@"));
    const Run inUri = countersignd({QStringLiteral("user"), QStringLiteral("list"), QStringLiteral("--db"), withPassword}, false, env);
    QVERIFY(inUri.exitCode != 0);
    QVERIFY2(inUri.err.contains(QLatin1String("carries a password")), qPrintable(inUri.err));
    QVERIFY2(!inUri.err.contains(QLatin1String("c0rrect")), qPrintable(inUri.err));
    // A password file for a SQLite ledger makes no sense and is said so.
    const Run sqlite = countersignd({QStringLiteral("user"), QStringLiteral("list"), QStringLiteral("--db"), m_source,
                                     QStringLiteral("--db-password-file"), file},
                                    false, env);
    QVERIFY(sqlite.exitCode != 0);
    QVERIFY2(sqlite.err.contains(QLatin1String("not a SQLite file")), qPrintable(sqlite.err));
}

QTEST_GUILESS_MAIN(TestLedgerCopy)
#include "tst_ledger_copy.moc"
