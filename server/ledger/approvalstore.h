#pragma once

#include "server/ledger/ledgerresult.h"

#include "models/actionrecord.h"

#include <QString>

namespace cs {

class LedgerDatabase;

// Approvals (DESIGN.md): a human signs one exact request (invariant 10) or refuses it. Each
// decision appends an approvals row and one audit row in one transaction. Thread-safe.
class ApprovalStore
{
public:
    explicit ApprovalStore(LedgerDatabase &database) : m_db(database) {}

    // PENDING only, never by the requester (four-eyes), never once an attempt exists. Appends
    // approval version n+1 with a freshly minted key signing the current fingerprint.
    LedgerResult<ActionRecord> approve(const QString &actionId, const QString &approver, const QString &note,
                                       qint64 expectedStateVersion);
    // PENDING -> REJECTED, with a rejected approval row carrying `reason` (one of
    // Approval::rejectionReasons()) and the note (required, not blank, for "other").
    LedgerResult<ActionRecord> reject(const QString &actionId, const QString &who, const QString &reason,
                                      const QString &note, qint64 expectedStateVersion);

private:
    LedgerResult<ActionRecord> decide(const char *operation, const QString &actionId, const QString &who,
                                      const QString &reason, const QString &note, qint64 expectedStateVersion,
                                      bool approve);

    LedgerDatabase &m_db;
};

} // namespace cs
