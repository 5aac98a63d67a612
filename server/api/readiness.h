#pragma once

#include "server/api/apiresponse.h"
#include "server/providerclient.h"

#include <QDateTime>
#include <QMutex>

#include <chrono>

namespace cs {

class LedgerDatabase;

// GET /api/v1/health/ready (docs/OPERATIONS.md, "Monitor"): whether this countersignd can do its
// work now — the ledger accepts a write transaction (LedgerDatabase::probeWritable, bounded by
// Options::ledgerWait) and the provider answers (ProviderClient::probe, at most once per
// Options::providerEvery while it answers, at every check while it does not; the answer in
// between is the last one, with its time). 200 when both
// hold, else 503 with Retry-After; the body names each check. A draining server answers 503
// before this runs. Without a provider (no --provider-url) the provider check is
// "not_configured" and does not fail readiness: such an instance serves the API only.
//
// Thread-safe; check() blocks for up to ledgerWait plus the provider's probe deadline: call it
// on a worker thread. Concurrent checks share one provider probe.
class Readiness
{
public:
    struct Options
    {
        std::chrono::milliseconds ledgerWait{2000};
        std::chrono::milliseconds providerEvery{10000};
    };

    // database and provider (may be null) must outlive it.
    Readiness(LedgerDatabase *database, ProviderClient *provider, QString version, Options options);
    ApiResponse check();

private:
    LedgerDatabase *m_database;
    ProviderClient *m_provider;
    QString m_version;
    Options m_options;
    QMutex m_probeMutex; // one provider probe at a time; guards the two below
    ProviderClient::Reachability m_lastProbe;
    QDateTime m_lastProbeAt;
};

} // namespace cs
