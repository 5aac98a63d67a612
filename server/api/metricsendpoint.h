#pragma once

#include <QByteArray>
#include <QHash>
#include <QString>

namespace cs {

class ActionReader;
class EventStream;

// What GET /metrics answers (docs/OPERATIONS.md, "Monitor"), in Prometheus' text format 0.0.4:
// every family registered in metrics::Registry::global() (updated where things happen: ledger
// commits, provider requests, reconciler rounds, HTTP requests), then what is read when scraped:
//
//   countersign_actions{state}                    the ledger's actions by state (all instances)
//   countersign_oldest_action_age_seconds{state}  since the oldest CONFIRMATION_UNKNOWN /
//                                                 REQUIRES_REVIEW / PENDING action last changed
//   countersign_reconciler_backlog                CONFIRMATION_UNKNOWN actions due for a round
//   countersign_transitions_total{from,to}        state changes, and
//   countersign_attempts_total{outcome}           finished attempts, both read from the audit
//                                                 log since this process started: the whole
//                                                 ledger's, so every instance on one database
//                                                 reports the same (aggregate with max, not sum)
//   countersign_sse_clients, countersign_http_requests_in_flight, countersign_build_info,
//   process_start_time_seconds, process_resident_memory_bytes
//
// Not thread-safe: lives on the HTTP server's thread (scrape() reads the ledger there; each read
// is an indexed count or a scan of the few actions waiting for a human). Who may read it:
// ApiServer (a token of the auditor or admin role).
class MetricsEndpoint
{
public:
    // reader and events must outlive it. Counts audit events after the log's newest seq now.
    MetricsEndpoint(const ActionReader *reader, const EventStream *events);

    // The whole exposition; pendingRequests: the API's requests in flight (worker threads).
    QByteArray scrape(int pendingRequests);

    static QByteArray contentType() { return QByteArrayLiteral("text/plain; version=0.0.4; charset=utf-8"); }

private:
    void readAuditTail();

    const ActionReader *m_reader;
    const EventStream *m_events;
    qint64 m_auditCursor = 0;
    bool m_cursorSet = false;
    QHash<QStringList, qint64> m_transitions; // (from, to) -> count
    QHash<QString, qint64> m_attempts;        // outcome -> count
};

} // namespace cs
