#pragma once

#include "models/actionrecord.h"
#include "models/actionstate.h"
#include "models/actionsummary.h"

#include <QList>
#include <QMetaType>
#include <QString>

namespace cs {

// The server-side filter and order of the action list: which states, a free-text search, the
// settlement review, discrepancy and decision filters and the sort
// (GET /actions?state=&q=&settlement=&discrepancy=&awaiting=&sort=). An empty state list means
// every state.
struct ActionQuery
{
    // The backend's sort keys; ties by creation, then id, in the same direction.
    enum class SortKey {
        CreatedAt,    // age (the default, descending: newest first)
        Amount,       // currency (its code), then amount in minor units
        AttemptCount,
        LastEventAt,
    };

    QList<ActionState> states;
    // Trimmed; matched case-insensitively by the server. A canonical decimal number ("199",
    // "199.50": Money::searchedTenThousandths) also matches that amount in any currency; the
    // console converts what a person writes in their locale ("199,50") before it gets here.
    QString search;
    // Issue 18: only COMPLETED actions whose refund failed or was canceled afterwards and whose
    // review item is open (settlement=review). Combines with the states and the search.
    bool settlementReview = false;
    // Issue 33: only final actions the provider contradicts (two refunds for one action, …) whose
    // discrepancy is open (discrepancy=open).
    bool discrepancyOpen = false;
    // Leaves out the PENDING actions whose approval is complete (the key minted: approved and
    // queued for the executor, nothing left to decide) (awaiting=decision). A PENDING action a
    // quorum has only partly signed stays; other states are not affected.
    bool awaitingDecision = false;
    SortKey sort = SortKey::CreatedAt;
    bool descending = true;

    static ActionQuery queue(); // PENDING, CONFIRMATION_UNKNOWN, REQUIRES_REVIEW
    static ActionQuery allStates() { return {}; }

    // The `state` query parameter ("PENDING,REQUIRES_REVIEW"); empty for every state.
    QString stateParameter() const;
    // The `settlement` query parameter ("review"); empty when the list is not filtered by it.
    QString settlementParameter() const;
    // The `discrepancy` query parameter ("open"); empty when the list is not filtered by it.
    QString discrepancyParameter() const { return discrepancyOpen ? QStringLiteral("open") : QString(); }
    // The `awaiting` query parameter ("decision"); empty when the list is not filtered by it.
    QString awaitingParameter() const { return awaitingDecision ? QStringLiteral("decision") : QString(); }
    // The `sort` query parameter ("-amount"); empty for the default (newest first).
    QString sortParameter() const;
    // Whether `a` comes before `b` in this order (the backend's: key, then created_at, then id,
    // all in the same direction). Amounts compare by currency code, then minor units.
    bool before(const ActionSummary &a, const ActionSummary &b) const;

    // Whether a record belongs in the list, the way the server decides it: its state is one of
    // `states`, `search` is a substring (case-insensitive) of the id, the target id, the
    // business reference, the requester or the client reference, or the amount it writes, and
    // with awaitingDecision it is not queued (ActionRecord::isQueued). Used for rows that arrive
    // live, between pages. A record read from a list row has no client reference, so it may miss
    // the search there, and no key: the row's `queued` says what the record cannot.
    bool matches(const ActionRecord &record) const;
    // The same for a list row, which also knows its settlement review (settlementReview), its
    // discrepancy and whether it is queued.
    bool matches(const ActionSummary &row) const;

    friend bool operator==(const ActionQuery &, const ActionQuery &) = default;
};

} // namespace cs

Q_DECLARE_METATYPE(cs::ActionQuery)
