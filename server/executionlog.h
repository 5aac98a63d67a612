#pragma once

#include <QLoggingCategory>

namespace cs {

// One category per part of exactly-once execution, default level warning. Enable with e.g.
// QT_LOGGING_RULES="countersign.executor.debug=true;countersign.reconciler.debug=true".
Q_DECLARE_LOGGING_CATEGORY(lcExecutor)   // "countersign.executor"
Q_DECLARE_LOGGING_CATEGORY(lcReconciler) // "countersign.reconciler"
Q_DECLARE_LOGGING_CATEGORY(lcProvider)   // "countersign.provider"
Q_DECLARE_LOGGING_CATEGORY(lcWebhook)    // "countersign.webhook"

} // namespace cs
