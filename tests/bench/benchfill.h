#pragma once

// What the execution benchmarks share: ledgers filled with approved refunds through the ledger's
// own operations (real rows, keys, fingerprints and audit chain), quickly.

#include "server/ledger/ledger.h"
#include "tests/support/pgcluster.h"

#include <QString>
#include <QStringList>

namespace cs::bench {

// `n` refunds of 1..100 minor units on `charge`, proposed by "agent" and approved by "approver"
// through the ledger's operations (real rows, keys, fingerprints and audit chain), so that each
// is an approved PENDING action ready to be claimed. Their ids, oldest first; empty on an error.
inline QStringList proposeApproved(Ledger &ledger, const QString &charge, int n, const QString &prefix)
{
    QStringList ids;
    for (int i = 0; i < n; ++i) {
        ProposalStore::ProposalInput input;
        input.targetId = charge;
        input.amount = 1 + i % 100;
        input.currency = QStringLiteral("usd");
        input.clientReference = QStringLiteral("%1-%2").arg(prefix).arg(i);
        input.provider = QStringLiteral("paysim");
        const auto proposed = ledger.proposals().propose(input, QStringLiteral("agent"));
        if (!proposed.ok())
            return {};
        // Every refund is of the same charge: possible duplicates of each other (issue 14), which an
        // approver may approve only with a note saying why both are intended.
        const auto approved = ledger.approvals().approve(proposed->record.id, QStringLiteral("approver"),
                                                         QStringLiteral("benchmark: many refunds of one charge, all intended"),
                                                         proposed->record.stateVersion);
        if (!approved.ok())
            return {};
        ids << approved->id;
    }
    return ids;
}

// A fresh database of `cluster` at the latest schema with `n` approved refunds (proposeApproved)
// → its URI, or "" on an error. The fill is not measured: its sessions do not wait for the WAL
// flush (synchronous_commit = off for the database while it runs, reset afterwards, so every
// later session has the cluster's full durability).
inline QString approvedDatabase(test::PgCluster &cluster, const QString &name, const QString &charge, int n,
                                QStringList *ids)
{
    const QString uri = cluster.createDatabase(name);
    if (uri.isEmpty() || !cluster.psql(name, QStringLiteral("ALTER DATABASE %1 SET synchronous_commit = off").arg(name)).ok)
        return {};
    {
        Ledger ledger;
        if (!ledger.open(uri).ok())
            return {};
        *ids = proposeApproved(ledger, charge, n, name);
    }
    if (ids->size() != n || !cluster.psql(name, QStringLiteral("ALTER DATABASE %1 RESET synchronous_commit").arg(name)).ok)
        return {};
    return uri;
}

} // namespace cs::bench
