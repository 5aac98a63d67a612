#pragma once

#include <QLoggingCategory>

// countersign.client: the console's API client and event stream (default level warning).
Q_DECLARE_LOGGING_CATEGORY(lcClient)
