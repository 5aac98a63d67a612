#include "simulator/paysimlog.h"

Q_LOGGING_CATEGORY(lcPaysim, "countersign.paysim", QtWarningMsg)
