#pragma once

#include "ledgerresult.h"

#include "actionrecord.h"
#include "actionstate.h"

#include <QDateTime>
#include <QHash>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

namespace cs {

class LedgerConnections;

// Read-only queries the API needs beyond LedgerStore's reads: the queue filtered by requester,
// per-requester counts, attempt counts, the time of the newest audit event and the first attempt's
// start (for key_window_ends_at). Runs on the ledger's file through its own per-thread
// connections; never takes the write lock (WAL). Thread-safe.
class ActionReader
{
public:
    // One row of the list: the record plus what the list shows about its history.
    struct Summary
    {
        ActionRecord record;
        int attemptCount = 0;
        QDateTime lastEventAt;       // newest audit event of the action
        QDateTime firstAttemptAt;    // null until the first attempt
    };

    struct ListQuery
    {
        QList<ActionState> states;   // empty: all
        QString text;                // case-insensitive substring of id, target id, business_reference,
                                     // requested_by, client_reference; empty: none
        QString requestedBy;         // exact; empty: anyone
        bool afterCursor = false;    // keyset position: rows strictly older than (createdAtMs, id)
        qint64 cursorCreatedAtMs = 0;
        QString cursorId;
        int limit = 50;              // 1..200 (the caller validates)
    };

    struct Page
    {
        QList<Summary> rows;
        bool hasMore = false;
    };

    explicit ActionReader(LedgerConnections *connections);

    // Newest first (created_at, then id, descending).
    LedgerResult<Page> list(const ListQuery &query) const;
    // All six states, zeros included; requestedBy empty: every action.
    LedgerResult<QMap<ActionState, qint64>> counts(const QString &requestedBy) const;
    // Summaries of the given actions, in the given order (unknown ids are left out).
    LedgerResult<QList<Summary>> summaries(const QStringList &ids) const;
    LedgerResult<Summary> summary(const QString &id) const; // NotFound for an unknown id
    // The newest audit seq (0 for an empty log).
    LedgerResult<qint64> latestAuditSeq() const;
    // requested_by of each given action (for filtering the event stream).
    LedgerResult<QHash<QString, QString>> requesters(const QStringList &ids) const;

private:
    LedgerConnections *m_connections;
};

} // namespace cs
