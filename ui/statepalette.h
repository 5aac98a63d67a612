#pragma once

#include "models/actionstate.h"
#include "models/attempt.h"
#include "models/providerlookup.h"

#include <QColor>
#include <QFont>
#include <QPalette>

namespace cs {

// The console's colours, derived from the current palette so that they read in light and dark
// themes alike: each state has a hue; on a light base it is a dark text on a pale fill, on a
// dark base a light text on a deep fill. Also the fonts for evidence (keys, fingerprints, ids).
class StatePalette
{
public:
    struct Chip
    {
        QColor fill;
        QColor text;
        QColor border;
    };

    static bool isDark(const QPalette &palette);
    static Chip stateChip(ActionState state, const QPalette &palette);
    static QColor attemptColor(Attempt::Outcome outcome, const QPalette &palette);
    static QColor lookupColor(ProviderLookup::Result result, const QPalette &palette);
    // A translucent highlight for changed fields in a diff.
    static QColor changedFill(const QPalette &palette);
    static QColor warningFill(const QPalette &palette);
    static QColor warningText(const QPalette &palette);
    static QColor mutedText(const QPalette &palette);

    static QFont monospaceFont(int pointSizeDelta = 0);
};

} // namespace cs
