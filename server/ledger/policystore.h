#pragma once

#include "server/ledger/ledgerresult.h"

#include <QDateTime>
#include <QList>
#include <QString>

namespace cs {

class LedgerDatabase;

// The approval policy's versions (docs/POLICY.md): every policy text ever loaded, kept in the
// append-only policy_versions table (migration 11) with its SHA-256, the file it came from, who
// loaded it and when; each load writes one audit row `policy_loaded` (about no action).
// Thread-safe.
class PolicyStore
{
public:
    struct Version
    {
        int version = 0;  // 1, 2, ...
        QString sha256;   // hex, of the text's UTF-8 bytes
        QString text;
        QString source;
        QString loadedBy;
        QDateTime loadedAt;
        friend bool operator==(const Version &, const Version &) = default;
    };

    explicit PolicyStore(LedgerDatabase &database) : m_db(database) {}

    // Records a load of `text` (already parsed and found valid by the caller). A text whose
    // SHA-256 is the latest version's is that version again: nothing appended to
    // policy_versions, but the load is audited all the same. *created says which.
    LedgerResult<Version> recordLoad(const QString &text, const QString &source, const QString &loadedBy,
                                     bool *created = nullptr);
    // Every version, oldest first. A read.
    LedgerResult<QList<Version>> versions() const;

private:
    LedgerDatabase &m_db;
};

} // namespace cs
