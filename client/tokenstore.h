#pragma once

#include <QObject>
#include <QString>

namespace cs {

// Keeps the bearer token of a connection profile (keyed by the backend URL): in the system
// keychain through QtKeychain when the console was built with it and a keychain answers,
// otherwise in a file only the user can read (0600, in a 0700 folder under
// QStandardPaths::AppConfigLocation). Keychain calls are asynchronous: results arrive as
// signals. Not thread-safe.
class TokenStore : public QObject
{
    Q_OBJECT

public:
    enum class Backend { Keychain, File };
    Q_ENUM(Backend)

    explicit TokenStore(QObject *parent = nullptr);

    static bool keychainCompiledIn();
    // Use the file store only (tests; machines without a keychain daemon).
    void setKeychainEnabled(bool enabled) { m_keychainEnabled = enabled && keychainCompiledIn(); }
    void setDirectory(const QString &directory) { m_directory = directory; }
    QString directory() const { return m_directory; }

    void load(const QString &profile);
    void save(const QString &profile, const QString &token);
    void remove(const QString &profile);

    // The file the token of `profile` lives in when the file store is used.
    QString filePath(const QString &profile) const;
    // Reads a token file given on the command line (--token-file): the first non-empty line.
    static QString readTokenFile(const QString &path, QString *error);

signals:
    void loaded(const QString &profile, const QString &token, cs::TokenStore::Backend from);
    void notFound(const QString &profile);
    void saved(const QString &profile, cs::TokenStore::Backend to);
    void failed(const QString &profile, const QString &message);

private:
    void loadFromFile(const QString &profile);
    void saveToFile(const QString &profile, const QString &token);

    bool m_keychainEnabled = true;
    QString m_directory;
};

} // namespace cs
