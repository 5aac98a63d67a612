#include "client/tokenstore.h"
#include "client/clientlog.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <QTimer>

#ifdef COUNTERSIGN_HAVE_KEYCHAIN
#include <qt6keychain/keychain.h>
#endif

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cs {

namespace {
const QString Service = QStringLiteral("countersign");
}

TokenStore::TokenStore(QObject *parent)
    : QObject(parent)
    , m_keychainEnabled(keychainCompiledIn())
    , m_directory(QStandardPaths::writableLocation(QStandardPaths::AppConfigLocation))
{
}

bool TokenStore::keychainCompiledIn()
{
#ifdef COUNTERSIGN_HAVE_KEYCHAIN
    return true;
#else
    return false;
#endif
}

QString TokenStore::filePath(const QString &profile) const
{
    const QByteArray hash = QCryptographicHash::hash(profile.toUtf8(), QCryptographicHash::Sha256).toHex().left(16);
    return m_directory + QStringLiteral("/tokens/") + QString::fromLatin1(hash) + QStringLiteral(".token");
}

QString TokenStore::readTokenFile(const QString &path, QString *error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        if (error)
            *error = file.errorString();
        return QString();
    }
    const QList<QByteArray> lines = file.readAll().split('\n');
    for (const QByteArray &line : lines) {
        const QByteArray token = line.trimmed();
        if (!token.isEmpty())
            return QString::fromUtf8(token);
    }
    if (error)
        *error = QStringLiteral("the file is empty");
    return QString();
}

void TokenStore::load(const QString &profile)
{
#ifdef COUNTERSIGN_HAVE_KEYCHAIN
    if (m_keychainEnabled) {
        auto *job = new QKeychain::ReadPasswordJob(Service, this);
        job->setAutoDelete(true);
        job->setKey(profile);
        connect(job, &QKeychain::Job::finished, this, [this, profile](QKeychain::Job *j) {
            auto *read = static_cast<QKeychain::ReadPasswordJob *>(j);
            if (read->error() == QKeychain::NoError && !read->textData().isEmpty()) {
                emit loaded(profile, read->textData(), Backend::Keychain);
                return;
            }
            if (read->error() != QKeychain::EntryNotFound)
                qCInfo(lcClient) << "keychain unavailable (" << read->errorString() << "); using the token file";
            loadFromFile(profile);
        });
        job->start();
        return;
    }
#endif
    QTimer::singleShot(0, this, [this, profile] { loadFromFile(profile); });
}

void TokenStore::loadFromFile(const QString &profile)
{
    const QString path = filePath(profile);
    if (!QFileInfo::exists(path)) {
        emit notFound(profile);
        return;
    }
    QString error;
    const QString token = readTokenFile(path, &error);
    if (token.isEmpty())
        emit failed(profile, error);
    else
        emit loaded(profile, token, Backend::File);
}

void TokenStore::save(const QString &profile, const QString &token)
{
#ifdef COUNTERSIGN_HAVE_KEYCHAIN
    if (m_keychainEnabled) {
        auto *job = new QKeychain::WritePasswordJob(Service, this);
        job->setAutoDelete(true);
        job->setKey(profile);
        job->setTextData(token);
        connect(job, &QKeychain::Job::finished, this, [this, profile, token](QKeychain::Job *j) {
            if (j->error() == QKeychain::NoError) {
                QFile::remove(filePath(profile)); // never keep two copies
                emit saved(profile, Backend::Keychain);
                return;
            }
            qCInfo(lcClient) << "keychain unavailable (" << j->errorString() << "); using the token file";
            saveToFile(profile, token);
        });
        job->start();
        return;
    }
#endif
    QTimer::singleShot(0, this, [this, profile, token] { saveToFile(profile, token); });
}

void TokenStore::saveToFile(const QString &profile, const QString &token)
{
    const QString path = filePath(profile);
    const QString folder = QFileInfo(path).absolutePath();
    if (!QDir().mkpath(folder)) {
        emit failed(profile, tr("Cannot create %1").arg(folder));
        return;
    }
    ::chmod(QFile::encodeName(folder).constData(), 0700);
    // Created 0600 from the start: the token is never readable by others, not even briefly.
    const QByteArray tmp = QFile::encodeName(path + QStringLiteral(".tmp"));
    const int fd = ::open(tmp.constData(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        emit failed(profile, tr("Cannot write %1").arg(path));
        return;
    }
    ::fchmod(fd, 0600);
    const QByteArray bytes = token.toUtf8() + '\n';
    const bool written = ::write(fd, bytes.constData(), size_t(bytes.size())) == bytes.size() && ::fsync(fd) == 0;
    ::close(fd);
    if (!written || ::rename(tmp.constData(), QFile::encodeName(path).constData()) != 0) {
        ::unlink(tmp.constData());
        emit failed(profile, tr("Cannot write %1").arg(path));
        return;
    }
    emit saved(profile, Backend::File);
}

void TokenStore::remove(const QString &profile)
{
#ifdef COUNTERSIGN_HAVE_KEYCHAIN
    if (m_keychainEnabled) {
        auto *job = new QKeychain::DeletePasswordJob(Service, this);
        job->setAutoDelete(true);
        job->setKey(profile);
        job->start();
    }
#endif
    QFile::remove(filePath(profile));
}

} // namespace cs
