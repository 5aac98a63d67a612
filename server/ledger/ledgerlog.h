#pragma once

#include <QLoggingCategory>

namespace cs {

// "countersign.ledger", default level warning; enable with QT_LOGGING_RULES="countersign.ledger.debug=true".
Q_DECLARE_LOGGING_CATEGORY(lcLedger)

} // namespace cs
