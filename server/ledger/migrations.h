#pragma once

#include "server/ledger/ledgererror.h"

#include <QList>
#include <QSqlDatabase>
#include <QString>
#include <QStringList>

namespace cs {

// The ledger's schema as ordered migrations. Each migration is a list of statements applied in one
// transaction together with its row in schema_version; a database is brought forward one
// migration at a time and never backwards (a newer database than this program is refused).
//
// One schema, two dialects. Tables and columns use standard SQL types (TEXT, BIGINT, INTEGER) and
// are written once; on PostgreSQL every TEXT column is COLLATE "C" (byte order, as SQLite sorts
// and compares) and BLOB is BYTEA. The rules the database enforces — payload, fingerprint and key
// frozen once an attempt exists; append-only tables; one key per action's attempts — are SQLite
// triggers (RAISE(ABORT, ...)) in `statements` and the same rules as PL/pgSQL trigger functions
// in `postgres` (which also refuse TRUNCATE, which bypasses row triggers). The trigger-kept
// counts and sort keys are the same on both; the substring search is FTS5 trigram on SQLite and
// pg_trgm GIN indexes on PostgreSQL. Both engines reach the same version numbers.
//
// Timestamps are stored as BIGINT milliseconds since the Unix epoch, UTC: exact for the ms
// precision of the domain types, cheap to compare for leases and to order for keyset paging.
class Migrations
{
public:
    struct Migration
    {
        int version = 0;
        QString name;
        QStringList statements; // SQLite
        QStringList postgres;   // PostgreSQL: the same schema and rules
    };

    static const QList<Migration> &all();
    static int latestVersion();

    // The highest applied version, 0 for an empty database.
    static int currentVersion(QSqlDatabase &db, LedgerError *error);

    // Applies every pending migration, each in its own transaction that re-reads the version first
    // under a lock (SQLite: BEGIN IMMEDIATE; PostgreSQL: an advisory lock), so two processes
    // opening the same ledger at once apply each exactly once.
    static LedgerError migrate(QSqlDatabase &db, qint64 nowMs);
};

} // namespace cs
