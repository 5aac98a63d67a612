#pragma once

#include <QLoggingCategory>
#include <QString>

namespace cs {

// One category per part of exactly-once execution, default level warning. Enable with e.g.
// QT_LOGGING_RULES="countersign.executor.info=true;countersign.reconciler.debug=true" (info and
// debug are separate switches; docs/OPERATIONS.md, "Logs").
Q_DECLARE_LOGGING_CATEGORY(lcExecutor)   // "countersign.executor"
Q_DECLARE_LOGGING_CATEGORY(lcReconciler) // "countersign.reconciler"
Q_DECLARE_LOGGING_CATEGORY(lcProvider)   // "countersign.provider"
Q_DECLARE_LOGGING_CATEGORY(lcWebhook)    // "countersign.webhook"

// A log line about one action BEGINS with the action's id, in every category of the backend
// (`qCInfo(lcExecutor) << record.id << "->" << …`): the text says which action, and
// --log-format json (lifecycle/logformat.h) puts that first word in the line's `action` member.
// Where a statement is about an action only sometimes, stream ActionTag{id} first: the id when
// it is an action id (Ids::looksLikeActionId), nothing otherwise — so no other first word (a pause
// id, a user's text) is ever taken for one.
struct ActionTag
{
    QString id;
};
QDebug operator<<(QDebug debug, const ActionTag &tag);

} // namespace cs
