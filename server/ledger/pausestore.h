#pragma once

#include "server/ledger/ledgerresult.h"

#include "models/actionrecord.h"
#include "models/executionpause.h"

#include <QList>
#include <QSqlDatabase>
#include <QString>

#include <optional>

namespace cs {

class LedgerDatabase;

// The stop switch (issue 14; docs/EXECUTION.md, "Pausing execution"): pauses of execution for
// everything, one agent or one provider account, durable in the ledger (table execution_pauses,
// migration 12) so every instance on a shared database sees them. While a pause is in force no
// action it covers is claimed; nothing else changes — what is in flight finishes, the reconciler
// keeps reconciling, proposals and approvals go on.
//
// The race with a claim: a pause and a claim never overlap. On SQLite both are write
// transactions (one at a time). On PostgreSQL a claim's transaction holds kPauseLockKey shared
// from before its candidate read to its COMMIT (lockForClaim) and pause() takes it exclusively: a
// pause committed before a claim's transaction reaches its candidate read is seen by that read (a
// new statement under READ COMMITTED), and a claim already past it commits before the pause does.
// Either way, once pause() has returned nothing it covers is claimed. Thread-safe.
class PauseStore
{
public:
    explicit PauseStore(LedgerDatabase &database) : m_db(database) {}

    // A new pause in force, with one audit row ("execution_paused", actor, reason). Invalid: a
    // missing reason, an agent or account missing for its scope (or given for another scope),
    // text too long. Conflict: the same pause (scope and name) is already in force.
    LedgerResult<ExecutionPause> pause(ExecutionPause::Scope scope, const QString &agent, const QString &account,
                                       const QString &reason, const QString &actor);
    // Ends pause `id` (audit row "execution_resumed" with the note). NotFound; Conflict if it was
    // resumed already.
    LedgerResult<ExecutionPause> resume(const QString &id, const QString &actor, const QString &note);

    // The pauses in force, oldest first.
    LedgerResult<QList<ExecutionPause>> inForce() const;
    // One pause, in force or not.
    LedgerResult<ExecutionPause> get(const QString &id) const;

    // --- inside ExecutionStore's claim transaction ---------------------------------------------

    // PostgreSQL: takes kPauseLockKey shared until the transaction ends (before the claim's
    // candidate read or check); SQLite: nothing (the write lock is held already).
    static LedgerError lockForClaim(QSqlDatabase &db);
    // The pause in force that covers `action`, if any (after lockForClaim).
    static LedgerError coveringIn(QSqlDatabase &db, const ActionRecord &action, std::optional<ExecutionPause> *out);
    // "NOT EXISTS (…)": no pause in force covers the row of `alias` (for the candidate read).
    static QString notPausedSql(const QString &alias);

    // The advisory lock that orders pauses and claims (PostgreSQL).
    static constexpr qint64 kPauseLockKey = 0x5061757365457865; // "PauseExe"

private:
    LedgerDatabase &m_db;
};

} // namespace cs
