#pragma once

#include "server/ledger/ledgererror.h"
#include "server/ledger/ledgerresult.h"

#include "models/auditevent.h"

#include <QDateTime>
#include <QJsonObject>
#include <QSqlDatabase>
#include <QString>

namespace cs {

namespace sql {
class Statement;
}

// The audit table (invariant 9): append-only, hash-chained with AuditEvent::chainHash. append()
// runs inside a LedgerDatabase::write body and only queues the row; LedgerDatabase::write calls
// flush() as the transaction's last step before COMMIT, which takes the chain's tail and writes
// the queued rows after it. On SQLite the transaction holds the file's write lock all along; on
// PostgreSQL flush() first takes the chain's transaction-scoped advisory lock, so however many
// instances write at once, appends (and the commits after them) are serialised and the chain
// never forks — and because it is the last lock a transaction takes, it cannot deadlock with row
// locks. verify() is a read. Every writer of the ledger appends through here.
//
// The hash is over exactly what is stored: append() turns every text into the UTF-8 bytes it
// writes (binding them as bytes, stored as TEXT), hashes those bytes, and verify() reads the same
// columns back as bytes (CAST … AS BLOB) and hashes them the same way. So whatever text reaches
// the ledger, even a QString with a lone surrogate that has no exact UTF-8 form, the row verifies;
// only an edit of the file breaks the chain. For every row it writes, AuditEvent::chainHash of
// the row read back gives the same hash (the console can check it).
class AuditChain
{
public:
    struct Verification
    {
        bool ok = true;
        qint64 rowsChecked = 0;
        qint64 firstBrokenSeq = 0; // 0 when ok
        QString reason;
        qint64 lastSeq = 0;        // the last row read (when ok: the chain's head; 0: empty)
        QString lastHash;
    };

    // Appends the next row (seq, prev_hash and hash computed here). actionId empty: a row about
    // no action (users).
    static LedgerError append(QSqlDatabase &db, const QDateTime &now, const QString &actionId, const QString &actor,
                              const QString &event, const QString &reason, const QJsonObject &before,
                              const QJsonObject &after);

    // Recomputes the chain and reports the first row whose seq, prev_hash or hash does not match.
    // (A truncated tail is not detectable by a chain alone.)
    static LedgerResult<Verification> verify(QSqlDatabase &db);
    // The same from row fromSeq on, linked to the stored hash of row fromSeq - 1: the chain's tail
    // (LedgerCheck's bounded check), without reading what comes before.
    static LedgerResult<Verification> verify(QSqlDatabase &db, qint64 fromSeq);

    // What flush() wrote. The last row's seq and hash identify the transaction that wrote it (the
    // hash covers the row's time, action, content and its predecessor's hash): after a COMMIT whose
    // answer was lost, LedgerDatabase reads the row with that seq back, and only that row with
    // that hash proves the transaction committed. xactId: the transaction's id (PostgreSQL, read
    // under the chain's lock), the read-back's first question.
    struct Flushed
    {
        qint64 lastSeq = 0; // 0: no row written
        QString lastHash;
        QString xactId;
    };

    // Writes the rows queued by append() on this thread (none: nothing, not even the lock).
    // PostgreSQL: takes the advisory lock, reads the transaction id and queues
    // `NOTIFY countersign_changes` (delivered at commit).
    static LedgerError flush(QSqlDatabase &db, Flushed *flushed);
    // The rows queued on this thread: dropped at every BEGIN and rollback; a savepoint rolls back
    // to the count it saw (pendingCount / dropPendingAfter).
    static void discardPending();
    static int pendingCount();
    static void dropPendingAfter(int count);

    // The advisory lock key of the chain (PostgreSQL), and the notification channel.
    static constexpr qint64 kChainLockKey = 0x436f756e74657273; // "Counters"
    static const QString &changesChannel();

    // "seq, action_id, at, …, hash" and its row mapping, for the reads.
    static const QString &columns();
    static AuditEvent fromRow(const sql::Statement &q);
};

} // namespace cs
