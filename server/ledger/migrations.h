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
// Tables and columns use standard SQL types (TEXT, BIGINT, INTEGER) so PostgreSQL can share them.
// The append-only triggers are SQLite dialect (RAISE(ABORT, ...)); PostgreSQL will get the same
// rules as plpgsql trigger functions in its own migration list.
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
        QStringList statements;
    };

    static const QList<Migration> &all();
    static int latestVersion();

    // The highest applied version, 0 for an empty database.
    static int currentVersion(QSqlDatabase &db, LedgerError *error);

    // Applies every pending migration, each in its own BEGIN IMMEDIATE transaction that re-reads
    // the version first, so two processes opening the same file at once apply each exactly once.
    static LedgerError migrate(QSqlDatabase &db, qint64 nowMs);
};

} // namespace cs
