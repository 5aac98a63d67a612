#include "server/ledger/pausestore.h"

#include "server/ledger/auditchain.h"
#include "server/ledger/ids.h"
#include "server/ledger/ledgerdatabase.h"
#include "server/ledger/ledgerrows.h"

namespace cs {

using namespace sql;
using namespace rows;

namespace {

const QString &pauseColumns()
{
    static const QString columns = QStringLiteral("id, scope, agent, account, reason, paused_by, paused_at,"
                                                  " resumed_by, resumed_at, resume_note");
    return columns;
}

ExecutionPause pauseFromRow(const Statement &q)
{
    ExecutionPause p;
    p.id = q.value(0).toString();
    p.scope = pauseScopeFromWire(q.value(1).toString()).value_or(ExecutionPause::Scope::All);
    p.agent = q.value(2).toString();
    p.account = q.value(3).toString();
    p.reason = q.value(4).toString();
    p.pausedBy = q.value(5).toString();
    p.pausedAt = fromMs(q.value(6).toLongLong());
    p.resumedBy = q.value(7).toString();
    p.resumedAt = timeOrNull(q.value(8));
    p.resumeNote = q.value(9).toString();
    return p;
}

bool loadPause(QSqlDatabase &db, const QString &id, ExecutionPause *out, LedgerError *e)
{
    Statement q(db);
    if (!run(q, QStringLiteral("SELECT %1 FROM execution_pauses WHERE id = ?").arg(pauseColumns()), {id}, e))
        return false;
    if (!q.next()) {
        *e = err(Code::NotFound, QStringLiteral("no pause %1").arg(id));
        return false;
    }
    *out = pauseFromRow(q);
    return true;
}

// The request's own checks: a reason, and the name its scope needs (and no other).
LedgerError checkPause(ExecutionPause::Scope scope, const QString &agent, const QString &account, const QString &reason,
                       const QString &actor)
{
    using Scope = ExecutionPause::Scope;
    LedgerError e = requireText(actor, QStringLiteral("actor"));
    if (e.ok() && reason.trimmed().isEmpty())
        e = err(Code::Invalid, QStringLiteral("reason: a pause needs a reason"));
    if (e.ok() && reason.size() > kMaxNote)
        e = err(Code::Invalid, QStringLiteral("reason: longer than %1 characters").arg(kMaxNote));
    if (e.ok() && scope == Scope::Agent)
        e = requireText(agent, QStringLiteral("agent"));
    if (e.ok() && scope == Scope::Account)
        e = requireText(account, QStringLiteral("account"));
    if (e.ok() && scope != Scope::Agent && !agent.isEmpty())
        e = err(Code::Invalid, QStringLiteral("agent: only a pause of scope agent names an agent"));
    if (e.ok() && scope != Scope::Account && !account.isEmpty())
        e = err(Code::Invalid, QStringLiteral("account: only a pause of scope account names an account"));
    return e;
}

} // namespace

QString PauseStore::notPausedSql(const QString &alias)
{
    return QStringLiteral("NOT EXISTS (SELECT 1 FROM execution_pauses x WHERE x.resumed_at IS NULL"
                          " AND (x.scope = 'all' OR (x.scope = 'agent' AND x.agent = %1.requested_by)"
                          " OR (x.scope = 'account' AND x.account = %1.provider_account)))")
        .arg(alias);
}

LedgerError PauseStore::lockForClaim(QSqlDatabase &db)
{
    if (!isPostgres(db))
        return {};
    LedgerError e;
    Statement q(db);
    static const QString sql = QStringLiteral("SELECT pg_advisory_xact_lock_shared(%1)").arg(kPauseLockKey);
    run(q, sql, {}, &e);
    return e;
}

LedgerError PauseStore::coveringIn(QSqlDatabase &db, const ActionRecord &action, std::optional<ExecutionPause> *out)
{
    out->reset();
    LedgerError e;
    Statement q(db);
    static const QString sql =
        QStringLiteral("SELECT %1 FROM execution_pauses WHERE resumed_at IS NULL AND (scope = 'all'"
                       " OR (scope = 'agent' AND agent = ?) OR (scope = 'account' AND account = ?))"
                       " ORDER BY paused_at, id LIMIT 1")
            .arg(pauseColumns());
    if (!run(q, sql, {text(action.requestedBy), text(action.providerAccount)}, &e))
        return e;
    if (q.next())
        *out = pauseFromRow(q);
    return {};
}

LedgerResult<ExecutionPause> PauseStore::pause(ExecutionPause::Scope scope, const QString &agent,
                                               const QString &account, const QString &reason, const QString &actor)
{
    LedgerError error = checkPause(scope, agent, account, reason, actor);
    if (!error.ok())
        return error;
    ExecutionPause out;
    error = m_db.write("pause", [&](QSqlDatabase &db, const QDateTime &now) -> LedgerError {
        LedgerError e;
        if (isPostgres(db)) {
            // Waits for the claims in progress to commit; the claims after it see this pause.
            Statement lock(db);
            static const QString sql = QStringLiteral("SELECT pg_advisory_xact_lock(%1)").arg(kPauseLockKey);
            if (!run(lock, sql, {}, &e))
                return e;
        }
        {
            Statement q(db);
            if (!run(q, QStringLiteral("SELECT id FROM execution_pauses WHERE resumed_at IS NULL AND scope = ?"
                                       " AND agent = ? AND account = ?"),
                     {toWire(scope), text(agent), text(account)}, &e))
                return e;
            out = ExecutionPause();
            out.scope = scope;
            out.agent = agent;
            out.account = account;
            if (q.next())
                return err(Code::Conflict, QStringLiteral("execution is already paused for %1 (%2)")
                                               .arg(out.what(), q.value(0).toString()));
        }
        out.id = QStringLiteral("pau_") + Ids::randomBase32(24);
        out.reason = reason;
        out.pausedBy = actor;
        out.pausedAt = now;
        Statement insert(db);
        if (!run(insert,
                 QStringLiteral("INSERT INTO execution_pauses (%1) VALUES (?, ?, ?, ?, ?, ?, ?, NULL, NULL, '')")
                     .arg(pauseColumns()),
                 {out.id, toWire(scope), text(agent), text(account), text(reason), text(actor), toMs(now)}, &e))
            return e;
        return AuditChain::append(db, now, QString(), actor, QStringLiteral("execution_paused"), reason, {},
                                  out.toJson());
    });
    return resultOf(error, out);
}

LedgerResult<ExecutionPause> PauseStore::resume(const QString &id, const QString &actor, const QString &note)
{
    LedgerError error = requireText(actor, QStringLiteral("actor"));
    if (error.ok())
        error = checkNote(note);
    if (!error.ok())
        return error;
    ExecutionPause out;
    error = m_db.write("resume", [&](QSqlDatabase &db, const QDateTime &now) -> LedgerError {
        LedgerError e;
        ExecutionPause before;
        if (!loadPause(db, id, &before, &e))
            return e;
        if (!before.inForce())
            return err(Code::Conflict, QStringLiteral("%1 was resumed already by %2 at %3")
                                           .arg(id, before.resumedBy, toWireTime(before.resumedAt)));
        Statement update(db);
        if (!run(update,
                 QStringLiteral("UPDATE execution_pauses SET resumed_by = ?, resumed_at = ?, resume_note = ?"
                                " WHERE id = ? AND resumed_at IS NULL"),
                 {text(actor), toMs(now), text(note), id}, &e))
            return e;
        if (update.numRowsAffected() != 1)
            return err(Code::Conflict, QStringLiteral("%1 was resumed concurrently").arg(id));
        out = before;
        out.resumedBy = actor;
        out.resumedAt = now;
        out.resumeNote = note;
        const QString why = note.isEmpty() ? QStringLiteral("resumed %1").arg(out.what())
                                           : QStringLiteral("resumed %1: %2").arg(out.what(), note);
        return AuditChain::append(db, now, QString(), actor, QStringLiteral("execution_resumed"), why,
                                  before.toJson(), out.toJson());
    });
    return resultOf(error, out);
}

LedgerResult<QList<ExecutionPause>> PauseStore::inForce() const
{
    QList<ExecutionPause> out;
    const LedgerError error = m_db.query(
        QStringLiteral("SELECT %1 FROM execution_pauses WHERE resumed_at IS NULL ORDER BY paused_at, id").arg(pauseColumns()),
        {}, [&](const Statement &row) { out << pauseFromRow(row); });
    return resultOf(error, out);
}

LedgerResult<ExecutionPause> PauseStore::get(const QString &id) const
{
    ExecutionPause out;
    const LedgerError error = m_db.read([&](QSqlDatabase &db) -> LedgerError {
        LedgerError e;
        loadPause(db, id, &out, &e);
        return e;
    });
    return resultOf(error, out);
}

} // namespace cs
