#pragma once

#include "server/ledger/ledgerresult.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <functional>

namespace cs {

// Moves a ledger from SQLite to PostgreSQL (`countersignd migrate --from FILE --to URI`): every
// row of every table of an existing SQLite ledger, into an EMPTY PostgreSQL database, in ONE
// transaction on the target — all of it or nothing.
//
// What it does, in order:
//   1. Opens the source file as a ledger (migrating it to the latest schema, as `migrate --db FILE`
//      does; expired leases are NOT recovered: the copy is of the ledger as it is) and takes its
//      write lock (BEGIN IMMEDIATE) for the whole copy, so nothing can be written to it meanwhile:
//      a countersignd still serving it fails its writes (stop it first). Its audit chain is
//      verified and every table counted and digested.
//   2. On the target, in one transaction that holds the audit chain's advisory lock: refuses a
//      database that is not empty (any table other than a Countersign ledger's, or a ledger
//      table with rows); creates the schema (the statements of Migrations, in this transaction)
//      unless an empty ledger at the latest schema is already there; then inserts every row with
//      the target's triggers in force — nothing is switched off (no session_replication_role):
//      actions first (parents before their partial refunds), attempts inserted open (as the
//      triggers require of a new attempt) and then finished with their recorded outcome, audit
//      rows byte-for-byte as stored (the chain hashes the bytes). The count tables are not
//      copied but recomputed by the target's own triggers and then compared; attempt_count and
//      last_event_at likewise.
//   3. Before COMMIT: verifies the target's audit chain (AuditChain::verify) and compares every
//      table's row count and content digest with the source's. Any difference rolls back.
//
// The digest of a table is SHA-256 over its rows in primary-key order (keys compared as stored
// bytes on both engines), each value as its type and exact bytes: text as its stored UTF-8, so
// equal digests mean byte-identical rows. A text value that PostgreSQL cannot store as text (not
// valid UTF-8, or a NUL character) stops the copy with the row named; nothing is written.
//
// Not thread-safe; runs on the calling thread, synchronously.
class LedgerCopy
{
public:
    struct Options
    {
        QString passwordFile;     // the target's password (PostgreSQL); else libpq's sources
        int busyTimeoutMs = 5000; // how long to wait for the source's write lock
        int batchRows = 500;      // rows per INSERT statement
        // Called after each table is written, with its row count (progress for long copies).
        std::function<void(const QString &table, qint64 rows)> progress;
    };

    struct Table
    {
        QString name;
        qint64 rows = 0;
        QString digest; // SHA-256, hex: equal on both sides
    };

    struct Report
    {
        QString source;
        QString target;        // the URI without a password
        int schemaVersion = 0;
        bool createdSchema = false; // false: an empty ledger schema was already there
        QList<Table> tables;   // in the order they were written
        qint64 auditRows = 0;  // verified on both sides
        QString auditHead;     // hash of the last audit row ("" for an empty chain)
        qint64 elapsedMs = 0;
    };

    // Copies sqliteFile into the PostgreSQL database of postgresUri. Invalid for a missing file or
    // a target that is not a PostgreSQL URI; Conflict for a target that is not empty, a broken
    // source chain or a verification that differs; Busy if the source stays locked by a writer;
    // Unavailable if the target cannot be reached (a COMMIT whose answer was lost says so: run the
    // copy again — it refuses a target that did commit).
    static LedgerResult<Report> copy(const QString &sqliteFile, const QString &postgresUri, const Options &options);

    // Every table of a ledger at the latest schema, in the order the copy writes them.
    static const QStringList &tables();
};

} // namespace cs
