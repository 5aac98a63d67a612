#pragma once

#include <QLoggingCategory>

// countersign.ui: the console's widgets and flows (default level warning).
Q_DECLARE_LOGGING_CATEGORY(lcUi)
