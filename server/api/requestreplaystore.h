#pragma once

#include "server/api/apiresponse.h"
#include "server/ledger/clock.h"
#include "server/ledger/ledgerresult.h"

#include <QString>

#include <chrono>

namespace cs {

class LedgerDatabase;

// Client Idempotency-Keys (docs/API.md, "Client idempotency"), table `api_requests`: per
// (user, key) the hash of the first request and, once it finished, its stored response, kept
// `retention` (24 h). A row is `in_flight` from begin() until complete() or release(); an
// in-flight row older than `inFlightTimeout` belonged to a process that died and is taken over.
//
// The stored response is written after the ledger's transaction, not inside it: if the process
// dies in between, a resend runs again and is stopped by If-Match (412) — never a second effect.
//
// Thread-safe (per-thread connections).
class RequestReplayStore
{
public:
    struct Options
    {
        std::chrono::milliseconds retention = std::chrono::hours(24);
        std::chrono::milliseconds inFlightTimeout = std::chrono::seconds(60);
    };

    struct Begin
    {
        enum class Kind {
            Started, // a new row in flight: run the request, then complete() or release()
            Replay,  // same request finished before: answer `stored`
            Reuse,   // the key belongs to a different request: 422
            InFlight // the first request is still running: 409
        };
        Kind kind = Kind::Started;
        ApiResponse stored;
    };

    RequestReplayStore(LedgerDatabase *database, Clock clock, Options options);

    LedgerResult<Begin> begin(const QString &user, const QString &key, const QString &requestHash,
                              const QString &method, const QString &path);
    LedgerError complete(const QString &user, const QString &key, const ApiResponse &response);
    LedgerError release(const QString &user, const QString &key);
    LedgerResult<int> pruneExpired();

private:
    qint64 nowMs() const;

    LedgerDatabase *m_db;
    Clock m_clock;
    Options m_options;
};

} // namespace cs
