#pragma once

#include <QLoggingCategory>

namespace cs {

// "countersign.api", default level warning; enable with QT_LOGGING_RULES="countersign.api.debug=true".
Q_DECLARE_LOGGING_CATEGORY(lcApi)

} // namespace cs
