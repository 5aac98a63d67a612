#pragma once

#include "server/ledger/ledgerresult.h"

#include "models/chargebudget.h"
#include "models/chargesnapshot.h"

#include <QSqlDatabase>
#include <QString>

#include <optional>

namespace cs {

class LedgerDatabase;

// The provider's view of each charge, kept as timed evidence (append-only, audit-logged), and the
// refund budget computed from it and from what Countersign holds (models/chargebudget.h). The
// budget decisions themselves are taken inside the transactions that need them — a proposal, an
// approval, a claim — through ChargeStore::budgetIn, under the charge's row lock, so that two of
// them never both see the same room. Thread-safe.
class ChargeStore
{
public:
    struct Recorded
    {
        ChargeSnapshot snapshot; // as stored: read_at as given, excerpt truncated
        int seq = 0;             // per charge (charge id, or the target's id when not FOUND)
    };

    explicit ChargeStore(LedgerDatabase &database) : m_db(database) {}

    // Appends a snapshot (its own transaction, one audit row about no action: "charge_read").
    LedgerResult<Recorded> record(const ChargeSnapshot &snapshot);
    // The newest snapshot of a target (FOUND or not), by read time; nullopt when never read.
    LedgerResult<std::optional<Recorded>> latest(const QString &targetId) const;
    // The snapshot an approver is shown for a target: the newest FOUND one of its charge (the one
    // the budget is computed from; a payment intent's charge as its newest FOUND snapshot named
    // it), else the newest of the target whatever it says; nullopt when never read. A read.
    LedgerResult<std::optional<Recorded>> shown(TargetType targetType, const QString &targetId) const;
    // The budget of the target's charge at `stage`, leaving out `excludingActionId` (the action
    // being decided; empty: none). A read: for decisions use budgetIn inside the write.
    LedgerResult<ChargeBudget> budget(TargetType targetType, const QString &targetId, ChargeBudget::Stage stage,
                                      const QString &excludingActionId = QString()) const;

    // --- inside a LedgerDatabase write body (internal to server/ledger and its stores) --------
    // Appends `snapshot` (seq per charge, charge row created if new, audit row) inside the
    // caller's write; *out gets what was stored.
    static LedgerError recordIn(QSqlDatabase &db, const QDateTime &now, const ChargeSnapshot &snapshot, Recorded *out);
    // Locks the target's charge (PostgreSQL: its `charges` row FOR UPDATE, when inside a write;
    // SQLite's write lock holds the file) and computes its budget from what is committed after the
    // lock was granted.
    static LedgerError budgetIn(QSqlDatabase &db, TargetType targetType, const QString &targetId,
                                ChargeBudget::Stage stage, const QString &excludingActionId, ChargeBudget *out);
    // budgetIn, then OverBudget (the budget and `amount` in its detail, `what` leading its
    // message: "the refund of act_… cannot be approved") unless amount of currency fits.
    static LedgerError requireRoomIn(QSqlDatabase &db, const ActionRecord &action, ChargeBudget::Stage stage,
                                     const QString &what);

private:
    LedgerDatabase &m_db;
};

} // namespace cs
