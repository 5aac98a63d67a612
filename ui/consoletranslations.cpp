#include "ui/consoletranslations.h"
#include "ui/uilog.h"

#include <QCoreApplication>
#include <QDir>
#include <QLibraryInfo>
#include <QTranslator>

namespace cs {

namespace {

const QString EmbeddedDir = QStringLiteral(":/i18n");
const QString Prefix = QStringLiteral("countersign_");

// "de-DE" / "de_DE" / "de" -> "de"
QString languageOf(const QString &uiLanguage)
{
    return uiLanguage.section(QLatin1Char('-'), 0, 0).section(QLatin1Char('_'), 0, 0).toLower();
}

bool install(const QString &file, const QString &dir)
{
    auto *translator = new QTranslator(QCoreApplication::instance());
    if (translator->load(file, dir) && QCoreApplication::installTranslator(translator))
        return true;
    delete translator;
    return false;
}

} // namespace

QStringList consoleLanguages()
{
    QStringList languages;
    const QStringList files = QDir(EmbeddedDir).entryList({ Prefix + QStringLiteral("*.qm") }, QDir::Files, QDir::Name);
    for (const QString &file : files)
        languages << file.mid(Prefix.size()).chopped(3);
    languages.removeAll(QStringLiteral("en")); // the source's plural forms, not a translation
    return languages;
}

QString chooseConsoleLanguage(const QLocale &locale, const QStringList &available)
{
    // In the user's order of preference, so "en, de" stays English. QTranslator::load(QLocale)
    // would take the first language it has a file for, skipping the English the user put first.
    for (const QString &ui : locale.uiLanguages()) {
        const QString language = languageOf(ui);
        if (language == QLatin1String("en") || language == QLatin1String("c"))
            return QString();
        if (available.contains(language))
            return language;
    }
    return QString();
}

ConsoleTranslations installConsoleTranslations(const QLocale &locale)
{
    ConsoleTranslations result;
    result.language = chooseConsoleLanguage(locale, consoleLanguages());
    if (result.language.isEmpty()) {
        // English: only its plural forms ("1 action" for "%n action(s)"); Qt's buttons are English.
        result.console = install(Prefix + QStringLiteral("en"), EmbeddedDir);
        return result;
    }
    result.console = install(Prefix + result.language, EmbeddedDir);
    if (!result.console)
        qCWarning(lcUi) << "the embedded translation" << result.language << "could not be loaded";
    const QString qtDir = QLibraryInfo::path(QLibraryInfo::TranslationsPath);
    result.qt = install(QStringLiteral("qtbase_") + result.language, qtDir);
    if (!result.qt)
        qCInfo(lcUi) << "no qtbase_" << result.language << ".qm in" << qtDir << ": Qt's own buttons stay English";
    return result;
}

std::optional<QLocale> consoleLocale(const QString &lang)
{
    if (lang.isEmpty() || lang == QLatin1String("system"))
        return QLocale::system();
    const QLocale locale(lang);
    // QLocale answers C for a name it does not know.
    if (locale.language() == QLocale::C)
        return std::nullopt;
    return locale;
}

} // namespace cs
