#pragma once

#include "ui/settingvalue.h"

#include <QByteArray>
#include <QSettings>
#include <QString>
#include <QStringList>

#include <memory>

namespace cs {

// Everything the console remembers between runs: the last connection profile, the window
// layout, the queue's columns and filters. Tokens are not here (TokenStore keeps them).
class ConsoleSettings
{
public:
    // The user's settings (organization "Countersign", application "countersign").
    ConsoleSettings();
    // Settings in an INI file (tests, portable setups).
    explicit ConsoleSettings(const QString &iniFile);

    QSettings *store() { return m_settings.get(); }
    void sync() { m_settings->sync(); }

private:
    std::unique_ptr<QSettings> m_settings;

public:
    SettingValue<QString> backendUrl;       // last profile's backend URL
    SettingValue<QStringList> recentBackends;
    SettingValue<bool> rememberToken;
    SettingValue<QByteArray> windowGeometry;
    SettingValue<QByteArray> windowState;
    SettingValue<QByteArray> splitterState;
    SettingValue<QByteArray> detailSplitterState;
    SettingValue<QByteArray> queueHeaderState;
    SettingValue<QString> queueFilter;      // "queue", "pending", "unknown", "review", "all", "refund_failed", "two_refunds"
    SettingValue<QString> queueSearch;
    SettingValue<int> detailTab;
    SettingValue<QString> exportDirectory;  // the folder File → Export last wrote to
    SettingValue<QString> exportFormat;     // "csv" or "json", as last chosen
    SettingValue<bool> notificationsEnabled; // desktop notices (AttentionController)
    SettingValue<int> notificationInterval;  // at most one notice per this many seconds
};

} // namespace cs
