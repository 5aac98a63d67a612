#include "client/clientlog.h"

Q_LOGGING_CATEGORY(lcClient, "countersign.client", QtWarningMsg)
