#pragma once

#include <QSettings>
#include <QString>
#include <QVariant>

namespace cs {

// One typed value in QSettings: the key and its default live in one place.
template <typename T>
class SettingValue
{
public:
    SettingValue(QSettings *settings, QString key, T defaultValue = T())
        : m_settings(settings), m_key(std::move(key)), m_default(std::move(defaultValue)) {}

    T get() const
    {
        const QVariant value = m_settings->value(m_key);
        return value.isValid() && value.canConvert<T>() ? value.value<T>() : m_default;
    }
    void set(const T &value) { m_settings->setValue(m_key, QVariant::fromValue(value)); }
    void reset() { m_settings->remove(m_key); }
    QString key() const { return m_key; }

    operator T() const { return get(); }
    SettingValue &operator=(const T &value)
    {
        set(value);
        return *this;
    }

private:
    QSettings *m_settings;
    QString m_key;
    T m_default;
};

} // namespace cs
