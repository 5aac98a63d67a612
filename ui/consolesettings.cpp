#include "ui/consolesettings.h"

namespace cs {

namespace {
std::unique_ptr<QSettings> userSettings()
{
    return std::make_unique<QSettings>(QSettings::NativeFormat, QSettings::UserScope,
                                       QStringLiteral("Countersign"), QStringLiteral("countersign"));
}
} // namespace

#define CS_SETTINGS_MEMBERS                                                                        \
    backendUrl(m_settings.get(), QStringLiteral("profile/backendUrl"), QStringLiteral("http://127.0.0.1:8470")), \
    recentBackends(m_settings.get(), QStringLiteral("profile/recent")),                            \
    rememberToken(m_settings.get(), QStringLiteral("profile/rememberToken"), true),                \
    windowGeometry(m_settings.get(), QStringLiteral("window/geometry")),                           \
    windowState(m_settings.get(), QStringLiteral("window/state")),                                 \
    splitterState(m_settings.get(), QStringLiteral("window/splitter")),                            \
    detailSplitterState(m_settings.get(), QStringLiteral("window/detailSplitter")),                \
    queueHeaderState(m_settings.get(), QStringLiteral("queue/header")),                            \
    queueFilter(m_settings.get(), QStringLiteral("queue/filter"), QStringLiteral("queue")),        \
    queueSearch(m_settings.get(), QStringLiteral("queue/search")),                                 \
    detailTab(m_settings.get(), QStringLiteral("detail/tab"), 0),                                   \
    exportDirectory(m_settings.get(), QStringLiteral("export/directory")),                         \
    exportFormat(m_settings.get(), QStringLiteral("export/format"), QStringLiteral("csv")),        \
    notificationsEnabled(m_settings.get(), QStringLiteral("notifications/enabled"), true),         \
    notificationInterval(m_settings.get(), QStringLiteral("notifications/intervalSeconds"), 30)

ConsoleSettings::ConsoleSettings()
    : m_settings(userSettings())
    , CS_SETTINGS_MEMBERS
{
}

ConsoleSettings::ConsoleSettings(const QString &iniFile)
    : m_settings(std::make_unique<QSettings>(iniFile, QSettings::IniFormat))
    , CS_SETTINGS_MEMBERS
{
}

#undef CS_SETTINGS_MEMBERS

} // namespace cs
