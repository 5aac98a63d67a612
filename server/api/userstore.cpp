#include "server/api/userstore.h"

#include "server/ledger/ids.h"
#include "server/ledger/auditchain.h"
#include "server/ledger/ledgerdatabase.h"
#include "server/ledger/sqlstatement.h"

#include "models/auditevent.h"

#include <QCryptographicHash>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSqlQuery>

namespace cs {

using sql::run;

UserStore::UserStore(LedgerDatabase *database, Clock clock)
    : m_db(database), m_clock(clock ? std::move(clock) : systemClock())
{
}

QString UserStore::newToken()
{
    return QStringLiteral("cst_") + Ids::randomBase32(52);
}

QString UserStore::hashToken(const QString &token)
{
    return QString::fromLatin1(QCryptographicHash::hash(token.toUtf8(), QCryptographicHash::Sha256).toHex());
}

bool UserStore::isValidName(const QString &name, QString *why)
{
    static const QRegularExpression pattern(QStringLiteral("^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$"));
    if (!pattern.match(name).hasMatch()) {
        if (why)
            *why = QStringLiteral("a user name is 1 to 64 characters: letters, digits, '.', '_', '@', '-'");
        return false;
    }
    for (const char *reserved : {"executor", "reconciler", "system", "webhook"}) {
        if (name.compare(QLatin1String(reserved), Qt::CaseInsensitive) == 0) {
            if (why)
                *why = QStringLiteral("\"%1\" is reserved for the backend's own actors").arg(name);
            return false;
        }
    }
    return true;
}

LedgerResult<QString> UserStore::addUser(const QString &name, Role role)
{
    QString why;
    if (!isValidName(name, &why))
        return LedgerError(LedgerError::Code::Invalid, why);
    const QString token = newToken();
    const QDateTime now = QDateTime::fromMSecsSinceEpoch(m_clock().toMSecsSinceEpoch(), Qt::UTC);
    const LedgerError error = m_db->write("addUser", [&](QSqlDatabase &db, const QDateTime &) -> LedgerError {
        LedgerError e;
        sql::Statement exists(db);
        if (!run(exists, QStringLiteral("SELECT 1 FROM users WHERE name = ?"), {name}, &e))
            return e;
        if (exists.next())
            return LedgerError(LedgerError::Code::Conflict, QStringLiteral("user \"%1\" exists").arg(name));
        exists.finish();
        sql::Statement insert(db);
        if (!run(insert,
                 QStringLiteral("INSERT INTO users (name, role, token_hash, created_at, disabled) VALUES (?, ?, ?, ?, 0)"),
                 {name, toWire(role), hashToken(token), now.toMSecsSinceEpoch()}, &e)) {
            return e;
        }
        // The audit chain records who may act (never the token or its hash).
        return AuditChain::append(db, now, QString(), QStringLiteral("system"), QStringLiteral("user_added"),
                                  QStringLiteral("user %1 added with role %2").arg(name, toWire(role)), {},
                                  QJsonObject{{QStringLiteral("user"), name}, {QStringLiteral("role"), toWire(role)}});
    });
    if (!error.ok())
        return error;
    return token;
}

LedgerResult<std::optional<User>> UserStore::userForToken(const QString &token) const
{
    LedgerError error;
    QSqlDatabase db = m_db->connection(&error);
    if (!error.ok())
        return error;
    sql::Statement q(db);
    if (!run(q, QStringLiteral("SELECT name, role, created_at FROM users WHERE token_hash = ? AND disabled = 0"),
             {hashToken(token)}, &error)) {
        return error;
    }
    std::optional<User> user;
    if (q.next()) {
        const std::optional<Role> role = roleFromWire(q.value(1).toString());
        if (role) {
            user = User{q.value(0).toString(), *role,
                        QDateTime::fromMSecsSinceEpoch(q.value(2).toLongLong(), Qt::UTC)};
        }
    }
    return user;
}

LedgerResult<QList<User>> UserStore::users() const
{
    LedgerError error;
    QSqlDatabase db = m_db->connection(&error);
    if (!error.ok())
        return error;
    sql::Statement q(db);
    if (!run(q, QStringLiteral("SELECT name, role, created_at FROM users ORDER BY name"), {}, &error))
        return error;
    QList<User> out;
    while (q.next()) {
        if (const auto role = roleFromWire(q.value(1).toString()))
            out.append(User{q.value(0).toString(), *role, QDateTime::fromMSecsSinceEpoch(q.value(2).toLongLong(), Qt::UTC)});
    }
    return out;
}

} // namespace cs
