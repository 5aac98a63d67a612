#pragma once

#include "models/actionrecord.h"

#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace cs {

// One rule of the approval policy (docs/POLICY.md). A rule matches an action when every condition
// it states holds (a condition it leaves out matches everything); its outcome is what the action
// then needs.
struct PolicyRule
{
    QString id;          // unique within the policy: [a-z0-9_-], 1..64
    QString description; // for people; no effect
    // Conditions.
    QString currency;                // lowercase ISO-4217; required with an amount bound
    std::optional<qint64> amountAbove; // amount > this (minor units of currency)
    std::optional<qint64> amountUpTo;  // amount <= this
    QStringList agents;              // requested_by is one of these
    QStringList reasons;             // the refund's reason is one of these ("" for none)
    QStringList kinds;               // the action's kind is one of these (refund)
    // Outcome: this many distinct approvers, none of them the requester (dual control when > 1).
    int requireApprovals = 1;
    // Outcome (docs/POLICY.md "Auto-approval"): the policy itself approves, inside the proposal's
    // transaction, an action of one of `agents` of at most `upTo` (minor units of the rule's
    // currency) while that agent's auto-approved total of this UTC day in that currency stays
    // within `dailyTotal`. An action it does not approve needs requireApprovals humans.
    struct AutoApprove
    {
        qint64 upTo = 0;
        QStringList agents;
        qint64 dailyTotal = 0;
        friend bool operator==(const AutoApprove &, const AutoApprove &) = default;
    };
    std::optional<AutoApprove> autoApprove;
    // Outcome (docs/POLICY.md "Approval expiry"): an approval of an action this rule matches that
    // has not been sent (no attempt) this many seconds after it was given no longer counts: the
    // action asks for approval again. A quorum's signatures older than this no longer count either.
    std::optional<qint64> approvalExpiresAfterSeconds;

    // "90s", "30m", "4h", "2d": a whole number of one unit, from 1 s to kMaxExpirySeconds.
    static constexpr qint64 kMaxExpirySeconds = 90LL * 24 * 3600;
    static std::optional<qint64> durationFromText(const QString &text);
    static QString durationToText(qint64 seconds); // the largest unit that divides it

    bool matches(const ActionRecord &action) const;
    QJsonObject toJson() const; // the rule as the file states it (canonical member order)
    friend bool operator==(const PolicyRule &, const PolicyRule &) = default;
};

// The approval policy in force: its rules in order, first match wins; no match (or no policy)
// needs what Countersign always needed, one approver other than the requester.
struct Policy
{
    static constexpr int kMaxApprovals = 10;
    static constexpr int kMaxRules = 1000;

    QList<PolicyRule> rules;
    // Set when the ledger recorded it (PolicyStore): 0 for "no policy".
    int version = 0;
    QString sha256;    // of the file's bytes, hex
    QString source;    // the file it was read from
    QString loadedBy;  // who loaded it ("startup", "SIGHUP", a user)
    QDateTime loadedAt;

    // What an action needs under this policy.
    struct Requirement
    {
        int approvals = 1;
        QString ruleId;      // the rule that decided, "" when none matched
        int policyVersion = 0;
        // The rule's auto-approval and its currency, when it has one.
        std::optional<PolicyRule::AutoApprove> autoApprove;
        QString currency;
        // Whether the auto-approval covers this agent and amount (the daily total aside, which
        // only the ledger can count).
        bool autoApprovable = false;
        // The rule's approval expiry (none: an approval holds until it is sent).
        std::optional<qint64> expiresAfterSeconds;
        friend bool operator==(const Requirement &, const Requirement &) = default;
    };
    const PolicyRule *match(const ActionRecord &action) const;
    Requirement requirementFor(const ActionRecord &action) const;

    // GET /api/v1/policy: version, sha256, source, loaded_by, loaded_at and the rules.
    QJsonObject toJson() const;
};

} // namespace cs
