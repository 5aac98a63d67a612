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
// runs inside a LedgerDatabase::write body (the transaction holds the write lock, so nobody else
// appends meanwhile); verify() is a read. Every writer of the ledger file appends through here.
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
    };

    // Appends the next row (seq, prev_hash and hash computed here). actionId empty: a row about
    // no action (users).
    static LedgerError append(QSqlDatabase &db, const QDateTime &now, const QString &actionId, const QString &actor,
                              const QString &event, const QString &reason, const QJsonObject &before,
                              const QJsonObject &after);

    // Recomputes the chain and reports the first row whose seq, prev_hash or hash does not match.
    // (A truncated tail is not detectable by a chain alone.)
    static LedgerResult<Verification> verify(QSqlDatabase &db);

    // The chain's last (seq, hash) is remembered per thread between appends of one transaction;
    // LedgerDatabase forgets it at every BEGIN and every rollback (of the transaction or of a
    // savepoint), so it never outlives what it describes.
    static void forgetTail();

    // "seq, action_id, at, …, hash" and its row mapping, for the reads.
    static const QString &columns();
    static AuditEvent fromRow(const sql::Statement &q);
};

} // namespace cs
