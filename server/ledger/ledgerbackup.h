#pragma once

#include "server/ledger/ledgerresult.h"

#include <QString>

namespace cs {

// A consistent copy of a live SQLite ledger (`countersignd backup --to FILE --db LEDGER`), made
// with SQLite's online backup API while `countersignd serve` keeps writing it.
//
// Consistency: ONE sqlite3_backup_step(-1). It copies every page inside one read transaction on
// the ledger, i.e. one WAL snapshot: the state after the last commit before the step began. A
// transaction is in the copy whole or not at all; commits made during the copy are not in it.
// Not steps of N pages: between two steps the read lock is released, and a commit by any other
// connection makes the next step start again from page 1 — consistent too, but against a
// countersignd that commits more often than a pass takes it never finishes.
//
// What it costs the live writer (a ledger countersignd opened is always in WAL mode): nothing
// waits. In WAL mode a reader does not block writers; the only effect is that checkpoints cannot
// move pages past the copy's snapshot into the ledger file while the step runs, so the -wal file
// grows by whatever is committed meanwhile (the step's duration x the write rate; Report::
// snapshotMs says how long it was) and is reused after the next checkpoint. A source NOT in WAL
// mode (a copy made by this class, say) is read under a SHARED lock for the whole step: a writer's
// COMMIT waits for it (its busy_timeout, 5 s in countersignd) — do not back up such a file while
// something writes it. The backup never creates, migrates or writes the ledger; it reads it. The
// one write is SQLite's own: when no countersignd has the ledger open, the backup's connection is
// the last to close and folds the -wal in and removes -wal and -shm, as any last close does.
//
// In order:
//   1. Refusals before anything is written: LEDGER a PostgreSQL URI (Invalid; postgresAdvice()
//      names pg_dump and pg_restore), LEDGER not a file, FILE the ledger itself or its -wal, -shm,
//      -journal or witness, or those of any SQLite database (LedgerFiles::refuseTarget), FILE existing without Options::force, FILE
//      a folder, FILE's folder missing.
//   2. The copy is written to FILE.partial-PID-XXXXXX (mode 0600) in FILE's folder — so the last
//      step is a rename on one file system — by one backup step, without a rollback journal (a
//      failed copy is thrown away whole); then its journal mode is set to
//      DELETE (the pages came from a WAL ledger and say WAL), so it is one standalone file.
//   3. Checked before it gets FILE's name: PRAGMA integrity_check, the schema version (a ledger,
//      not newer than this program), the audit chain (AuditChain::verify, what `countersignd audit
//      verify` runs), the file header (not WAL; no -wal, -shm or -journal beside it).
//   4. fsync, then renamed to FILE (RENAME_NOREPLACE unless force: a FILE that appeared meanwhile
//      is not replaced), then the folder fsynced.
// Any failure removes the partial file: nothing is ever left under FILE's name but a checked copy.
// A process killed outright (SIGKILL, power) can leave FILE.partial-PID-XXXXXX behind, never FILE;
// the next backup to FILE removes it once process PID is gone;
// with Options::removePartialOnSignal, SIGINT, SIGTERM and SIGHUP remove it first.
//
// Not thread-safe (removePartialOnSignal uses process-wide signal handlers); runs synchronously.
class LedgerBackup
{
public:
    struct Options
    {
        bool force = false;       // replace an existing FILE (atomically: it is never half-written)
        int busyTimeoutMs = 5000; // how long to wait for a read lock on the ledger (locking_mode=EXCLUSIVE, recovery)
        // While the copy runs, SIGINT, SIGTERM and SIGHUP remove the partial file, then end the
        // process as they would have; the previous handlers are restored afterwards. For a
        // command-line process only.
        bool removePartialOnSignal = false;
    };

    struct Report
    {
        QString source;
        QString target;
        QString sourceJournalMode;  // "wal" for a ledger countersignd opened
        int schemaVersion = 0;
        qint64 actions = 0;
        qint64 auditRows = 0;       // verified in the copy
        QString auditHead;          // hash of the last audit row ("" for an empty chain)
        qint64 bytes = 0;           // of the copy
        qint64 pages = 0;
        qint64 snapshotMs = 0;      // how long the ledger's read snapshot was held (the backup step)
        qint64 elapsedMs = 0;       // in all, checks included
    };

    // Copies the SQLite ledger at ledgerFile to targetFile. Invalid for the refusals of step 1;
    // Busy if the ledger stayed locked for busyTimeoutMs; Conflict if the copy fails a check
    // (a corrupt ledger, a broken audit chain, a schema this program does not know); Storage for
    // I/O (an unwritable folder, a full disk).
    static LedgerResult<Report> backup(const QString &ledgerFile, const QString &targetFile, const Options &options);

    // What to run instead for a PostgreSQL ledger: pg_dump --format=custom of `uri` into
    // `targetFile`, how to restore it with pg_restore into an empty database, then audit verify.
    static QString postgresAdvice(const QString &uri, const QString &targetFile);
};

} // namespace cs
