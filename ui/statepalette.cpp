#include "ui/statepalette.h"

#include <QFontDatabase>

namespace cs {

namespace {

int hueOf(ActionState state)
{
    switch (state) {
    case ActionState::Pending:
        return 212; // blue: awaiting a decision
    case ActionState::Executing:
        return 265; // violet: in flight
    case ActionState::ConfirmationUnknown:
        return 35;  // amber: unknown
    case ActionState::Completed:
        return 140; // green
    case ActionState::Rejected:
        return 0;   // grey (saturation 0 below)
    case ActionState::RequiresReview:
        return 5;   // red: a human must decide
    }
    return 0;
}

QColor tone(int hue, bool dark, bool strong)
{
    if (dark)
        return strong ? QColor::fromHsl(hue, 170, 175) : QColor::fromHsl(hue, 90, 52);
    return strong ? QColor::fromHsl(hue, 180, 70) : QColor::fromHsl(hue, 150, 232);
}

} // namespace

bool StatePalette::isDark(const QPalette &palette)
{
    return palette.color(QPalette::Base).lightness() < 128;
}

StatePalette::Chip StatePalette::stateChip(ActionState state, const QPalette &palette)
{
    const bool dark = isDark(palette);
    const int hue = hueOf(state);
    Chip chip;
    if (state == ActionState::Rejected) {
        chip.fill = dark ? QColor(70, 70, 74) : QColor(232, 232, 235);
        chip.text = dark ? QColor(215, 215, 220) : QColor(70, 70, 76);
    } else {
        chip.fill = tone(hue, dark, false);
        chip.text = tone(hue, dark, true);
    }
    chip.border = chip.text;
    chip.border.setAlpha(90);
    return chip;
}

QColor StatePalette::attemptColor(Attempt::Outcome outcome, const QPalette &palette)
{
    const bool dark = isDark(palette);
    switch (outcome) {
    case Attempt::Outcome::Succeeded:
        return tone(140, dark, true);
    case Attempt::Outcome::Rejected:
        return dark ? QColor(170, 170, 175) : QColor(110, 110, 115);
    case Attempt::Outcome::Unknown:
    case Attempt::Outcome::Open:
        return tone(35, dark, true);
    case Attempt::Outcome::IdempotencyMismatch:
        return tone(5, dark, true);
    case Attempt::Outcome::RateLimited:
    case Attempt::Outcome::KeyInUse:
        return tone(265, dark, true);
    }
    return palette.color(QPalette::Text);
}

QColor StatePalette::lookupColor(ProviderLookup::Result result, const QPalette &palette)
{
    const bool dark = isDark(palette);
    switch (result) {
    case ProviderLookup::Result::Found:
        return tone(140, dark, true);
    case ProviderLookup::Result::NotFound:
        return tone(212, dark, true);
    case ProviderLookup::Result::Error:
        return tone(5, dark, true);
    }
    return palette.color(QPalette::Text);
}

QColor StatePalette::changedFill(const QPalette &palette)
{
    return isDark(palette) ? QColor(150, 100, 20, 120) : QColor(255, 214, 102, 150);
}

QColor StatePalette::warningFill(const QPalette &palette)
{
    return isDark(palette) ? QColor(90, 60, 20) : QColor(255, 243, 205);
}

QColor StatePalette::warningText(const QPalette &palette)
{
    return isDark(palette) ? QColor(255, 214, 140) : QColor(110, 70, 0);
}

QColor StatePalette::mutedText(const QPalette &palette)
{
    QColor c = palette.color(QPalette::Text);
    c.setAlpha(150);
    return c;
}

QFont StatePalette::monospaceFont(int pointSizeDelta)
{
    QFont font = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    font.setStyleHint(QFont::Monospace);
    if (pointSizeDelta != 0 && font.pointSize() > 0)
        font.setPointSize(font.pointSize() + pointSizeDelta);
    return font;
}

} // namespace cs
