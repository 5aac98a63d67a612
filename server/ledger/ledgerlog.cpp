#include "server/ledger/ledgerlog.h"

namespace cs {

Q_LOGGING_CATEGORY(lcLedger, "countersign.ledger", QtWarningMsg)

} // namespace cs
