#pragma once

// One test source for both ledger engines (issue 13). A test opens its ledger at
// ledgerLocation(path) instead of path: on SQLite (the default) that is the path itself, so
// nothing changes; with COUNTERSIGN_TEST_ENGINE=postgres it is a fresh database on the binary's
// private cluster (PgCluster::shared()) and its libpq URI. Child processes and countersignd get
// the same location as --db. ctest registers such suites twice (countersign_add_test ENGINES
// sqlite postgres: <name> and <name>_postgres, label postgres).
//
// Databases made for one test function (or data row) are dropped when a later one asks for its
// own, if nothing is connected to them any more; those made outside test functions (initTestCase)
// last for the whole binary. Not thread-safe: call from the test's main thread.

#include <QSqlDatabase>
#include <QString>
#include <QTest>

namespace cs::test {

enum class Engine { Sqlite, Postgres };

// COUNTERSIGN_TEST_ENGINE: unset or "sqlite" → Sqlite, "postgres" → Postgres (anything else is a
// fatal error: a typo must not silently test SQLite twice).
Engine testEngine();
inline bool onPostgres() { return testEngine() == Engine::Postgres; }
QString engineName(); // "sqlite" or "postgres"

// sqlitePath on SQLite; on PostgreSQL CREATE DATABASE of a new name on PgCluster::shared() and
// its URI. Empty, with the reason logged (qWarning), when the cluster or the database failed.
QString ledgerLocation(const QString &sqlitePath);

// A connection by `connectionName` straight to a ledger location, no ledger code in between:
// QSQLITE on a file (foreign_keys on, like the ledger's) or QPSQL on a postgresql:// URI (user,
// password, host, port, database and ?key=value connect options). For the tests that prove what
// the database itself refuses (triggers) or that edit rows behind the ledger's back. The caller
// removes it (QSqlDatabase::removeDatabase) when done. Invalid, with *error set, if it failed.
QSqlDatabase openRawDatabase(const QString &location, const QString &connectionName, QString *error = nullptr);

// The database name of a postgresql:// location ("" for a file).
QString postgresDatabaseName(const QString &location);

} // namespace cs::test

// For the few tests that are about SQLite itself (file mode, WAL, busy_timeout, raw file edits):
// skipped on PostgreSQL with the reason. Use inside a test function (QSKIP returns from it).
#define SKIP_ON_POSTGRES(reason)                                                                                       \
    do {                                                                                                               \
        if (cs::test::onPostgres())                                                                                    \
            QSKIP("on PostgreSQL: " reason);                                                                           \
    } while (false)
