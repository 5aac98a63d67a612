#pragma once

#include <QLoggingCategory>

// Logging category of the provider simulator; default level warning
// (enable with QT_LOGGING_RULES="countersign.paysim.debug=true").
Q_DECLARE_LOGGING_CATEGORY(lcPaysim)
