#pragma once

#include "models/chargebudget.h"
#include "models/chargesnapshot.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

namespace cs {

// What an approver needs beside the action itself (issues 14 and 19), as GET /actions/{id} and
// POST /actions/{id}/charge-lookups serve it (docs/API.md "The charge and the requester's
// record", "Approval rules: dual control"). Plain values read from the wire; the server decided
// every figure, the console only shows them.

// The charge's story and its refund budget at the approval stage: `charge` in the detail, or
// the 201 body of a charge read ({snapshot, budget, warnings}).
struct ChargeView
{
    struct Warning
    {
        QString code; // "disputed", "over_half", "past_refund_window", "refunds_made", …
        QString text; // one English sentence
        friend bool operator==(const Warning &, const Warning &) = default;
    };

    ChargeSnapshot snapshot; // the newest FOUND read (else the newest read) — or the read just made
    int snapshotSeq = 0;
    ChargeBudget budget;        // this action left out
    qint64 requested = 0;       // this action's amount, minor units of requestedCurrency
    QString requestedCurrency;
    bool fits = true;           // always true when the budget is not known
    QList<Warning> warnings;

    static std::optional<ChargeView> fromJson(const QJsonObject &json, QString *error = nullptr);
    friend bool operator==(const ChargeView &, const ChargeView &) = default;
};

// The requester's proposals since 00:00 UTC (today) and in the last 7 × 24 h (week).
struct RequesterRecord
{
    struct Total
    {
        QString currency;
        qint64 count = 0;
        qint64 amount = 0; // minor units of currency
        friend bool operator==(const Total &, const Total &) = default;
    };
    struct Window
    {
        QDateTime since;
        qint64 count = 0;
        QList<Total> totals; // per currency, never summed across currencies
        qint64 rejected = 0;
        std::optional<double> rejectedShare; // 0..1, none when count is 0
        qint64 sentToReview = 0;
        std::optional<double> sentToReviewShare;
        friend bool operator==(const Window &, const Window &) = default;
    };

    QString requestedBy;
    Window today;
    Window week;

    // "3 refunds, 120.00 USD · 33% rejected · 0% sent to review"; "no proposals" when count is 0.
    static QString describe(const Window &window);

    static std::optional<RequesterRecord> fromJson(const QJsonObject &json, QString *error = nullptr);
    friend bool operator==(const RequesterRecord &, const RequesterRecord &) = default;
    // describe()'s words, in the context lupdate gives them (resources/translations); last: it ends private.
    Q_DECLARE_TR_FUNCTIONS(cs::RequesterRecord)
};

// Where the action stands with the approval policy: N distinct approvers (1 without a policy),
// who has signed so far, and the rule that asked for them.
struct Quorum
{
    struct Signature
    {
        QString approver;
        QDateTime signedAt;
        friend bool operator==(const Signature &, const Signature &) = default;
    };

    int required = 1;
    QList<Signature> given;
    int policyVersion = 0; // 0: no policy
    QString ruleId;

    bool isDualControl() const { return required > 1; }
    // "1 of 2 approvals — approved by ann"; "0 of 2 approvals"; empty when one approver suffices.
    QString describe() const;

    // From the detail's (or a 202 answer's) approvals_required, approvals_given, approval_rule;
    // members absent (an older server) read as one approver.
    static std::optional<Quorum> fromJson(const QJsonObject &json, QString *error = nullptr);
    friend bool operator==(const Quorum &, const Quorum &) = default;
    // describe()'s words, in the context lupdate gives them (resources/translations); last: it ends private.
    Q_DECLARE_TR_FUNCTIONS(cs::Quorum)
};

} // namespace cs
