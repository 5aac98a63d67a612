#pragma once

#include <QLoggingCategory>

namespace cs {

// "countersign.mcp", default level warning; enable with QT_LOGGING_RULES="countersign.mcp.debug=true".
// countersign-mcp writes every log line to stderr: its stdout carries only protocol messages.
Q_DECLARE_LOGGING_CATEGORY(lcMcp)

} // namespace cs
