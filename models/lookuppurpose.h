#pragma once

#include <QCoreApplication>
#include <QString>

namespace cs {

struct ActionDetail;

// What "Look up at provider" does for the shown action, in the words of its tooltip and dialog
// (issue 18, docs/SETTLEMENT.md). The backend allows a look-up in every state, and the console
// enables the action by the backend's permissions.lookup; for a COMPLETED action a look-up asks
// about the refund the action completed with and moves its settlement, which the generic help
// ("what happened to this action") does not say. None of it changes whether Look up is allowed:
// a refund that succeeded can still fail later, so a look-up stays useful after it settled.
class LookupPurpose
{
    Q_DECLARE_TR_FUNCTIONS(cs::LookupPurpose)

public:
    // The help for Look up on `detail`; empty when the action is not COMPLETED or has no
    // settlement (the generic help stands).
    static QString help(const ActionDetail &detail);
};

} // namespace cs
