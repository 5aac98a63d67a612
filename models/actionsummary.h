#pragma once

#include "models/actionrecord.h"
#include "models/approval.h"

#include <QDateTime>
#include <QJsonObject>
#include <QMetaType>
#include <QString>

#include <array>
#include <optional>

namespace cs {

// One row of the action list (GET /actions → ActionSummary): the record as far as the list
// carries it, plus the attempt count and the time of the newest audit event. A summary read from
// a list lacks the provider, key, fingerprint and client reference; one built from an action
// detail (ActionDetail::summary()) has them all. A plain value type.
struct ActionSummary
{
    ActionRecord record;
    int attemptCount = 0;
    QDateTime lastEventAt; // UTC
    // Issue 14: how many other actions may refund the same business need (the same charge or
    // business reference, not REJECTED, outside its follow-up chain; docs/POLICY.md "Possible
    // duplicates"). Computed by the backend when the row is read; 0 when absent.
    int possibleDuplicates = 0;
    bool possibleDuplicate() const { return possibleDuplicates > 0; }
    // Dual control (docs/POLICY.md): for a PENDING action whose rule needs more than one approver,
    // how many it needs and who signed so far ("1 of 2"); 0 and empty otherwise. The wire's
    // approvals_required and approvals_given, present only then.
    int approvalsRequired = 0;
    QList<Approval::Signer> approvalsGiven;
    // Issue 18: a COMPLETED action's refund status at the provider as last seen (settlement_status;
    // empty for any other action) and whether its refund failed or was canceled afterwards and a
    // supervisor must decide (settlement_review).
    QString settlementStatus;
    bool settlementReview = false;
    // Issue 33: the provider holds what contradicts this final action (two refunds for it, …) and a
    // supervisor has not closed it yet (the wire's "discrepancy"; models/discrepancy.h).
    bool discrepancy = false;
    // record.isQueued() as the backend saw it: approved and waiting for the executor (the wire's
    // "queued"). A list row carries no key, so this is how it says so; false when absent.
    bool queued = false;

    const QString &id() const { return record.id; }
    // Money::tenThousandths of the amount (the ledger's amount_scaled): what a search for a number
    // matches (Money::searchedTenThousandths). Not the sort key: `amount` sorts by currency first.
    qint64 scaledAmount() const;

    // The list row, as the backend writes it (the one writer of ActionSummary JSON): without
    // parent_id, provider, key, fingerprint and client reference, which the contract's
    // ActionSummary does not carry.
    QJsonObject toJson() const;
    // Reads the list row. "kind" is absent from list rows and defaults to "refund".
    static std::optional<ActionSummary> fromJson(const QJsonObject &json, QString *error = nullptr);
    friend bool operator==(const ActionSummary &, const ActionSummary &) = default;
};

// One possible duplicate in an action detail's related list (related.possible_duplicates): the
// other action's row, what it shares with the action shown, and one sentence the console shows
// as it is ("order 4821 already has 40.00 USD COMPLETED by returns-agent, 1 h ago").
struct PossibleDuplicate
{
    ActionSummary summary;
    QString same;     // "charge" or "business_reference"
    QString sentence; // written by the backend at read time (the age is relative to then)

    // The sentence: which thing (order or charge) already (created before `of`) or also has the
    // other's amount in which state, by whom, how long before `now`.
    static QString sentenceFor(const ActionRecord &of, const ActionRecord &other, bool sameBusinessReference,
                               const QDateTime &now);
    QJsonObject toJson() const; // the summary's row plus relation "possible_duplicate", same, sentence
    static std::optional<PossibleDuplicate> fromJson(const QJsonObject &json, QString *error = nullptr);
    friend bool operator==(const PossibleDuplicate &, const PossibleDuplicate &) = default;
};

// How many actions are in each of the six states (over everything the caller may see).
class StateCounts
{
public:
    qint64 count(ActionState state) const { return m_counts[index(state)]; }
    void setCount(ActionState state, qint64 count) { m_counts[index(state)] = count; }
    qint64 queueTotal() const; // PENDING + CONFIRMATION_UNKNOWN + REQUIRES_REVIEW
    qint64 total() const;
    // Issue 18: COMPLETED actions whose refund failed or was canceled afterwards and whose review
    // item is open (the wire's "settlement_review"; not a state: they stay COMPLETED).
    qint64 settlementReview() const { return m_settlementReview; }
    void setSettlementReview(qint64 count) { m_settlementReview = count; }
    // Issue 33: final actions with an open discrepancy (the wire's "discrepancies"; not a state).
    qint64 discrepancies() const { return m_discrepancies; }
    void setDiscrepancies(qint64 count) { m_discrepancies = count; }
    // PENDING actions approved and waiting for the executor: nothing left for a person to decide
    // (the wire's "queued"; part of count(Pending), not a state). 0 from a server that does not
    // send it.
    qint64 queued() const { return m_queued; }
    void setQueued(qint64 count) { m_queued = count; }

    QJsonObject toJson() const;
    static std::optional<StateCounts> fromJson(const QJsonObject &json, QString *error = nullptr);
    friend bool operator==(const StateCounts &, const StateCounts &) = default;

private:
    static std::size_t index(ActionState state) { return std::size_t(state); }
    std::array<qint64, 6> m_counts{};
    qint64 m_settlementReview = 0;
    qint64 m_discrepancies = 0;
    qint64 m_queued = 0;
};

} // namespace cs

Q_DECLARE_METATYPE(cs::ActionSummary)
Q_DECLARE_METATYPE(cs::StateCounts)
