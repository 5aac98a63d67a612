#include "server/mcp/mcplog.h"

namespace cs {

Q_LOGGING_CATEGORY(lcMcp, "countersign.mcp", QtWarningMsg)

} // namespace cs
