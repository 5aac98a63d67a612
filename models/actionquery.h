#pragma once

#include "models/actionrecord.h"
#include "models/actionstate.h"
#include "models/actionsummary.h"

#include <QList>
#include <QMetaType>
#include <QString>

namespace cs {

// The server-side filter and order of the action list: which states, a free-text search, the
// settlement review filter and the sort (GET /actions?state=&q=&settlement=&sort=). An empty
// state list means every state.
struct ActionQuery
{
    // The backend's sort keys; ties by creation, then id, in the same direction.
    enum class SortKey {
        CreatedAt,    // age (the default, descending: newest first)
        Amount,       // nominal major units across currencies
        AttemptCount,
        LastEventAt,
    };

    QList<ActionState> states;
    QString search; // trimmed; matched case-insensitively by the server
    // Issue 18: only COMPLETED actions whose refund failed or was canceled afterwards and whose
    // review item is open (settlement=review). Combines with the states and the search.
    bool settlementReview = false;
    // Issue 33: only final actions the provider contradicts (two refunds for one action, …) whose
    // discrepancy is open (discrepancy=open).
    bool discrepancyOpen = false;
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
    // The `sort` query parameter ("-amount"); empty for the default (newest first).
    QString sortParameter() const;
    // Whether `a` comes before `b` in this order (the backend's: key, then created_at, then id,
    // all in the same direction). Amounts compare as ActionSummary::scaledAmount() does.
    bool before(const ActionSummary &a, const ActionSummary &b) const;

    // Whether a record belongs in the list, the way the server decides it: its state is one of
    // `states`, and `search` is a substring (case-insensitive) of the id, the target id, the
    // business reference, the requester or the client reference. Used for rows that arrive live,
    // between pages. A record read from a list row has no client reference, so it may miss there.
    bool matches(const ActionRecord &record) const;
    // The same for a list row, which also knows its settlement review (settlementReview).
    bool matches(const ActionSummary &row) const;

    friend bool operator==(const ActionQuery &, const ActionQuery &) = default;
};

} // namespace cs

Q_DECLARE_METATYPE(cs::ActionQuery)
