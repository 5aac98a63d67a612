#pragma once

#include "server/ledger/auditchain.h"
#include "server/ledger/ledgerresult.h"
#include "server/ledger/ledgerwitness.h"

#include <QStringList>

#include <atomic>

namespace cs {

class LedgerDatabase;

// Whether a ledger is whole (issue 34). A copy with flipped bytes used to be served: listed,
// written into, reported ready. Two depths:
//
//  bounded()  before a ledger is served or written (LedgerDatabase::open runs it unless told not
//             to): the schema (every table's first page read: a damaged b-tree root or schema
//             page fails here), and the audit chain's last rows (tailRows) linked and hashed. A
//             few milliseconds whatever the ledger's size.
//  full()     `countersignd check`: SQLite's PRAGMA quick_check (every page, every index entry
//             against its row; PostgreSQL keeps its own page checksums: amcheck is the DBA's) and
//             the whole audit chain. Proportional to the ledger's size.
//
// Both report the chain's head, which againstWitness() compares with a LedgerWitness.
namespace LedgerCheck {

constexpr int DefaultTailRows = 256;

struct Result
{
    bool ok = true;
    QString problem;                 // why not, in words (the first problem found)
    QStringList quickCheck;          // full(): quick_check's lines ("ok" when whole; SQLite only)
    AuditChain::Verification chain;  // what of the chain was verified
    LedgerWitness::Head head;        // the chain's last row
};

// Storage/Unavailable only when the ledger could not be read at all; a damaged one is a Result
// with ok false (SQLITE_CORRUPT and SQLITE_NOTADB are findings, not errors).
LedgerResult<Result> bounded(QSqlDatabase &db, int tailRows = DefaultTailRows);
// stop (serve's check in the background): read between tables, and the check ends with
// Unavailable once it is set; the tables are then checked one at a time.
LedgerResult<Result> full(QSqlDatabase &db, const std::atomic<bool> *stop = nullptr);
// full() on database's connection for the calling thread.
LedgerResult<Result> full(LedgerDatabase &database, const std::atomic<bool> *stop = nullptr);

// "" when the ledger's chain (ending at head) reaches the witness's head with the same hash;
// otherwise why not (LedgerWitness::judge), naming both heads.
LedgerResult<QString> againstWitness(QSqlDatabase &db, const LedgerWitness::Head &head,
                                     const LedgerWitness::Head &witness);

// The chain's last row, read on database's connection.
LedgerResult<LedgerWitness::Head> headOf(LedgerDatabase &database);

// serve's witness at path: compared with the ledger — Damaged when the ledger is behind it or
// diverges from it (the message names both heads and the restore path), Invalid when the file is
// not a readable witness; created at the ledger's head when there is none (*note says so); then
// opened, advanced to the ledger's head (CLI commands may have written since) and attached to
// database, which advances it after every commit. witness must outlive database's writes.
LedgerError attachWitness(LedgerDatabase &database, LedgerWitness &witness, const QString &path, QString *note);

// After a deliberate restore (docs/OPERATIONS.md): one audit row `witness_reset` (actor, and the
// witness's old and new heads in its reason), then the witness at path set to the ledger's new
// head and synced. Returns that head.
LedgerResult<LedgerWitness::Head> resetWitness(LedgerDatabase &database, const QString &path, const QString &actor);

} // namespace LedgerCheck

} // namespace cs
