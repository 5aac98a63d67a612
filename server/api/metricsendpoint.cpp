#include "server/api/metricsendpoint.h"

#include "server/api/apilog.h"
#include "server/api/eventstream.h"
#include "server/ledger/actionreader.h"
#include "server/metrics/metrics.h"

#include "models/actionstate.h"
#include "models/attempt.h"

#include <QDateTime>
#include <QFile>
#include <QJsonObject>

#include <algorithm>

#include <unistd.h>

namespace cs {

namespace {

using metrics::Sample;
using metrics::TextWriter;
using metrics::Type;

// At most this many audit rows are read per scrape (ten pages); the rest at the next one.
constexpr int kAuditPage = 1000;
constexpr int kAuditPagesPerScrape = 10;

double residentBytes()
{
    QFile statm(QStringLiteral("/proc/self/statm"));
    if (!statm.open(QIODevice::ReadOnly))
        return 0;
    const QList<QByteArray> fields = statm.readAll().split(' ');
    return fields.size() > 1 ? fields.at(1).toDouble() * double(sysconf(_SC_PAGESIZE)) : 0;
}

const QDateTime &processStart()
{
    static const QDateTime started = QDateTime::currentDateTimeUtc();
    return started;
}
[[maybe_unused]] const QDateTime &startedAtLoad = processStart();

} // namespace

MetricsEndpoint::MetricsEndpoint(const ActionReader *reader, const EventStream *events)
    : m_reader(reader), m_events(events)
{
    const auto latest = m_reader->latestAuditSeq();
    if (latest.ok()) {
        m_auditCursor = *latest;
        m_cursorSet = true;
    }
    // Every legal transition at zero (the state machine's table, asked trigger by trigger).
    for (const ActionState from : {ActionState::Pending, ActionState::Executing, ActionState::ConfirmationUnknown,
                                   ActionState::RequiresReview}) {
        for (const Trigger trigger : {Trigger::Claim, Trigger::HumanReject, Trigger::ProviderSucceeded,
                                      Trigger::ProviderRejected, Trigger::OutcomeUnknown, Trigger::StopForReview,
                                      Trigger::ConfirmCommitted, Trigger::ConfirmNotCommitted}) {
            if (const auto to = StateMachine::apply(from, trigger); to && *to != from)
                m_transitions.insert({toWire(from), toWire(*to)}, 0);
        }
    }
    m_transitions.insert({QStringLiteral("none"), toWire(ActionState::Pending)}, 0);
    for (const auto outcome : {Attempt::Outcome::Succeeded, Attempt::Outcome::Rejected, Attempt::Outcome::Unknown,
                               Attempt::Outcome::RateLimited, Attempt::Outcome::KeyInUse,
                               Attempt::Outcome::IdempotencyMismatch})
        m_attempts.insert(toWire(outcome), 0);
}

void MetricsEndpoint::readAuditTail()
{
    if (!m_cursorSet) {
        const auto latest = m_reader->latestAuditSeq();
        if (!latest.ok())
            return;
        m_auditCursor = *latest;
        m_cursorSet = true;
        return;
    }
    for (int page = 0; page < kAuditPagesPerScrape; ++page) {
        const auto events = m_reader->auditLog(m_auditCursor, kAuditPage);
        if (!events.ok()) {
            qCWarning(lcApi) << "metrics: cannot read the audit log:" << events.error().toString();
            return;
        }
        for (const AuditEvent &e : *events) {
            m_auditCursor = e.seq;
            if (e.actionId.isEmpty())
                continue;
            const QString to = e.after.value(QLatin1String("state")).toString();
            const QString from = e.before.value(QLatin1String("state")).toString();
            if (!to.isEmpty() && to != from)
                ++m_transitions[{from.isEmpty() ? QStringLiteral("none") : from, to}];
            if (e.event == u"attempt_finished") {
                const QString outcome =
                    e.after.value(QLatin1String("attempt")).toObject().value(QLatin1String("outcome")).toString();
                if (!outcome.isEmpty())
                    ++m_attempts[outcome];
            }
        }
        if (events->size() < kAuditPage)
            return;
    }
}

QByteArray MetricsEndpoint::scrape(int pendingRequests)
{
    TextWriter out;
    metrics::Registry::global().render(out);

    const QDateTime now = QDateTime::currentDateTimeUtc();
    if (const auto counts = m_reader->counts(QString()); counts.ok()) {
        QList<Sample> samples;
        for (auto it = counts->cbegin(); it != counts->cend(); ++it)
            samples.append(Sample{{toWire(it.key())}, double(it.value()), {}, 0, 0});
        out.family(QStringLiteral("countersign_actions"), QStringLiteral("Actions in the ledger by state"), Type::Gauge,
                   {QStringLiteral("state")}, samples);
    } else {
        qCWarning(lcApi) << "metrics: cannot count actions:" << counts.error().toString();
    }

    const QList<ActionState> waiting = {ActionState::Pending, ActionState::ConfirmationUnknown, ActionState::RequiresReview};
    if (const auto oldest = m_reader->oldestChange(waiting); oldest.ok()) {
        QList<Sample> samples;
        for (const ActionState state : waiting) {
            // No such action: 0, so an alert on "older than N" reads a number, not an absent series.
            const double age = oldest->contains(state) ? std::max<qint64>(0, oldest->value(state).msecsTo(now)) / 1000.0 : 0;
            samples.append(Sample{{toWire(state)}, age, {}, 0, 0});
        }
        out.family(QStringLiteral("countersign_oldest_action_age_seconds"),
                   QStringLiteral("Seconds since the oldest action in the state last changed (0: none in it)"), Type::Gauge,
                   {QStringLiteral("state")}, samples);
    }
    if (const auto backlog = m_reader->reconcileBacklog(now); backlog.ok())
        out.gauge(QStringLiteral("countersign_reconciler_backlog"),
                  QStringLiteral("CONFIRMATION_UNKNOWN actions whose next reconciliation round is due"), double(*backlog));

    // Settlement after COMPLETED (docs/SETTLEMENT.md): refunds that failed after the provider
    // accepted them wait for a supervisor; unsettled ones are followed.
    if (const auto settlement = m_reader->settlementGauges(now); settlement.ok()) {
        out.gauge(QStringLiteral("countersign_settlement_reviews_open"),
                  QStringLiteral("COMPLETED actions whose refund failed or was canceled afterwards, review item open"),
                  double(settlement->reviewOpen));
        out.gauge(QStringLiteral("countersign_settlement_review_oldest_age_seconds"),
                  QStringLiteral("Seconds since the oldest open settlement review item opened (0: none)"),
                  settlement->oldestReviewSince.isValid()
                      ? std::max<qint64>(0, settlement->oldestReviewSince.msecsTo(now)) / 1000.0
                      : 0.0);
        out.gauge(QStringLiteral("countersign_settlements_unsettled"),
                  QStringLiteral("COMPLETED actions whose refund has not settled yet (pending, requires_action)"),
                  double(settlement->unsettled));
        out.gauge(QStringLiteral("countersign_settlement_checks_due"),
                  QStringLiteral("Unsettled refunds whose scheduled look-up is due"), double(settlement->checksDue));
    } else {
        qCWarning(lcApi) << "metrics: cannot read settlements:" << settlement.error().toString();
    }
    // Issue 33: what the provider holds that contradicts a final action (two refunds for one).
    if (const auto discrepancies = m_reader->discrepancyGauges(); discrepancies.ok()) {
        out.gauge(QStringLiteral("countersign_discrepancies_open"),
                  QStringLiteral("Final actions the provider contradicts (two refunds for one action, or a refund that"
                                 " contradicts it), not closed by a supervisor"),
                  double(discrepancies->open));
        out.gauge(QStringLiteral("countersign_discrepancy_oldest_age_seconds"),
                  QStringLiteral("Seconds since the oldest open discrepancy opened (0: none)"),
                  discrepancies->oldestOpenedAt.isValid()
                      ? std::max<qint64>(0, discrepancies->oldestOpenedAt.msecsTo(now)) / 1000.0
                      : 0.0);
    } else {
        qCWarning(lcApi) << "metrics: cannot read discrepancies:" << discrepancies.error().toString();
    }

    readAuditTail();
    QList<Sample> transitions;
    for (auto it = m_transitions.cbegin(); it != m_transitions.cend(); ++it)
        transitions.append(Sample{it.key(), double(it.value()), {}, 0, 0});
    std::sort(transitions.begin(), transitions.end(),
              [](const Sample &a, const Sample &b) { return a.labelValues < b.labelValues; });
    out.family(QStringLiteral("countersign_transitions_total"),
               QStringLiteral("State changes of actions recorded in the ledger's audit log since this process started"),
               Type::Counter, {QStringLiteral("from"), QStringLiteral("to")}, transitions);
    QList<Sample> attempts;
    for (auto it = m_attempts.cbegin(); it != m_attempts.cend(); ++it)
        attempts.append(Sample{{it.key()}, double(it.value()), {}, 0, 0});
    std::sort(attempts.begin(), attempts.end(),
              [](const Sample &a, const Sample &b) { return a.labelValues < b.labelValues; });
    out.family(QStringLiteral("countersign_attempts_total"),
               QStringLiteral("Finished attempts (requests to the provider) recorded in the ledger since this process started, by outcome"),
               Type::Counter, {QStringLiteral("outcome")}, attempts);

    out.gauge(QStringLiteral("countersign_sse_clients"), QStringLiteral("Clients following GET /api/v1/events"),
              m_events ? m_events->clientCount() : 0);
    out.gauge(QStringLiteral("countersign_http_requests_in_flight"),
              QStringLiteral("API requests running on worker threads (provider look-ups, readiness, webhooks)"),
              pendingRequests);
    out.family(QStringLiteral("countersign_build_info"), QStringLiteral("This countersignd's version"), Type::Gauge,
               {QStringLiteral("version")}, {Sample{{QStringLiteral(COUNTERSIGN_VERSION)}, 1, {}, 0, 0}});
    out.gauge(QStringLiteral("process_start_time_seconds"), QStringLiteral("When this process started, in Unix seconds"),
              processStart().toMSecsSinceEpoch() / 1000.0);
    out.gauge(QStringLiteral("process_resident_memory_bytes"), QStringLiteral("Resident memory of this process"),
              residentBytes());
    return out.text();
}

} // namespace cs
