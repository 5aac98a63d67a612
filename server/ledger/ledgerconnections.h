#pragma once

#include "server/ledger/ledgererror.h"

#include <QMutex>
#include <QSqlDatabase>
#include <QString>
#include <QStringList>

namespace cs {

// The named QSqlDatabase connections of one ledger: one per thread, because a Qt SQL connection
// may only be used from the thread that opened it. Names are unique per (store, thread) —
// "countersign.ledger.<store serial>.<thread serial>" — and never reused, even when the OS reuses
// a thread id. A connection is removed when its thread exits or when this object is destroyed,
// whichever comes first.
//
// Thread-safe: each thread gets its own connection. Destroy this object only when no thread is
// still inside a call that uses one of its connections.
class LedgerConnections
{
public:
    LedgerConnections(QString path, int busyTimeoutMs);
    ~LedgerConnections();
    Q_DISABLE_COPY_MOVE(LedgerConnections)

    // The calling thread's connection, opened and configured on first use: busy_timeout,
    // foreign_keys=ON, synchronous=FULL, journal_mode=WAL. Invalid QSqlDatabase with *error set
    // if it cannot be opened.
    QSqlDatabase forCurrentThread(LedgerError *error);

    const QString &path() const { return m_path; }
    int openConnections() const;

private:
    bool openAndConfigure(QSqlDatabase &db, LedgerError *error);

    const quint64 m_serial;
    const QString m_path;
    const int m_busyTimeoutMs;
    mutable QMutex m_mutex;
    QStringList m_names;
};

} // namespace cs
