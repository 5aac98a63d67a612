#pragma once

// What the PostgreSQL benchmarks share: a bare libpq session, for the baselines (which talk to
// the server without Qt SQL or the ledger) and for writing large ledgers with COPY.

#include <QByteArray>
#include <QList>
#include <QString>

#include <libpq-fe.h>

#include <cstdio>
#include <poll.h>
#include <vector>

namespace cs::bench {

// One libpq connection. Not thread-safe: one per thread.
class PgSession
{
public:
    explicit PgSession(const QString &uri) : m_conn(PQconnectdb(uri.toUtf8().constData())) {}
    ~PgSession() { PQfinish(m_conn); }
    Q_DISABLE_COPY_MOVE(PgSession)

    bool ok() const { return PQstatus(m_conn) == CONNECTION_OK; }
    QString error() const { return QString::fromUtf8(PQerrorMessage(m_conn)).trimmed(); }
    PGconn *raw() { return m_conn; }

    // A statement without parameters; false (and the message on stderr) on an error.
    bool exec(const char *sql)
    {
        PGresult *r = PQexec(m_conn, sql);
        const bool good = done(r, sql);
        PQclear(r);
        return good;
    }
    // The first column of the first row as a number (-1 on an error or no row).
    qint64 scalar(const char *sql)
    {
        PGresult *r = PQexec(m_conn, sql);
        const qint64 v = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) > 0 ? QByteArray(PQgetvalue(r, 0, 0)).toLongLong()
                                                                               : -1;
        PQclear(r);
        return v;
    }
    bool prepare(const char *name, const char *sql)
    {
        PGresult *r = PQprepare(m_conn, name, sql, 0, nullptr);
        const bool good = done(r, sql);
        PQclear(r);
        return good;
    }
    // A prepared statement with text parameters; the caller PQclear()s the result.
    PGresult *run(const char *name, const QList<QByteArray> &params)
    {
        std::vector<const char *> values;
        for (const QByteArray &p : params)
            values.push_back(p.constData());
        return PQexecPrepared(m_conn, name, int(values.size()), values.data(), nullptr, nullptr, 0);
    }
    // Waits up to timeoutMs for a notification on a channel this session LISTENs to, and drops
    // every one that arrived; true if there was one.
    bool waitForNotification(int timeoutMs)
    {
        bool any = false;
        for (int pass = 0; pass < 2 && !any; ++pass) {
            PQconsumeInput(m_conn);
            while (PGnotify *n = PQnotifies(m_conn)) {
                any = true;
                PQfreemem(n);
            }
            if (any || pass == 1)
                break;
            pollfd fd{PQsocket(m_conn), POLLIN, 0};
            if (poll(&fd, 1, timeoutMs) <= 0)
                break;
        }
        return any;
    }
    // SQLSTATE of a failed result ("" for none).
    static QByteArray state(const PGresult *r)
    {
        const char *s = PQresultErrorField(r, PG_DIAG_SQLSTATE);
        return s ? QByteArray(s) : QByteArray();
    }

private:
    static bool done(PGresult *r, const char *sql)
    {
        const ExecStatusType s = PQresultStatus(r);
        if (s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK || s == PGRES_COPY_IN)
            return true;
        std::fprintf(stderr, "bench: %s: %s\n", sql, PQresultErrorMessage(r));
        return false;
    }

    PGconn *m_conn;
};

} // namespace cs::bench
