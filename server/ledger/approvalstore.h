#pragma once

#include "server/ledger/ledgerresult.h"

#include "server/policy/policy.h"

#include "models/actionrecord.h"
#include "models/approval.h"

#include <QDateTime>
#include <QHash>
#include <QList>
#include <QMutex>
#include <QSqlDatabase>
#include <QString>

#include <memory>

namespace cs {

class LedgerDatabase;
namespace rows {
struct ActionRow;
}

// Approvals (DESIGN.md): a human signs one exact request (invariant 10) or refuses it. Each
// decision appends an approvals row and one audit row in one transaction. Thread-safe.
//
// Under an approval policy (docs/POLICY.md, setPolicy) the rule that matches the action inside
// the transaction decides how many distinct approvers it needs. With more than one (dual control)
// each approval before the last is a signature (approval_signatures, audit `approval_signed`): the
// action stays PENDING without a key; the approval that completes the quorum appends the one
// approval version with its freshly minted key, listing every signer. A signature signs the
// current fingerprint in the current approval round; an amendment voids the signatures before it.
class ApprovalStore
{
public:
    explicit ApprovalStore(LedgerDatabase &database) : m_db(database) {}

    // The policy in force (null: none — one approver, four-eyes). Takes effect for every decision
    // that starts after it.
    void setPolicy(std::shared_ptr<const Policy> policy);
    std::shared_ptr<const Policy> policy() const;

    // PENDING only, never by the requester (four-eyes), never once an attempt exists. Appends
    // approval version n+1 with a freshly minted key signing the current fingerprint — or, when
    // the policy asks for a quorum not yet reached, this approver's signature (the record comes
    // back without a key). Conflict with detail {"problem": "already_signed"} when this approver
    // already signed this request in this round, {"problem": "already_approved"} when a quorum's
    // approval already signs it.
    LedgerResult<ActionRecord> approve(const QString &actionId, const QString &approver, const QString &note,
                                       qint64 expectedStateVersion);
    // PENDING -> REJECTED, with a rejected approval row carrying `reason` (one of
    // Approval::rejectionReasons()) and the note (required, not blank, for "other"). One rejection
    // rejects, whatever the quorum's signatures so far.
    LedgerResult<ActionRecord> reject(const QString &actionId, const QString &who, const QString &reason,
                                      const QString &note, qint64 expectedStateVersion);

    // Where an action stands with the policy: approvals required (by which rule of which policy
    // version) and the signatures that count now (this round, this fingerprint, since the last
    // amendment), oldest first. Once approved, `given` is the approval's signers. A read.
    struct Quorum
    {
        Policy::Requirement requirement;
        QList<Approval::Signer> given;
    };
    LedgerResult<Quorum> quorum(const QString &actionId) const;
    // The same for many actions in one read (the list's rows: "1 of 2"), keyed by id; an id
    // that is not PENDING or needs one approver has no entry.
    LedgerResult<QHash<QString, Quorum>> awaitingQuorums(const QList<ActionRecord> &actions) const;

    // Auto-approval (docs/POLICY.md), inside the proposal's transaction (ProposalStore::propose)
    // right after the PENDING action `row` was written: when the rule of `policy` that matches it
    // auto-approves this agent and amount, and the agent's auto-approved total of this UTC day in
    // the rule's currency (read under a lock, so racing proposals count each other) leaves room
    // for it, and it passes every check a human approval passes (the charge's budget at the
    // approval stage among them), appends approval version 1 decided by "policy" with a freshly
    // minted key, the rule and the policy version, and audits `auto_approved`; `row` is then the
    // approved action and `*approval` the approval. When a check refuses, the action stays
    // PENDING for humans and the audit says why (`auto_approval_skipped`). Errors only for storage.
    static LedgerError autoApproveIn(QSqlDatabase &db, const QDateTime &now, const Policy &policy, rows::ActionRow *row,
                                     std::optional<Approval> *approval);

    // Approval expiry (docs/POLICY.md), inside the caller's write transaction: when the current
    // approval of the PENDING action `row` (its approval_version; `known` when the caller read it)
    // approved with an expires_at at or before `now`, and the action has no attempt (invariant 4:
    // once it has one nothing expires), records the expiry (approval_expiries), clears the
    // action's key — the key was never used and never will be; the next approval mints a fresh
    // one — and audits `approval_expired` by "policy". `row` is then the action after and
    // *expired true; otherwise nothing changes. The executor's claim calls it before it sends, so
    // an expired approval is never sent, whether or not the sweep came first.
    static LedgerError expireIfDueIn(QSqlDatabase &db, const QDateTime &now, rows::ActionRow *row, bool *expired,
                                     const Approval *known = nullptr);
    // The sweep (the executor's, every recovery sweep): expireIfDueIn for up to `limit` PENDING
    // actions whose approval is due; how many expired.
    static LedgerResult<int> expireDue(LedgerDatabase &database, int limit);

private:
    LedgerResult<ActionRecord> decide(const char *operation, const QString &actionId, const QString &who,
                                      const QString &reason, const QString &note, qint64 expectedStateVersion,
                                      bool approve);

    LedgerDatabase &m_db;
    mutable QMutex m_policyMutex;
    std::shared_ptr<const Policy> m_policy;
};

} // namespace cs
