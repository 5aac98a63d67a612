#include "server/api/requestreplaystore.h"

#include "server/ledger/auditchain.h"
#include "server/ledger/ledgerdatabase.h"
#include "server/ledger/sqlstatement.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSqlQuery>

namespace cs {

using sql::run;

namespace {

QString headersToJson(const HeaderList &headers)
{
    QJsonArray array;
    for (const auto &header : headers)
        array.append(QJsonArray{QString::fromLatin1(header.first), QString::fromLatin1(header.second)});
    return QString::fromUtf8(QJsonDocument(array).toJson(QJsonDocument::Compact));
}

HeaderList headersFromJson(const QString &json)
{
    HeaderList headers;
    const QJsonArray array = QJsonDocument::fromJson(json.toUtf8()).array();
    for (const QJsonValue &value : array) {
        const QJsonArray pair = value.toArray();
        if (pair.size() == 2)
            headers.append({pair.at(0).toString().toLatin1(), pair.at(1).toString().toLatin1()});
    }
    return headers;
}

} // namespace

RequestReplayStore::RequestReplayStore(LedgerDatabase *database, Clock clock, Options options)
    : m_db(database), m_clock(clock ? std::move(clock) : systemClock()), m_options(options)
{
}

qint64 RequestReplayStore::nowMs() const
{
    return m_clock().toMSecsSinceEpoch();
}

LedgerResult<RequestReplayStore::Begin> RequestReplayStore::begin(const QString &user, const QString &key,
                                                                  const QString &requestHash, const QString &method,
                                                                  const QString &path)
{
    Begin out;
    const qint64 now = nowMs();
    const LedgerError error = m_db->write("replay.begin", [&](QSqlDatabase &db, const QDateTime &) -> LedgerError {
        out = Begin();
        LedgerError e;
        sql::Statement q(db);
        if (!run(q,
                 QStringLiteral("SELECT request_hash, state, status, headers_json, body, created_at, expires_at"
                                " FROM api_requests WHERE user_name = ? AND idempotency_key = ?"),
                 {user, key}, &e)) {
            return e;
        }
        bool takeOver = false;
        if (q.next()) {
            const QString hash = q.value(0).toString();
            const bool done = q.value(1).toString() == u"done";
            const qint64 createdAt = q.value(5).toLongLong();
            const qint64 expiresAt = q.value(6).toLongLong();
            const bool expired = expiresAt <= now;
            const bool abandoned = !done && createdAt + m_options.inFlightTimeout.count() <= now;
            if (!expired && !abandoned) {
                if (hash != requestHash) {
                    out.kind = Begin::Kind::Reuse;
                } else if (!done) {
                    out.kind = Begin::Kind::InFlight;
                } else {
                    out.kind = Begin::Kind::Replay;
                    out.stored.status = q.value(2).toInt();
                    out.stored.headers = headersFromJson(q.value(3).toString());
                    out.stored.body = q.value(4).toByteArray();
                    out.stored.contentType = out.stored.header("Content-Type");
                    out.stored.headers.removeIf([](const auto &h) {
                        return h.first.compare("Content-Type", Qt::CaseInsensitive) == 0;
                    });
                }
                return {};
            }
            takeOver = true;
        }
        q.finish();
        if (takeOver) {
            sql::Statement remove(db);
            if (!run(remove, QStringLiteral("DELETE FROM api_requests WHERE user_name = ? AND idempotency_key = ?"),
                     {user, key}, &e)) {
                return e;
            }
        }
        sql::Statement insert(db);
        if (!run(insert,
                 QStringLiteral("INSERT INTO api_requests (user_name, idempotency_key, request_hash, method, path, state,"
                                " status, headers_json, body, created_at, expires_at)"
                                " VALUES (?, ?, ?, ?, ?, 'in_flight', 0, '[]', ?, ?, ?)"),
                 {user, key, requestHash, method, path, QByteArray(""), now, now + m_options.retention.count()}, &e)) {
            return e;
        }
        out.kind = Begin::Kind::Started;
        return {};
    });
    return resultOf(error, out);
}

LedgerError RequestReplayStore::complete(const QString &user, const QString &key, const ApiResponse &response)
{
    HeaderList headers = response.headers;
    headers.prepend({"Content-Type", response.contentType});
    return m_db->write("replay.complete", [&](QSqlDatabase &db, const QDateTime &) {
        LedgerError error;
        sql::Statement q(db);
        run(q,
            QStringLiteral("UPDATE api_requests SET state = 'done', status = ?, headers_json = ?, body = ?"
                           " WHERE user_name = ? AND idempotency_key = ? AND state = 'in_flight'"),
            {response.status, headersToJson(headers), response.body, user, key}, &error);
        return error;
    });
}

LedgerError RequestReplayStore::release(const QString &user, const QString &key)
{
    return m_db->write("replay.release", [&](QSqlDatabase &db, const QDateTime &) {
        LedgerError error;
        sql::Statement q(db);
        run(q, QStringLiteral("DELETE FROM api_requests WHERE user_name = ? AND idempotency_key = ? AND state = 'in_flight'"),
            {user, key}, &error);
        return error;
    });
}

LedgerResult<int> RequestReplayStore::pruneExpired()
{
    int pruned = 0;
    const LedgerError error = m_db->write("replay.prune", [&](QSqlDatabase &db, const QDateTime &) {
        LedgerError e;
        sql::Statement q(db);
        if (run(q, QStringLiteral("DELETE FROM api_requests WHERE expires_at <= ?"), {nowMs()}, &e))
            pruned = q.numRowsAffected();
        return e;
    });
    return resultOf(error, pruned);
}

} // namespace cs
