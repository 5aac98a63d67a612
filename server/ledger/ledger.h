#pragma once

#include "server/ledger/actionreader.h"
#include "server/ledger/approvalstore.h"
#include "server/ledger/chargestore.h"
#include "server/ledger/evidencestore.h"
#include "server/ledger/executionstore.h"
#include "server/ledger/ledgerdatabase.h"
#include "server/ledger/policystore.h"
#include "server/ledger/pausestore.h"
#include "server/ledger/proposalstore.h"

#include <QString>

namespace cs {

// The durable action ledger (DESIGN.md): every action, approval, attempt, lookup, reconciliation
// and audit entry. Its job is that no refund is executed twice: the attempt row is committed
// before a request may leave the process, a claim is atomic across threads and processes, and the
// payload and key of an action that was sent can never change — enforced by triggers in the
// database (migrations.cpp) as well as in the stores.
//
// This object only opens the file (migrating it and, unless disabled, recovering expired leases)
// and owns the pieces; each consumer takes the narrowest one it needs:
//   proposals()  ProposalStore  propose, amend before sending, refused resubmissions
//   approvals()  ApprovalStore  approve, reject, a quorum's signatures (the policy in force)
//   policies()   PolicyStore    the approval policy's versions (policy_versions)
//   execution()  ExecutionStore claims, leases, attempts, group commit, recovery (Executor)
//   evidence()   EvidenceStore  lookups, reconciliation, webhook events, the reconciler's schedule
//   charges()    ChargeStore    the provider's snapshots of charges, the refund budget per charge
//   pauses()     PauseStore     the stop switch: pauses of execution (all, an agent, an account)
//   reader()     ActionReader   every read: the queue, one action's history, the audit log
//   database()   LedgerDatabase the SQL layer, for other tables in the same file (users, replays)
//
// Every mutation is one transaction that writes one audit row (actor, event, reason, before/after
// JSON, hash-chained) and bumps state_version when it changes the action row. State changes go
// only through StateMachine::apply. Mutations that take an expectedStateVersion refuse a stale one
// with LedgerError::Code::StaleVersion. Amounts are integer minor units; timestamps UTC with ms
// precision, from Options::clock. Thread-safe once open; destroy it only when no thread is inside
// one of its calls.
class Ledger
{
public:
    struct Options
    {
        Clock clock;                          // null: the system clock (UTC)
        bool recoverExpiredLeasesOnOpen = true;
        int busyTimeoutMs = 5000;             // SQLite busy_timeout / PostgreSQL lock_timeout
        int busyRetries = 5;                  // whole-transaction retries after SQLITE_BUSY, a deadlock, ...
        QString passwordFile;                 // PostgreSQL: the password's file; else libpq's sources
        bool checkOnOpen = true;              // LedgerDatabase::Options::checkOnOpen (LedgerCheck::bounded)
        bool migrate = true;                  // LedgerDatabase::Options::migrate
    };

    Ledger();
    ~Ledger();
    Q_DISABLE_COPY_MOVE(Ledger)

    // Opens (creating if needed) the ledger file — or connects to the PostgreSQL database of a
    // libpq URI, postgresql://USER@HOST:PORT/DBNAME — migrates it to the latest schema and, unless
    // disabled, recovers expired leases. Call once, before any other call.
    LedgerError open(const QString &path);
    LedgerError open(const QString &path, const Options &options);
    bool isOpen() const { return m_database.isOpen(); }
    QString path() const { return m_database.path(); }
    int schemaVersion() const { return m_database.schemaVersion(); }
    // "Now" as the ledger stamps it (Options::clock, ms precision).
    QDateTime currentTime() const { return m_database.now(); }

    LedgerDatabase &database() { return m_database; }
    ProposalStore &proposals() { return m_proposals; }
    ApprovalStore &approvals() { return m_approvals; }
    PolicyStore &policies() { return m_policies; }
    ExecutionStore &execution() { return m_execution; }
    EvidenceStore &evidence() { return m_evidence; }
    ChargeStore &charges() { return m_charges; }
    PauseStore &pauses() { return m_pauses; }
    const ActionReader &reader() const { return m_reader; }

private:
    LedgerDatabase m_database; // first: the pieces below use it and are destroyed before it
    ProposalStore m_proposals;
    ApprovalStore m_approvals;
    PolicyStore m_policies;
    ExecutionStore m_execution;
    EvidenceStore m_evidence;
    ChargeStore m_charges;
    PauseStore m_pauses;
    ActionReader m_reader;
};

} // namespace cs
