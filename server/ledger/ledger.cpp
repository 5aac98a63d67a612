#include "server/ledger/ledger.h"

#include "server/ledger/ledgerlog.h"

namespace cs {

Ledger::Ledger()
    : m_proposals(m_database), m_approvals(m_database), m_policies(m_database), m_execution(m_database), m_evidence(m_database), m_charges(m_database),
      m_pauses(m_database), m_reader(m_database)
{
}

Ledger::~Ledger() = default;

LedgerError Ledger::open(const QString &path)
{
    return open(path, Options());
}

LedgerError Ledger::open(const QString &path, const Options &options)
{
    LedgerDatabase::Options database;
    database.clock = options.clock;
    database.busyTimeoutMs = options.busyTimeoutMs;
    database.busyRetries = options.busyRetries;
    database.passwordFile = options.passwordFile;
    database.checkOnOpen = options.checkOnOpen;
    database.migrate = options.migrate;
    LedgerError error = m_database.open(path, database);
    if (!error.ok() || !options.recoverExpiredLeasesOnOpen)
        return error;
    const LedgerResult<int> recovered = m_execution.recoverExpiredLeases();
    if (!recovered.ok()) {
        m_database.close();
        return recovered.error();
    }
    if (recovered.value() > 0)
        qCInfo(lcLedger) << "recovered" << recovered.value() << "actions with expired leases in" << path;
    return {};
}

} // namespace cs
