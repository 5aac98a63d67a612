// bench_ledger: the ledger's write rate for one action's steps (propose, approve, claim with its
// attempt row, finish the attempt -> COMPLETED: four transactions) versus raw SQLite doing the same
// inserts and updates, in the same number of transactions, at the same durability settings (WAL,
// synchronous=FULL, foreign keys on), on the same schema with its triggers, in the same run.
//
//   bench_ledger [--actions N] [--rounds R] [--dir PATH]
//
// Raw SQLite skips what the ledger adds on top: its reads and checks, the state machine, JSON
// snapshots and the SHA-256 audit chain (raw inserts the audit rows with a constant hash).
// Goal: ledger >= 0.5 x raw.

#include "server/ledger/ledger.h"
#include "tests/bench/benchstats.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QSysInfo>
#include <QTemporaryDir>
#include <QThread>

#include <sqlite3.h>

#include <algorithm>
#include <cstdio>

using namespace cs;
using cs::bench::median;
using namespace std::chrono_literals;

namespace {

void out(const QString &line)
{
    std::fputs(qPrintable(line + QLatin1Char('\n')), stdout);
    std::fflush(stdout);
}

ProposalStore::ProposalInput input(int i)
{
    ProposalStore::ProposalInput in;
    in.targetId = QStringLiteral("ch_bench");
    in.businessReference = QStringLiteral("order-%1").arg(i);
    in.amount = 1000 + i;
    in.currency = QStringLiteral("usd");
    in.reason = QStringLiteral("requested_by_customer");
    in.clientReference = QStringLiteral("ref-%1").arg(i);
    in.provider = QStringLiteral("paysim");
    return in;
}

double ledgerRun(const QString &path, int n, bool *ok)
{
    Ledger ledger;
    *ok = ledger.open(path).ok();
    QElapsedTimer timer;
    timer.start();
    for (int i = 0; i < n && *ok; ++i) {
        const auto proposed = ledger.proposals().propose(input(i), QStringLiteral("agent"));
        // Every action refunds ch_bench: possible duplicates of each other (issue 14), approved only
        // with a note saying why both are intended.
        const auto approved = proposed.ok() ? ledger.approvals().approve(proposed->record.id, QStringLiteral("approver"),
                                                                         QStringLiteral("benchmark: all intended"),
                                                                         proposed->record.stateVersion)
                                            : LedgerResult<ActionRecord>(proposed.error());
        const auto claimed = approved.ok() ? ledger.execution().claim(approved->id, QStringLiteral("bench"), 60s)
                                           : LedgerResult<ExecutionStore::Claim>(approved.error());
        if (!claimed.ok()) {
            *ok = false;
            break;
        }
        ExecutionStore::AttemptResult result;
        result.outcome = Attempt::Outcome::Succeeded;
        result.httpStatus = 200;
        result.providerObjectId = QStringLiteral("re_%1").arg(i);
        result.providerRequestId = QStringLiteral("req_%1").arg(i);
        *ok = ledger.execution().finishAttempt(claimed->record.id, claimed->attempt.seq, result, Trigger::ProviderSucceeded,
                                   QStringLiteral("provider answered 200"), QStringLiteral("bench")).ok();
    }
    return n / (double(timer.nsecsElapsed()) / 1e9);
}

// --- raw SQLite -------------------------------------------------------------------------------

class Raw
{
public:
    bool open(const QString &path)
    {
        if (sqlite3_open(path.toUtf8().constData(), &m_db) != SQLITE_OK)
            return false;
        return exec("PRAGMA journal_mode=WAL") && exec("PRAGMA synchronous=FULL") && exec("PRAGMA foreign_keys=ON")
            && exec("PRAGMA busy_timeout=5000") && prepare();
    }
    ~Raw()
    {
        for (sqlite3_stmt *s : m_statements)
            sqlite3_finalize(s);
        sqlite3_close(m_db);
    }

    bool action(int i)
    {
        const QByteArray id = "act_raw" + QByteArray::number(i).rightJustified(20, '0');
        const QByteArray key = "csk_raw_" + QByteArray::number(i);
        const QByteArray fp(64, 'f');
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        // 1 propose: the action row and its audit row.
        if (!begin() || !step(m_insertAction, {id, "refund", "charge", "ch_bench", "order-" + QByteArray::number(i),
                                                QByteArray::number(1000 + i), "usd", "requested_by_customer", "paysim",
                                                "", "agent", "ref-" + QByteArray::number(i),
                                                "{\"amount\":" + QByteArray::number(1000 + i) + "}", fp, "",
                                                QByteArray::number(now), QByteArray::number(now)})
            || !audit(id, now, "proposed") || !commit())
            return false;
        // 2 approve: the approval row, the action's key and version, audit.
        if (!begin() || !step(m_insertApproval, {id, "approver", key, fp, QByteArray::number(now)})
            || !step(m_approveAction, {key, QByteArray::number(now), id}) || !audit(id, now, "approved") || !commit())
            return false;
        // 3 claim: the action EXECUTING under a lease, the open attempt row, audit.
        if (!begin() || !step(m_claimAction, {QByteArray::number(now + 60000), QByteArray::number(now), id})
            || !step(m_insertAttempt, {id, key, fp, QByteArray::number(now)}) || !audit(id, now, "claimed") || !commit())
            return false;
        // 4 finish: the attempt succeeded, the action COMPLETED, its settlement started, audit.
        const QByteArray at = QByteArray::number(now);
        return begin() && step(m_finishAttempt, {at, "re_" + QByteArray::number(i), id})
            && step(m_completeAction, {at, id})
            && step(m_insertSettlement, {id, "re_" + QByteArray::number(i), at, at, at})
            && step(m_insertSettlementChange, {id, at}) && audit(id, now, "attempt_finished") && commit();
    }

private:
    bool exec(const char *sql) { return sqlite3_exec(m_db, sql, nullptr, nullptr, nullptr) == SQLITE_OK; }
    bool begin() { return exec("BEGIN IMMEDIATE"); }
    bool commit() { return exec("COMMIT"); }

    sqlite3_stmt *prepareOne(const char *sql)
    {
        sqlite3_stmt *s = nullptr;
        if (sqlite3_prepare_v2(m_db, sql, -1, &s, nullptr) != SQLITE_OK) {
            out(QStringLiteral("prepare failed: %1").arg(QString::fromUtf8(sqlite3_errmsg(m_db))));
            return nullptr;
        }
        m_statements << s;
        return s;
    }

    bool prepare()
    {
        m_insertAction = prepareOne(
            "INSERT INTO actions (id, kind, target_type, target_id, business_reference, amount, currency, reason,"
            " provider, provider_account, requested_by, client_reference, parent_id, proposed_payload,"
            " request_fingerprint, idempotency_key, approval_version, state, state_version, review_reason,"
            " review_requested, lease_owner, lease_expires_at, created_at, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, 0, 'PENDING', 1, '', 0, NULL, NULL, ?, ?)");
        m_insertApproval = prepareOne(
            "INSERT INTO approvals (action_id, version, decided_by, decision, note, idempotency_key,"
            " approved_fingerprint, decided_at) VALUES (?, 1, ?, 'approved', '', ?, ?, ?)");
        m_approveAction = prepareOne(
            "UPDATE actions SET idempotency_key = ?, approval_version = 1, state_version = 2, updated_at = ?"
            " WHERE id = ? AND state = 'PENDING' AND state_version = 1");
        m_claimAction = prepareOne(
            "UPDATE actions SET state = 'EXECUTING', state_version = 3, lease_owner = 'bench', lease_expires_at = ?,"
            " updated_at = ? WHERE id = ? AND state = 'PENDING' AND state_version = 2");
        m_insertAttempt = prepareOne(
            "INSERT INTO attempts (action_id, seq, idempotency_key, request_fingerprint, executor, started_at,"
            " finished_at, outcome, http_status, error_code, provider_request_id, provider_object_id, replayed,"
            " error_excerpt) VALUES (?, 1, ?, ?, 'bench', ?, NULL, 'open', 0, '', '', '', 0, '')");
        m_finishAttempt = prepareOne(
            "UPDATE attempts SET finished_at = ?, outcome = 'succeeded', http_status = 200, provider_object_id = ?"
            " WHERE action_id = ? AND seq = 1 AND outcome = 'open'");
        m_completeAction = prepareOne(
            "UPDATE actions SET state = 'COMPLETED', state_version = 4, lease_owner = NULL, lease_expires_at = NULL,"
            " updated_at = ? WHERE id = ? AND state = 'EXECUTING' AND state_version = 3");
        // Issue 18: the settlement the completing transaction starts (its row and its first change).
        m_insertSettlement = prepareOne(
            "INSERT INTO settlements (action_id, refund_id, status, failure_reason, started_at, confirmed_at,"
            " confirmed_by, settled_at, next_check_at, checks, attention, attention_since, resolved_by, resolved_at,"
            " resolution_note, follow_up_id) VALUES (?, ?, 'succeeded', '', ?, ?, 'attempt', ?, NULL, 0, 'none', NULL,"
            " '', NULL, '', '')");
        m_insertSettlementChange = prepareOne(
            "INSERT INTO settlement_changes (action_id, seq, at, from_status, to_status, failure_reason, source, evidence)"
            " VALUES (?, 1, ?, '', 'succeeded', '', 'attempt', 'attempt 1')");
        m_insertAudit = prepareOne(
            "INSERT INTO audit (seq, action_id, at, actor, event, reason, before_json, after_json, prev_hash, hash)"
            " VALUES (?, ?, ?, 'bench', ?, '', '{}', '{}', ?, ?)");
        return !m_statements.contains(nullptr) && m_statements.size() == 10;
    }

    bool step(sqlite3_stmt *s, const QList<QByteArray> &values)
    {
        sqlite3_reset(s);
        for (int i = 0; i < values.size(); ++i)
            sqlite3_bind_text(s, i + 1, values.at(i).constData(), int(values.at(i).size()), SQLITE_TRANSIENT);
        const int rc = sqlite3_step(s);
        if (rc != SQLITE_DONE) {
            out(QStringLiteral("step failed: %1").arg(QString::fromUtf8(sqlite3_errmsg(m_db))));
            exec("ROLLBACK");
            return false;
        }
        return sqlite3_changes(m_db) == 1;
    }

    bool audit(const QByteArray &id, qint64 now, const QByteArray &event)
    {
        static const QByteArray hash(64, '0');
        return step(m_insertAudit, {QByteArray::number(++m_auditSeq), id, QByteArray::number(now), event, hash, hash});
    }

    sqlite3 *m_db = nullptr;
    QList<sqlite3_stmt *> m_statements;
    sqlite3_stmt *m_insertAction = nullptr;
    sqlite3_stmt *m_insertApproval = nullptr;
    sqlite3_stmt *m_approveAction = nullptr;
    sqlite3_stmt *m_claimAction = nullptr;
    sqlite3_stmt *m_insertAttempt = nullptr;
    sqlite3_stmt *m_finishAttempt = nullptr;
    sqlite3_stmt *m_completeAction = nullptr;
    sqlite3_stmt *m_insertAudit = nullptr;
    sqlite3_stmt *m_insertSettlement = nullptr;
    sqlite3_stmt *m_insertSettlementChange = nullptr;
    qint64 m_auditSeq = 0;
};

double rawRun(const QString &path, int n, bool *ok)
{
    {
        Ledger schema; // the very same schema, triggers included, made by the ledger's migrations
        *ok = schema.open(path).ok();
    }
    Raw raw;
    *ok = *ok && raw.open(path);
    QElapsedTimer timer;
    timer.start();
    for (int i = 0; i < n && *ok; ++i)
        *ok = raw.action(i);
    return n / (double(timer.nsecsElapsed()) / 1e9);
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    parser.addOptions({
        {QStringLiteral("actions"), QStringLiteral("Actions per run."), QStringLiteral("N"), QStringLiteral("2000")},
        {QStringLiteral("rounds"), QStringLiteral("Rounds of both runs."), QStringLiteral("R"), QStringLiteral("3")},
        {QStringLiteral("dir"), QStringLiteral("Directory for the database files (default: a temporary one)."),
         QStringLiteral("path")},
    });
    parser.process(app);
    const int n = parser.value(QStringLiteral("actions")).toInt();
    const int rounds = parser.value(QStringLiteral("rounds")).toInt();
    QTemporaryDir temp(parser.isSet(QStringLiteral("dir")) ? parser.value(QStringLiteral("dir")) + QStringLiteral("/bench-XXXXXX")
                                                           : QDir::tempPath() + QStringLiteral("/bench-XXXXXX"));
    out(QStringLiteral("bench_ledger: %1 actions x 4 transactions per run, %2 rounds, WAL + synchronous=FULL in %3;"
                       " %4, %5 cores, SQLite %6")
            .arg(n).arg(rounds).arg(temp.path(), QSysInfo::prettyProductName())
            .arg(QThread::idealThreadCount()).arg(QString::fromLatin1(sqlite3_libversion())));
    QList<double> ledgerRates;
    QList<double> rawRates;
    bool allOk = true;
    for (int r = 1; r <= rounds; ++r) {
        bool rawOk = false;
        bool ledgerOk = false;
        const double raw = rawRun(temp.filePath(QStringLiteral("raw-%1.db").arg(r)), n, &rawOk);
        const double ledger = ledgerRun(temp.filePath(QStringLiteral("ledger-%1.db").arg(r)), n, &ledgerOk);
        rawRates << raw;
        ledgerRates << ledger;
        allOk = allOk && rawOk && ledgerOk;
        out(QStringLiteral("round %1: raw SQLite %2 actions/s (%3 tx/s) | ledger %4 actions/s (%5 tx/s) | ratio %6%7")
                .arg(r)
                .arg(raw, 0, 'f', 0)
                .arg(raw * 4, 0, 'f', 0)
                .arg(ledger, 0, 'f', 0)
                .arg(ledger * 4, 0, 'f', 0)
                .arg(ledger / raw, 0, 'f', 2)
                .arg(rawOk && ledgerOk ? QString() : QStringLiteral(" (A RUN FAILED)")));
    }
    const double ratio = median(ledgerRates) / median(rawRates);
    out(QStringLiteral("median: raw %1 actions/s, ledger %2 actions/s, ratio %3 (goal >= 0.50: %4)")
            .arg(median(rawRates), 0, 'f', 0)
            .arg(median(ledgerRates), 0, 'f', 0)
            .arg(ratio, 0, 'f', 2)
            .arg(!allOk ? QStringLiteral("no verdict: A RUN FAILED")
                        : ratio >= 0.5 ? QStringLiteral("met") : QStringLiteral("NOT met")));
    return allOk ? 0 : 1;
}
