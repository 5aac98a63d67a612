#include "server/executionlog.h"

#include "server/ledger/ids.h"

namespace cs {

Q_LOGGING_CATEGORY(lcExecutor, "countersign.executor", QtWarningMsg)
Q_LOGGING_CATEGORY(lcReconciler, "countersign.reconciler", QtWarningMsg)
Q_LOGGING_CATEGORY(lcProvider, "countersign.provider", QtWarningMsg)
Q_LOGGING_CATEGORY(lcWebhook, "countersign.webhook", QtWarningMsg)

QDebug operator<<(QDebug debug, const ActionTag &tag)
{
    if (Ids::looksLikeActionId(tag.id))
        debug << tag.id;
    return debug;
}

} // namespace cs
