#pragma once

#include "server/ledger/ledgerresult.h"

#include "server/policy/policy.h"

#include "models/actionrecord.h"
#include "models/approval.h"
#include "models/chargesnapshot.h"

#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QString>

#include <memory>

namespace cs {

class LedgerDatabase;

// Proposals (DESIGN.md "The action record"): what agents propose, the one amendment allowed
// before anything was sent, and the changed resubmissions they were refused (invariant 5). Each
// mutation is one LedgerDatabase transaction with one audit row. Thread-safe.
class ProposalStore
{
public:
    // What an agent proposes. Amount in minor units of currency (case-insensitive ISO-4217).
    struct ProposalInput
    {
        QString kind = QStringLiteral("refund");
        TargetType targetType = TargetType::Charge;
        QString targetId;
        QString businessReference;
        qint64 amount = 0;
        QString currency;
        QString reason;          // empty | duplicate | fraudulent | requested_by_customer
        QString clientReference; // the agent's stable reference; (requestedBy, clientReference) is unique
        QString provider;
        QString providerAccount;
        QString parentId;        // for a follow-up: an existing action; empty otherwise
        QString note;            // why, in the proposer's words: kept in the "proposed" audit event
                                 // (its reason and after.note), not part of the payload
        // The agent's reasons (ActionRecord): stored with the action, immutable (a trigger), compared
        // on resubmission, never part of the provider request. Limits as ActionRecord states them.
        QString justification;
        QString contextUrl;
        QMap<QString, QString> facts;
        // What the provider said about the target just before (the caller asked it): recorded
        // with the proposal (ChargeStore). A new proposal that does not fit its charge's budget
        // is refused with OverBudget and nothing is written, the snapshot included.
        std::optional<ChargeSnapshot> charge;
        // The approval policy in force (null: none). A new action its matching rule auto-approves
        // is approved by the policy inside this transaction (ApprovalStore::autoApproveIn).
        std::shared_ptr<const Policy> policy;
    };

    struct ProposeResult
    {
        enum class Status {
            Created,  // a new PENDING action
            Existing, // same (requestedBy, clientReference) and same payload: nothing written
            Conflict, // same reference, changed payload: stored record unchanged, conflict
                      // recorded, execution stopped (the API answers 409)
        };
        Status status = Status::Created;
        ActionRecord record;            // as stored after the call
        QJsonObject storedPayload;      // the payload compared against (the original proposal)
        QJsonObject conflictingPayload; // for Conflict: what was resubmitted
        bool reviewRequested = false;   // for Conflict on an action in flight: escalates when it finishes
        std::optional<Approval> autoApproval; // for Created: the policy's approval, when it made one
    };

    // A changed resubmission under an existing (requested_by, client_reference).
    struct ResubmissionConflict
    {
        QString actionId;
        int seq = 0;
        QString submittedBy;
        QDateTime at;
        QJsonObject storedPayload;
        QJsonObject conflictingPayload;
    };

    explicit ProposalStore(LedgerDatabase &database) : m_db(database) {}

    LedgerResult<ProposeResult> propose(const ProposalInput &input, const QString &requestedBy);

    // PENDING with no attempt: new amount/reason, fingerprint recomputed, key cleared (a new
    // approval is needed and mints a fresh key).
    LedgerResult<ActionRecord> amendBeforeSending(const QString &actionId, const QString &who, qint64 newAmount,
                                                  const QString &newReason, qint64 expectedStateVersion);

    // The action's refused resubmissions, oldest first. A read.
    LedgerResult<QList<ResubmissionConflict>> conflicts(const QString &actionId) const;

private:
    LedgerDatabase &m_db;
};

} // namespace cs
