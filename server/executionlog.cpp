#include "server/executionlog.h"

namespace cs {

Q_LOGGING_CATEGORY(lcExecutor, "countersign.executor", QtWarningMsg)
Q_LOGGING_CATEGORY(lcReconciler, "countersign.reconciler", QtWarningMsg)
Q_LOGGING_CATEGORY(lcProvider, "countersign.provider", QtWarningMsg)
Q_LOGGING_CATEGORY(lcWebhook, "countersign.webhook", QtWarningMsg)

} // namespace cs
