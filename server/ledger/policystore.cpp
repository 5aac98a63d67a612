#include "server/ledger/policystore.h"

#include "server/ledger/auditchain.h"
#include "server/ledger/ledgerdatabase.h"
#include "server/ledger/ledgerrows.h"
#include "server/ledger/sqlstatement.h"

#include <QCryptographicHash>
#include <QJsonObject>

namespace cs {

using namespace sql;

namespace {

constexpr qint64 kPolicyLockKey = 0x506f6c6963792121; // "Policy!!"

const QString kColumns = QStringLiteral("version, sha256, text, source, loaded_by, loaded_at");

PolicyStore::Version versionFromRow(const Statement &q)
{
    return {q.value(0).toInt(), q.value(1).toString(), q.value(2).toString(), q.value(3).toString(),
            q.value(4).toString(), fromMs(q.value(5).toLongLong())};
}

} // namespace

LedgerResult<PolicyStore::Version> PolicyStore::recordLoad(const QString &policyText, const QString &source,
                                                           const QString &loadedBy, bool *created)
{
    LedgerError error = rows::requireText(loadedBy, QStringLiteral("loaded_by"));
    if (!error.ok())
        return error;
    const QString sha = QString::fromLatin1(QCryptographicHash::hash(policyText.toUtf8(), QCryptographicHash::Sha256).toHex());
    Version out;
    bool appended = false;
    error = m_db.write("recordPolicy", [&](QSqlDatabase &db, const QDateTime &now) -> LedgerError {
        LedgerError e;
        appended = false;
        // Instances loading at once take turns for the next version number (SQLite: the file's
        // write lock already does).
        if (isPostgres(db)) {
            Statement lock(db);
            if (!run(lock, QStringLiteral("SELECT pg_advisory_xact_lock(%1)").arg(kPolicyLockKey), {}, &e))
                return e;
        }
        Statement latest(db);
        if (!run(latest, QStringLiteral("SELECT %1 FROM policy_versions ORDER BY version DESC LIMIT 1").arg(kColumns), {}, &e))
            return e;
        const bool hasLatest = latest.next();
        if (hasLatest && latest.value(1).toString() == sha) {
            out = versionFromRow(latest);
        } else {
            out = {hasLatest ? latest.value(0).toInt() + 1 : 1, sha, policyText, source, loadedBy, now};
            Statement insert(db);
            if (!run(insert, QStringLiteral("INSERT INTO policy_versions (%1) VALUES (?, ?, ?, ?, ?, ?)").arg(kColumns),
                     {out.version, text(sha), text(policyText), text(source), text(loadedBy), toMs(now)}, &e))
                return e;
            appended = true;
        }
        const QJsonObject after{{QStringLiteral("policy_version"), out.version}, {QStringLiteral("sha256"), sha},
                                {QStringLiteral("source"), source}, {QStringLiteral("new_version"), appended}};
        return AuditChain::append(db, now, QString(), loadedBy, QStringLiteral("policy_loaded"),
                                  appended ? QStringLiteral("policy version %1 loaded from %2").arg(out.version).arg(source)
                                           : QStringLiteral("policy version %1 loaded again from %2 (unchanged)")
                                                 .arg(out.version).arg(source),
                                  {}, after);
    });
    if (created)
        *created = appended;
    return resultOf(error, out);
}

LedgerResult<QList<PolicyStore::Version>> PolicyStore::versions() const
{
    QList<Version> out;
    const LedgerError error = m_db.read([&](QSqlDatabase &db) {
        LedgerError e;
        Statement q(db);
        if (!run(q, QStringLiteral("SELECT %1 FROM policy_versions ORDER BY version").arg(kColumns), {}, &e))
            return e;
        while (q.next())
            out.append(versionFromRow(q));
        return e;
    });
    return resultOf(error, out);
}

} // namespace cs
