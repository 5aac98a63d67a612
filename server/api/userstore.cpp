#include "server/api/userstore.h"

#include "server/api/apilog.h"

#include "server/ledger/auditchain.h"
#include "server/ledger/ids.h"
#include "server/ledger/ledgerdatabase.h"
#include "server/ledger/sqlstatement.h"

#include "models/auditevent.h"
#include "models/jsonfieldreader.h"

#include <QCryptographicHash>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSqlQuery>

namespace cs {

using sql::run;

namespace {

constexpr int kTokenRandomLength = 52;

std::optional<QDateTime> optionalTime(const QVariant &value)
{
    if (value.isNull())
        return std::nullopt;
    return sql::fromMs(value.toLongLong());
}

// Appends the audit row of a change to `name` (never the token or its hash).
LedgerError audit(QSqlDatabase &db, const QDateTime &now, const QString &event, const QString &reason,
                  QJsonObject after)
{
    return AuditChain::append(db, now, QString(), QStringLiteral("system"), event, reason, {}, after);
}

// The user's row must exist: NotFound otherwise.
LedgerError requireUser(QSqlDatabase &db, const QString &name, std::optional<QDateTime> *expiresAt,
                        QDateTime *tokenCreatedAt)
{
    LedgerError e;
    sql::Statement q(db);
    if (!run(q, QStringLiteral("SELECT expires_at, token_created_at FROM users WHERE name = ?"), {name}, &e))
        return e;
    if (!q.next())
        return LedgerError(LedgerError::Code::NotFound, QStringLiteral("no user \"%1\"").arg(name));
    if (expiresAt)
        *expiresAt = optionalTime(q.value(0));
    if (tokenCreatedAt)
        *tokenCreatedAt = sql::fromMs(q.value(1).toLongLong());
    return {};
}

LedgerError checkFuture(const UserStore::Expiry &expiry, const QDateTime &now)
{
    if (expiry.at && *expiry.at <= now) {
        return LedgerError(LedgerError::Code::Invalid,
                           QStringLiteral("the expiry %1 is not in the future").arg(toWireTime(*expiry.at)));
    }
    return {};
}

} // namespace

UserStore::UserStore(LedgerDatabase *database, Clock clock)
    : m_db(database), m_clock(clock ? std::move(clock) : systemClock())
{
}

QDateTime UserStore::now() const
{
    return sql::fromMs(m_clock().toMSecsSinceEpoch());
}

QString UserStore::newToken()
{
    return QStringLiteral("cst_") + Ids::randomBase32(kTokenRandomLength);
}

QString UserStore::tokenPattern()
{
    return QStringLiteral("\\bcst_[a-z2-7]{%1}\\b").arg(kTokenRandomLength);
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
    // "policy": Approval::policyApprover(), the approval policy's own approvals (docs/POLICY.md).
    for (const char *reserved : {"executor", "reconciler", "system", "webhook", "policy"}) {
        if (name.compare(QLatin1String(reserved), Qt::CaseInsensitive) == 0) {
            if (why)
                *why = QStringLiteral("\"%1\" is reserved for the backend's own actors").arg(name);
            return false;
        }
    }
    return true;
}

QString UserStore::Record::state(const QDateTime &now) const
{
    if (disabled)
        return QStringLiteral("disabled");
    if (expiresAt && *expiresAt <= now)
        return QStringLiteral("expired");
    return QStringLiteral("active");
}

LedgerResult<QString> UserStore::addUser(const QString &name, Role role, const Expiry &expiry)
{
    QString why;
    if (!isValidName(name, &why))
        return LedgerError(LedgerError::Code::Invalid, why);
    const QDateTime at = now();
    if (const LedgerError invalid = checkFuture(expiry, at); !invalid.ok())
        return invalid;
    const QString token = newToken();
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
                 QStringLiteral("INSERT INTO users (name, role, token_hash, created_at, disabled, token_created_at,"
                                " expires_at) VALUES (?, ?, ?, ?, 0, ?, ?)"),
                 {name, toWire(role), hashToken(token), sql::toMs(at), sql::toMs(at),
                  expiry.at ? QVariant(sql::toMs(*expiry.at)) : QVariant()},
                 &e)) {
            return e;
        }
        // The audit chain records who may act (never the token or its hash).
        QJsonObject after{{QStringLiteral("user"), name}, {QStringLiteral("role"), toWire(role)}};
        if (expiry.at)
            after.insert(QStringLiteral("expires_at"), toWireTime(*expiry.at));
        return audit(db, at, QStringLiteral("user_added"), QStringLiteral("user %1 added with role %2").arg(name, toWire(role)),
                     after);
    });
    if (!error.ok())
        return error;
    return token;
}

LedgerResult<QString> UserStore::rotateToken(const QString &name, const Expiry &expiry)
{
    const QDateTime at = now();
    if (const LedgerError invalid = checkFuture(expiry, at); !invalid.ok())
        return invalid;
    const QString token = newToken();
    const LedgerError error = m_db->write("rotateToken", [&](QSqlDatabase &db, const QDateTime &) -> LedgerError {
        std::optional<QDateTime> expiresAt;
        QDateTime tokenCreatedAt;
        if (LedgerError e = requireUser(db, name, &expiresAt, &tokenCreatedAt); !e.ok())
            return e;
        // Without a new expiry the new token lives as long as the old one was meant to.
        if (expiry.given)
            expiresAt = expiry.at;
        else if (expiresAt)
            expiresAt = at.addMSecs(tokenCreatedAt.msecsTo(*expiresAt));
        LedgerError e;
        sql::Statement update(db);
        if (!run(update,
                 QStringLiteral("UPDATE users SET token_hash = ?, token_created_at = ?, expires_at = ?, last_used_at = NULL"
                                " WHERE name = ?"),
                 {hashToken(token), sql::toMs(at), expiresAt ? QVariant(sql::toMs(*expiresAt)) : QVariant(), name}, &e)) {
            return e;
        }
        return audit(db, at, QStringLiteral("user_token_rotated"), QStringLiteral("user %1 has a new token").arg(name),
                     QJsonObject{{QStringLiteral("user"), name}, {QStringLiteral("expires_at"), wire::timeToJson(expiresAt.value_or(QDateTime()))}});
    });
    if (!error.ok())
        return error;
    return token;
}

LedgerError UserStore::setDisabled(const QString &name, bool disabled)
{
    return m_db->write("setUserDisabled", [&](QSqlDatabase &db, const QDateTime &) -> LedgerError {
        if (LedgerError e = requireUser(db, name, nullptr, nullptr); !e.ok())
            return e;
        LedgerError e;
        sql::Statement update(db);
        if (!run(update, QStringLiteral("UPDATE users SET disabled = ? WHERE name = ? AND disabled <> ?"),
                 {disabled ? 1 : 0, name, disabled ? 1 : 0}, &e)) {
            return e;
        }
        if (update.numRowsAffected() == 0)
            return {}; // already so: nothing to record
        return audit(db, now(), disabled ? QStringLiteral("user_disabled") : QStringLiteral("user_enabled"),
                     QStringLiteral("user %1 %2").arg(name, disabled ? QStringLiteral("disabled") : QStringLiteral("enabled")),
                     QJsonObject{{QStringLiteral("user"), name}});
    });
}

LedgerResult<UserStore::Lookup> UserStore::lookUpToken(const QString &token) const
{
    LedgerError error;
    QSqlDatabase db = m_db->connection(&error);
    if (!error.ok())
        return error;
    Lookup lookup;
    std::optional<QDateTime> lastUsedAt;
    {
        sql::Statement q(db);
        if (!run(q,
                 QStringLiteral("SELECT name, role, created_at, disabled, expires_at, last_used_at FROM users"
                                " WHERE token_hash = ?"),
                 {hashToken(token)}, &error)) {
            return error;
        }
        if (!q.next())
            return lookup;
        const std::optional<Role> role = roleFromWire(q.value(1).toString());
        if (!role)
            return lookup; // the table's CHECK makes this impossible
        lookup.user = User{q.value(0).toString(), *role, sql::fromMs(q.value(2).toLongLong())};
        const std::optional<QDateTime> expiresAt = optionalTime(q.value(4));
        lastUsedAt = optionalTime(q.value(5));
        const QDateTime at = now();
        if (q.value(3).toInt() != 0)
            lookup.state = TokenState::Disabled;
        else if (expiresAt && *expiresAt <= at)
            lookup.state = TokenState::Expired;
        else
            lookup.state = TokenState::Active;
    }
    const QDateTime at = now();
    if (lookup.state == TokenState::Active && (!lastUsedAt || lastUsedAt->msecsTo(at) >= kLastUseResolutionMs)) {
        const QString hash = hashToken(token);
        const LedgerError touched = m_db->write("recordTokenUse", [&](QSqlDatabase &wdb, const QDateTime &) -> LedgerError {
            LedgerError e;
            sql::Statement update(wdb);
            if (!run(update,
                     QStringLiteral("UPDATE users SET last_used_at = ? WHERE token_hash = ?"
                                    " AND (last_used_at IS NULL OR last_used_at <= ?)"),
                     {sql::toMs(at), hash, sql::toMs(at) - kLastUseResolutionMs}, &e)) {
                return e;
            }
            return {};
        });
        if (!touched.ok())
            qCWarning(lcApi) << "cannot record the last use of" << lookup.user.name << ':' << touched.toString();
    }
    return lookup;
}

LedgerResult<QList<UserStore::Record>> UserStore::users() const
{
    QList<Record> out;
    const LedgerError error = m_db->query(
        QStringLiteral("SELECT name, role, created_at, disabled, token_created_at, expires_at, last_used_at FROM users"
                       " ORDER BY name"),
        {}, [&](const sql::Statement &q) {
            const auto role = roleFromWire(q.value(1).toString());
            if (!role)
                return;
            Record record;
            record.user = User{q.value(0).toString(), *role, sql::fromMs(q.value(2).toLongLong())};
            record.disabled = q.value(3).toInt() != 0;
            record.tokenCreatedAt = sql::fromMs(q.value(4).toLongLong());
            record.expiresAt = optionalTime(q.value(5));
            record.lastUsedAt = optionalTime(q.value(6));
            out.append(record);
        });
    if (!error.ok())
        return error;
    return out;
}

} // namespace cs
