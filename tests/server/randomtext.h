#pragma once

// Generated text for the property tests (tst_audit_property, tst_hostile_input): random Unicode
// a person or an agent might send, or (anything = true) any UTF-16 at all, lone surrogates and
// controls included. Header-only.

#include "server/api/bodyreader.h"

#include <QRandomGenerator>
#include <QString>

namespace cs::test {

// Pools of code points a person or an agent might send.
inline char32_t pick(QRandomGenerator &random, bool multiLine, bool anything)
{
    if (anything) {
        switch (random.bounded(4)) {
        case 0: return char32_t(random.bounded(0x20));              // C0
        case 1: return char32_t(0xD800 + random.bounded(0x800));    // a lone surrogate (as a unit)
        case 2: return char32_t(random.bounded(0x10000));           // any BMP unit
        default: return char32_t(0x10000 + random.bounded(0x100000)); // astral
        }
    }
    switch (random.bounded(12)) {
    case 0: return char32_t(0x20 + random.bounded(0x5F));                 // printable ASCII
    case 1: return U"\"\\/'<>&%{}"[random.bounded(10)];                  // JSON and SQL specials
    case 2: return char32_t(0xA0 + random.bounded(0x160));                // Latin-1, Latin Extended
    case 3: return char32_t(0x300 + random.bounded(0x70));                 // combining marks
    case 4: return char32_t(0x5D0 + random.bounded(0x1B));                 // Hebrew (RTL)
    case 5: return char32_t(0x4E00 + random.bounded(0x5000));              // CJK
    case 6: return char32_t(0x1F300 + random.bounded(0x300));              // emoji (astral)
    case 7: return char32_t(0x10000 + random.bounded(0xFFFFF));            // any astral
    case 8: return U"\uFFFD\u00A0\u3000\u2060"[random.bounded(4)];         // replacement, spaces, word joiner
    case 9: return multiLine ? U"\n\t\u200D\u200E"[random.bounded(4)] : U'-'; // notes: newline, tab, ZWJ, LRM
    case 10: return char32_t(0xAC00 + random.bounded(0x2BA4));             // Hangul
    default: return char32_t('a' + random.bounded(26));
    }
}

inline QString randomText(QRandomGenerator &random, qsizetype maxUnits, bool multiLine, bool anything)
{
    const qsizetype wanted = random.bounded(8) == 0 ? maxUnits : 1 + random.bounded(qMin<qsizetype>(maxUnits, 40));
    QString text;
    while (text.size() < wanted) {
        const char32_t c = pick(random, multiLine, anything);
        if (anything && c >= 0xD800 && c < 0xE000) {
            text.append(QChar(char16_t(c)));
            continue;
        }
        const QString unit = QChar::requiresSurrogates(c) ? (QString(QChar(QChar::highSurrogate(c))) + QChar(QChar::lowSurrogate(c)))
                                                          : QString(QChar(char16_t(c)));
        if (text.size() + unit.size() > maxUnits)
            break;
        text += unit;
    }
    if (anything)
        return text;
    // What the API accepts: valid, within the rules, not blank.
    const BodyReader::Text rule = multiLine ? BodyReader::Text::MultiLine : BodyReader::Text::SingleLine;
    if (text.trimmed().isEmpty() || BodyReader::textProblem(text, rule))
        return randomText(random, maxUnits, multiLine, anything);
    return text;
}


} // namespace cs::test
