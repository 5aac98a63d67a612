#pragma once

#include "actionrecord.h"
#include "actionstate.h"

#include <QList>
#include <QMetaType>
#include <QString>

namespace cs {

// The server-side filter of the action list: which states, and a free-text search (GET /actions
// ?state=&q=). An empty state list means every state.
struct ActionQuery
{
    QList<ActionState> states;
    QString search; // trimmed; matched case-insensitively by the server

    static ActionQuery queue(); // PENDING, CONFIRMATION_UNKNOWN, REQUIRES_REVIEW
    static ActionQuery allStates() { return {}; }

    // The `state` query parameter ("PENDING,REQUIRES_REVIEW"); empty for every state.
    QString stateParameter() const;

    // Whether a record belongs in the list, the way the server decides it: its state is one of
    // `states`, and `search` is a substring (case-insensitive) of the id, the target id, the
    // business reference, the requester or the client reference. Used for rows that arrive live,
    // between pages. A record read from a list row has no client reference, so it may miss there.
    bool matches(const ActionRecord &record) const;

    friend bool operator==(const ActionQuery &, const ActionQuery &) = default;
};

} // namespace cs

Q_DECLARE_METATYPE(cs::ActionQuery)
