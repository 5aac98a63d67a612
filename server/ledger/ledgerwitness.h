#pragma once

#include "server/ledger/ledgerresult.h"

#include <QDateTime>
#include <QMutex>
#include <QString>

#include <optional>

namespace cs {

class LedgerDatabase;

// The witness of a ledger's audit head (issue 34): a small file OUTSIDE the ledger — by default
// FILE.witness beside a SQLite ledger — that `countersignd serve` advances after every commit to
// the seq and hash of the audit chain's last row. A ledger that lost its tail (a -wal written
// over, a stale copy put back, a file system that lost writes) still verifies as a chain, because
// a chain cannot know its own end; its witness does. serve refuses a ledger behind its witness
// (or whose row at the witness's seq has another hash), naming both heads; `audit verify
// --witness FILE` and `countersignd check` report the same.
//
// Never ahead of the ledger: it is written only after COMMIT returned (synchronous = FULL on
// SQLite; an acknowledged commit on PostgreSQL), so what it names is durable in the ledger first.
// Without an fsync of its own: a power cut may leave it behind the ledger (harmless: behind is
// allowed) but never torn into a wrong answer — two 512-byte slots in separate 4 KiB blocks,
// written in turn in place, each with its own checksum; the valid slot with the higher seq is the
// witness. The file is created (and synced) once, 8 KiB, mode 0600.
class LedgerWitness
{
public:
    struct Head
    {
        qint64 seq = 0;  // 0: the chain was empty
        QString hash;    // the hash of row seq ("" when seq is 0)
        QDateTime at;    // when it was written (UTC)
    };

    // FILE.witness for a SQLite ledger FILE.
    static QString defaultPathFor(const QString &ledgerFile);

    // The witness in path: nullopt when there is no file; Invalid when there is one but no slot of
    // it is valid (not a witness, or damaged), or Storage when it cannot be read.
    static LedgerResult<std::optional<Head>> read(const QString &path);

    // Both slots set to head and synced (the file created if needed): a new witness, or one reset
    // after a deliberate restore.
    static LedgerError reset(const QString &path, const Head &head);

    // What a ledger whose chain ends at ledgerHead, with hashAtWitnessSeq at the witness's seq
    // ("" if it has no such row), says against witness: "" when it is not behind; otherwise why,
    // naming both heads.
    static QString judge(const Head &witness, const Head &ledgerHead, const QString &hashAtWitnessSeq);

    LedgerWitness() = default;
    ~LedgerWitness();
    Q_DISABLE_COPY_MOVE(LedgerWitness)

    // Opens path for advance(); the file must exist (reset() makes it). Storage if it cannot.
    LedgerError open(const QString &path);
    QString path() const { return m_path; }
    // After a commit whose last audit row is (seq, hash): written when seq is past what was
    // written last (commits on several threads may report out of order). Thread-safe, cheap (one
    // pwrite of 512 bytes, no fsync). A failed write is logged once and counted, never fatal: the
    // ledger, not its witness, holds the truth.
    void advance(qint64 seq, const QString &hash);
    qint64 lastWritten() const;

private:
    QString m_path;
    int m_fd = -1;
    mutable QMutex m_mutex;
    qint64 m_written = 0;
    int m_nextSlot = 0;
    bool m_failureLogged = false;
};

} // namespace cs
