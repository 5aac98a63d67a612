#include "server/api/apilog.h"

namespace cs {

Q_LOGGING_CATEGORY(lcApi, "countersign.api", QtWarningMsg)

} // namespace cs
