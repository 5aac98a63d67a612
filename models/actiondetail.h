#pragma once

#include "models/actionrecord.h"
#include "models/actionsummary.h"
#include "models/approval.h"
#include "models/attempt.h"
#include "models/auditevent.h"
#include "models/decisioncontext.h"
#include "models/providerlookup.h"
#include "models/reconciliation.h"
#include "models/settlement.h"
#include "models/discrepancy.h"

#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QMetaType>
#include <QString>
#include <QStringList>

#include <optional>

namespace cs {

// What the calling user may do with an action right now, as the backend advises it
// (GET /actions/{id} → permissions). Advice only: the backend checks again on every mutation.
struct PermissionEntry
{
    bool allowed = false;
    QString reason; // why not, for a human; empty when allowed
    friend bool operator==(const PermissionEntry &, const PermissionEntry &) = default;
};

struct Permissions
{
    PermissionEntry approve;
    PermissionEntry reject;
    PermissionEntry lookup;
    PermissionEntry reconcile;
    PermissionEntry followUp;
    PermissionEntry closeSettlement; // close a settlement review item without re-sending (issue 18)
    PermissionEntry closeDiscrepancy; // close a discrepancy (two refunds for one action) with a note (issue 33)

    // The entry for a wire key ("approve", "reject", "lookup", "reconcile", "follow_up",
    // "close_settlement", "close_discrepancy");
    // nullptr for any other key.
    const PermissionEntry *entry(QStringView key) const;

    friend bool operator==(const Permissions &, const Permissions &) = default;
};

// A changed resubmission under an existing client_reference, kept as evidence: the stored
// payload and the one that conflicted with it (ProposalPayload on the wire).
struct PayloadConflict
{
    int seq = 0;
    QString submittedBy;
    QDateTime at;
    QJsonObject storedPayload;
    QJsonObject conflictingPayload;
    friend bool operator==(const PayloadConflict &, const PayloadConflict &) = default;
};

// An action and everything recorded about it (GET /actions/{id} → ActionDetail). Lists are
// oldest first. A plain value type: a snapshot of what the backend said.
struct ActionDetail
{
    ActionRecord record;
    QDateTime keyWindowEndsAt; // null until the first attempt
    QList<Attempt> attempts;
    QList<ProviderLookup> lookups;
    QList<Approval> approvals;
    QList<Reconciliation> reconciliations;
    QList<AuditEvent> audit;
    QList<PayloadConflict> conflicts;
    std::optional<ActionSummary> parent;
    QList<ActionSummary> followUps;
    // Issue 14: other actions on the same charge or business reference (related.possible_duplicates).
    QList<PossibleDuplicate> possibleDuplicates;
    Permissions permissions;
    // What an approver needs beside the record (models/decisioncontext.h): the charge's story
    // and budget (none when the charge was never read), the requester's record, the quorum.
    std::optional<ChargeView> charge;
    std::optional<RequesterRecord> requesterRecord;
    Quorum quorum;
    // Issue 18: for a COMPLETED action, its refund's settlement at the provider (none otherwise,
    // and for actions completed before the ledger tracked settlements).
    std::optional<Settlement> settlement;
    // Issue 33: what the provider holds that contradicts this final action (two refunds for it, …);
    // none when nothing ever did.
    std::optional<Discrepancy> discrepancy;

    // The list row this detail stands for (attempt count, time of the newest audit event).
    ActionSummary summary() const;

    // What provider evidence says this action refunded, in minor units of record.currency:
    // for COMPLETED the amount of the newest FOUND lookup with status succeeded or pending, else
    // the action's amount when a 2xx attempt answered its exact request — 0 once its settlement
    // says the refund failed or was canceled afterwards; 0 for REJECTED; nothing
    // while the outcome is not known (any other state). Mirrors the backend's follow-up rule.
    std::optional<qint64> committedAmount() const;

    // The lookup with this seq, or nullptr.
    const ProviderLookup *lookup(int seq) const;

    static std::optional<ActionDetail> fromJson(const QJsonObject &json, QString *error = nullptr);

    // What changed between two details of the same action, one sentence each, for a reviewer
    // whose decision was overtaken ("state: PENDING → REJECTED", "rejected by bob: …").
    static QStringList describeChanges(const ActionDetail &before, const ActionDetail &after);
};

} // namespace cs

Q_DECLARE_METATYPE(cs::ActionDetail)
