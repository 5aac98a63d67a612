#include "ui/draftstore.h"
#include "ui/uilog.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QSettings>
#include <QStandardPaths>
#include <QUrl>

namespace cs {

namespace {

constexpr int FormatVersion = 1;
constexpr QFileDevice::Permissions OwnerOnly = QFileDevice::ReadOwner | QFileDevice::WriteOwner;

QString isoUtc(const QDateTime &t)
{
    return t.toUTC().toString(Qt::ISODateWithMs);
}

// Moves an unreadable file out of the way, keeping it for whoever wants to look at it.
bool setAside(const QString &fileName, const QDateTime &now)
{
    const QString base = fileName + QStringLiteral(".corrupt-") + now.toUTC().toString(QStringLiteral("yyyyMMdd-HHmmss"));
    QString target = base;
    for (int n = 2; QFileInfo::exists(target); ++n)
        target = base + QLatin1Char('-') + QString::number(n);
    if (!QFile::rename(fileName, target)) {
        qCWarning(lcUi) << "drafts: cannot set aside unreadable" << fileName << "as" << target
                        << "- keeping the drafts of this session in memory only";
        return false;
    }
    qCWarning(lcUi) << "drafts:" << fileName << "was unreadable; set aside as" << target << "- starting empty";
    return true;
}

} // namespace

QString DraftStore::directoryFor(const QSettings &settings)
{
#ifdef Q_OS_WIN
    // The native format is the registry there: no folder to sit beside.
    if (settings.format() == QSettings::NativeFormat)
        return QStandardPaths::writableLocation(QStandardPaths::AppConfigLocation) + QStringLiteral("/drafts");
#endif
    return QFileInfo(settings.fileName()).absolutePath() + QStringLiteral("/drafts");
}

QString DraftStore::fileFor(const QString &directory, const QUrl &backend, const QString &user)
{
    QCryptographicHash hash(QCryptographicHash::Sha256);
    QUrl url = backend.adjusted(QUrl::StripTrailingSlash | QUrl::NormalizePathSegments);
    if (url.path() == QLatin1String("/"))
        url.setPath(QString()); // "http://host:8470/" is "http://host:8470"
    hash.addData(url.toString().toUtf8());
    hash.addData(QByteArrayView("\n", 1));
    hash.addData(user.toUtf8());
    return directory + QLatin1Char('/') + QString::fromLatin1(hash.result().toHex()) + QStringLiteral(".json");
}

bool DraftStore::open(const QString &fileName, const QDateTime &now)
{
    if (!m_fileName.isEmpty()) {
        if (fileName == m_fileName)
            return true;
        close();
    }
    const QHash<QString, Draft> adopted = m_drafts; // kept while no file was open
    m_drafts.clear();
    m_fileName = fileName;
    m_writable = true;
    m_lastWriteOk = true;

    bool ok = true;
    bool changed = !adopted.isEmpty();
    QFile file(fileName);
    if (file.exists()) {
        QJsonParseError error{};
        QJsonDocument doc;
        const bool readable = file.open(QIODevice::ReadOnly);
        if (readable)
            doc = QJsonDocument::fromJson(file.readAll(), &error);
        file.close();
        const QJsonObject root = doc.object();
        if (!readable || error.error != QJsonParseError::NoError || !doc.isObject()
            || root.value(QLatin1String("format")).toInt() != FormatVersion
            || !root.value(QLatin1String("drafts")).isObject()) {
            ok = false;
            m_writable = setAside(fileName, now);
        } else {
            const QDateTime oldest = now.addDays(-MaxAgeDays);
            const QJsonObject drafts = root.value(QLatin1String("drafts")).toObject();
            for (auto it = drafts.begin(); it != drafts.end(); ++it) {
                const QJsonObject o = it.value().toObject();
                Draft d;
                d.fields = o.value(QLatin1String("fields")).toObject().toVariantMap();
                d.idempotencyKey = o.value(QLatin1String("idempotency_key")).toString();
                d.requestIdentity = QByteArray::fromBase64(o.value(QLatin1String("request")).toString().toLatin1());
                d.updated = QDateTime::fromString(o.value(QLatin1String("updated")).toString(), Qt::ISODateWithMs);
                if (!d.updated.isValid())
                    d.updated = now; // never drop what cannot be dated
                if (d.updated < oldest) {
                    if (!d.idempotencyKey.isEmpty())
                        qCWarning(lcUi) << "drafts: dropping" << it.key() << "untouched since" << isoUtc(d.updated)
                                        << "with its unresolved Idempotency-Key" << d.idempotencyKey;
                    changed = true;
                    continue;
                }
                m_drafts.insert(it.key(), d);
            }
        }
    }

    for (auto it = adopted.begin(); it != adopted.end(); ++it) {
        Draft &d = m_drafts[it.key()];
        d.fields = it->fields;
        if (!it->idempotencyKey.isEmpty()) {
            d.idempotencyKey = it->idempotencyKey;
            d.requestIdentity = it->requestIdentity;
        }
        if (!d.updated.isValid() || it->updated > d.updated)
            d.updated = it->updated;
    }
    if (changed)
        write();
    return ok;
}

void DraftStore::close()
{
    m_drafts.clear();
    m_fileName.clear();
    m_writable = false;
    m_lastWriteOk = true;
    ++m_session;
}

void DraftStore::saveFields(const QString &key, const QVariantMap &fields)
{
    Draft &d = m_drafts[key];
    d.fields = fields;
    d.updated = QDateTime::currentDateTimeUtc();
    write();
}

void DraftStore::remove(const QString &key)
{
    if (m_drafts.remove(key))
        write();
}

void DraftStore::resolve(const QString &key)
{
    auto it = m_drafts.find(key);
    if (it != m_drafts.end() && (!it->idempotencyKey.isEmpty() || !it->requestIdentity.isEmpty())) {
        it->idempotencyKey.clear();
        it->requestIdentity.clear();
        write();
    }
}

void DraftStore::write()
{
    if (m_fileName.isEmpty() || !m_writable)
        return;
    QJsonObject drafts;
    for (auto it = m_drafts.cbegin(); it != m_drafts.cend(); ++it) {
        QJsonObject o{ { QStringLiteral("fields"), QJsonObject::fromVariantMap(it->fields) },
                       { QStringLiteral("updated"), isoUtc(it->updated) } };
        if (!it->idempotencyKey.isEmpty()) {
            o.insert(QStringLiteral("idempotency_key"), it->idempotencyKey);
            o.insert(QStringLiteral("request"), QString::fromLatin1(it->requestIdentity.toBase64()));
        }
        drafts.insert(it.key(), o);
    }
    const QJsonObject root{ { QStringLiteral("format"), FormatVersion }, { QStringLiteral("drafts"), drafts } };

    const QString dir = QFileInfo(m_fileName).absolutePath();
    if (!QFileInfo(dir).isDir()) {
        // The folder holds reviewers' notes and pending request keys: owner only.
        const QString parent = QFileInfo(dir).absolutePath();
        if (!QDir().mkpath(parent) || !QDir().mkdir(dir, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner))
            qCWarning(lcUi) << "drafts: cannot create" << dir;
    }
    // QSaveFile writes a temporary file beside the target and renames it over the target on
    // commit(): a reader (or a crash) sees the old complete file or the new one, never a mix.
    QSaveFile file(m_fileName);
    m_lastWriteOk = false;
    if (!file.open(QIODevice::WriteOnly)) {
        qCWarning(lcUi) << "drafts: cannot write" << m_fileName << file.errorString();
        return;
    }
    if (!file.setPermissions(OwnerOnly)) {
        qCWarning(lcUi) << "drafts: cannot restrict" << m_fileName << "to its owner; not writing it";
        file.cancelWriting();
        return;
    }
    file.write(QJsonDocument(root).toJson(QJsonDocument::Indented));
    if (!file.commit()) {
        qCWarning(lcUi) << "drafts: cannot write" << m_fileName << file.errorString();
        return;
    }
    m_lastWriteOk = true;
}

} // namespace cs
