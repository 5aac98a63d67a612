#pragma once

#include <QLocale>
#include <QString>
#include <QStringList>

#include <optional>

namespace cs {

// The console's languages (docs/TRANSLATING.md). English is the source language: its strings are
// in the code; countersign_en.qm only gives its plural forms. Every other language has a
// countersign_<lang>.qm embedded in cs_ui under :/i18n, plus Qt's own qtbase_<lang>.qm (standard
// buttons and dialogs) from QLibraryInfo::TranslationsPath when the system has it (Debian:
// qt6-translations-l10n).
struct ConsoleTranslations
{
    QString language;      // the language chosen, e.g. "de"; empty for English (the source)
    bool console = false;  // countersign_<language>.qm installed (countersign_en.qm for English)
    bool qt = false;       // qtbase_<language>.qm installed
};

// Chooses the first of locale.uiLanguages() that is English or has a console translation, and
// installs that translation and Qt's on the application (the translators are children of
// qApp); an English (or untranslated) first language installs English's plural forms. Call once,
// after the QApplication exists and before the first window is built: widgets read their texts
// when they are made.
ConsoleTranslations installConsoleTranslations(const QLocale &locale);

// The languages with a console translation, e.g. {"de"} (English not included).
QStringList consoleLanguages();

// The first of locale.uiLanguages() that is English or in `available`: "" for English (also when
// English comes first, or no language of the locale is available), else the language ("de").
QString chooseConsoleLanguage(const QLocale &locale, const QStringList &available);

// The locale for a --lang value: "de", "de_DE", "en", or "system" / empty for QLocale::system();
// std::nullopt for a name QLocale does not know.
std::optional<QLocale> consoleLocale(const QString &lang);

} // namespace cs
