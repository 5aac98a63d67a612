#include "server/webhookreceiver.h"

#include "models/evidencerule.h"
#include "models/refundstatus.h"
#include "server/reconciler.h"
#include "server/attemptpolicy.h"
#include "server/executionlog.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QMessageAuthenticationCode>

namespace cs {

namespace {

using Code = LedgerError::Code;

bool constantTimeEquals(const QByteArray &a, const QByteArray &b)
{
    if (a.size() != b.size())
        return false;
    unsigned char diff = 0;
    for (qsizetype i = 0; i < a.size(); ++i)
        diff |= static_cast<unsigned char>(a.at(i) ^ b.at(i));
    return diff == 0;
}

// A store or read that failed: 503 when the ledger is only busy or out of reach (the provider
// delivers again later and nothing was stored), 500 for anything else.
void failWith(WebhookReceiver::Result &result, const LedgerError &error)
{
    result.status = WebhookReceiver::Status::Failed;
    result.httpStatus = error.code() == Code::Busy || error.code() == Code::Unavailable
            || error.code() == Code::CannotWrite || error.code() == Code::Damaged
        ? 503
        : 500;
    result.message = error.toString();
    qCWarning(lcWebhook) << "a webhook could not be handled:" << result.message;
}

const QString &webhookName()
{
    static const QString name = QStringLiteral("webhook");
    return name;
}

} // namespace

QString toString(WebhookReceiver::Status status)
{
    switch (status) {
    case WebhookReceiver::Status::Accepted: return QStringLiteral("accepted");
    case WebhookReceiver::Status::Duplicate: return QStringLiteral("duplicate");
    case WebhookReceiver::Status::Ignored: return QStringLiteral("ignored");
    case WebhookReceiver::Status::Unmatched: return QStringLiteral("unmatched");
    case WebhookReceiver::Status::BadSignature: return QStringLiteral("bad_signature");
    case WebhookReceiver::Status::Malformed: return QStringLiteral("malformed");
    case WebhookReceiver::Status::Failed: return QStringLiteral("failed");
    }
    return QString();
}

WebhookReceiver::WebhookReceiver(EvidenceStore &evidence, const ActionReader &reader, Options options)
    : m_evidence(evidence), m_reader(reader), m_options(std::move(options))
{
}

QByteArray WebhookReceiver::sign(const QByteArray &secret, qint64 timestamp, const QByteArray &body)
{
    const QByteArray signedPayload = QByteArray::number(timestamp) + '.' + body;
    return QMessageAuthenticationCode::hash(signedPayload, secret, QCryptographicHash::Sha256).toHex();
}

bool WebhookReceiver::verify(const QByteArray &signatureHeader, const QByteArray &body, const QByteArray &secret,
                             const QDateTime &now, std::chrono::seconds tolerance, QString *why)
{
    auto refuse = [why](const QString &reason) {
        if (why)
            *why = reason;
        return false;
    };
    if (secret.isEmpty())
        return refuse(QStringLiteral("no webhook secret configured"));
    qint64 timestamp = -1;
    QList<QByteArray> candidates;
    for (const QByteArray &part : signatureHeader.split(',')) {
        const qsizetype eq = part.indexOf('=');
        if (eq <= 0)
            continue;
        const QByteArray key = part.left(eq).trimmed();
        const QByteArray value = part.mid(eq + 1).trimmed();
        if (key == "t") {
            bool ok = false;
            timestamp = value.toLongLong(&ok);
            if (!ok)
                timestamp = -1;
        } else if (key == "v1") {
            candidates << value.toLower();
        }
    }
    if (timestamp < 0)
        return refuse(QStringLiteral("Stripe-Signature has no timestamp"));
    if (candidates.isEmpty())
        return refuse(QStringLiteral("Stripe-Signature has no v1 signature"));
    const qint64 age = now.toSecsSinceEpoch() - timestamp;
    if (age > tolerance.count() || -age > tolerance.count())
        return refuse(QStringLiteral("timestamp %1 is %2 s away from now, outside the %3 s tolerance (a replay?)")
                          .arg(timestamp).arg(age).arg(tolerance.count()));
    const QByteArray expected = sign(secret, timestamp, body);
    bool match = false;
    for (const QByteArray &candidate : std::as_const(candidates))
        match |= constantTimeEquals(candidate, expected); // no early exit: every candidate is compared
    if (!match)
        return refuse(QStringLiteral("no v1 signature matches the payload"));
    return true;
}

WebhookReceiver::Result WebhookReceiver::handle(const QByteArray &signatureHeader, const QByteArray &body)
{
    return handle(signatureHeader, body, QDateTime::currentDateTimeUtc());
}

WebhookReceiver::Result WebhookReceiver::remember(const EvidenceStore::WebhookEvent &event, Status status,
                                                  const QString &message)
{
    Result result;
    result.eventId = event.eventId;
    result.actionId = event.actionId;
    const auto recorded = m_evidence.recordWebhookEvent(event, std::nullopt, std::nullopt, QString());
    if (!recorded.ok()) {
        failWith(result, recorded.error());
        return result;
    }
    result.status = recorded->duplicate ? Status::Duplicate : status;
    result.httpStatus = 200;
    result.message = recorded->duplicate ? QStringLiteral("duplicate event") : message;
    return result;
}

WebhookReceiver::Result WebhookReceiver::handle(const QByteArray &signatureHeader, const QByteArray &body,
                                                const QDateTime &now)
{
    Result result;
    QString why;
    if (!verify(signatureHeader, body, m_options.secret, now, m_options.tolerance, &why)) {
        qCWarning(lcWebhook) << "refused a webhook:" << why;
        result.status = Status::BadSignature;
        result.httpStatus = 400;
        result.message = why;
        return result;
    }
    const QJsonObject event = QJsonDocument::fromJson(body).object();
    EvidenceStore::WebhookEvent record;
    record.eventId = event.value(QLatin1String("id")).toString();
    record.type = event.value(QLatin1String("type")).toString();
    if (!record.eventId.startsWith(QLatin1String("evt_")) || record.type.isEmpty()
        || event.value(QLatin1String("object")).toString() != u"event") {
        result.status = Status::Malformed;
        result.httpStatus = 400;
        result.message = QStringLiteral("not an event object");
        return result;
    }
    const QJsonObject object = event.value(QLatin1String("data")).toObject().value(QLatin1String("object")).toObject();
    // Stripe announces a refund's life as refund.created / refund.updated / refund.failed and, for
    // older integrations, charge.refund.updated — each carrying the refund object.
    const bool refundEvent = object.value(QLatin1String("object")).toString() == u"refund"
        && (record.type.startsWith(QLatin1String("refund.")) || record.type == u"charge.refund.updated");
    if (!refundEvent) {
        record.disposition = QStringLiteral("ignored: not a refund event");
        return remember(record, Status::Ignored, record.disposition);
    }
    const auto idOf = [](const QJsonValue &value) {
        return value.isObject() ? value.toObject().value(QLatin1String("id")).toString() : value.toString();
    };
    const QString named = object.value(QLatin1String("metadata")).toObject().value(QLatin1String("countersign_action_id")).toString();
    const QJsonValue request = event.value(QLatin1String("request"));
    const QString key = request.isObject() ? request.toObject().value(QLatin1String("idempotency_key")).toString() : QString();
    record.refundId = object.value(QLatin1String("id")).toString();
    record.chargeId = idOf(object.value(QLatin1String("charge")));
    record.summary = QJsonObject{
        {QStringLiteral("status"), object.value(QLatin1String("status"))},
        {QStringLiteral("amount"), object.value(QLatin1String("amount"))},
        {QStringLiteral("currency"), object.value(QLatin1String("currency"))},
        {QStringLiteral("failure_reason"), object.value(QLatin1String("failure_reason"))},
        {QStringLiteral("payment_intent"), QJsonValue(idOf(object.value(QLatin1String("payment_intent"))))},
        {QStringLiteral("event_created"), event.value(QLatin1String("created"))},
        {QStringLiteral("named_action"), named},
    };
    // Matched by the action id in metadata first; else by the key Countersign minted (the event's
    // request.idempotency_key) or the refund an action's settlement follows (metadata can be
    // edited in the dashboard; the key and the refund id cannot).
    std::optional<LedgerResult<ActionRecord>> action;
    if (!named.isEmpty()) {
        action = m_reader.action(named);
        if (!action->ok() && action->code() != Code::NotFound) {
            failWith(result, action->error());
            return result;
        }
    }
    if (!action || !action->ok()) {
        const auto matched = m_reader.actionForProviderRefs(key, record.refundId);
        if (!matched.ok()) {
            failWith(result, matched.error());
            return result;
        }
        if (!matched->isEmpty())
            action = m_reader.action(*matched);
    }
    if (!action || !action->ok()) {
        if (action && action->code() != Code::NotFound) {
            failWith(result, action->error());
            return result;
        }
        // A refund Countersign never asked for (the dashboard, another system, another ledger):
        // kept and listed for the charge it touches (GET /api/v1/charges/{id}).
        record.actionId.clear();
        record.disposition = named.isEmpty()
            ? QStringLiteral("unmatched: refund %1 on %2 names no action of this ledger").arg(record.refundId, record.chargeId)
            : QStringLiteral("unmatched: refund %1 on %2 names %3, unknown to this ledger")
                  .arg(record.refundId, record.chargeId, named);
        return remember(record, Status::Unmatched, record.disposition);
    }
    record.actionId = action->value().id;
    const ActionRecord &target = action->value();

    ProviderLookup lookup;
    lookup.actionId = target.id;
    lookup.method = ProviderLookup::Method::Webhook;
    lookup.askedBy = webhookName();
    lookup.result = ProviderLookup::Result::Found;
    lookup.providerObjectId = object.value(QLatin1String("id")).toString();
    lookup.status = object.value(QLatin1String("status")).toString();
    lookup.amount = object.value(QLatin1String("amount")).toInteger();
    lookup.currency = object.value(QLatin1String("currency")).toString().toLower();
    lookup.failureReason = object.value(QLatin1String("failure_reason")).toString();
    lookup.excerpt = QStringLiteral("event %1 %2: %3 (%4 %5 %6)")
                         .arg(record.eventId, record.type, lookup.providerObjectId, lookup.status)
                         .arg(lookup.amount)
                         .arg(lookup.currency);

    std::optional<Trigger> trigger;
    std::optional<EvidenceFinding> contradiction;
    QString reason = QStringLiteral("webhook %1 %2").arg(record.eventId, record.type);
    bool deferred = false;
    const bool open = target.state == ActionState::ConfirmationUnknown;
    if (open || isTerminal(target.state)) {
        // The one evidence rule (issue 33): an open action is judged by this event with everything
        // in hand; a final one by this event against the refund on record.
        RefundSighting seen = sightingOf(lookup);
        seen.chargeId = record.chargeId;
        seen.paymentIntentId = record.summary.value(QLatin1String("payment_intent")).toString();
        seen.source = QStringLiteral("event ") + record.eventId;
        const auto known = Reconciler::refundOnRecord(m_reader, target);
        const auto inHand = open ? m_reader.lookups(target.id) : LedgerResult<QList<ProviderLookup>>(QList<ProviderLookup>());
        if (!known.ok() || !inHand.ok()) {
            failWith(result, known.ok() ? inHand.error() : known.error());
            return result;
        }
        const EvidenceFinding finding = judgeEvidence(target, sightingsOf(inHand.value()) + QList{seen}, known.value());
        reason += QStringLiteral(": ") + finding.reason;
        if (open) {
            // Resting on an earlier report in hand, the reconciler applies it from that one, now.
            if (carriesVerdict(lookup, finding))
                trigger = Reconciler::triggerFor(finding);
            else
                deferred = true;
        } else if (contradictsFinalState(target.state, finding)) {
            contradiction = finding;
        }
    }
    record.disposition = trigger ? QStringLiteral("lookup+") + toWire(*trigger)
        : contradiction        ? QStringLiteral("lookup+discrepancy")
                               : QStringLiteral("lookup");
    auto recorded = m_evidence.recordWebhookEvent(record, lookup, trigger, reason, contradiction);
    if (!recorded.ok() && trigger
        && (recorded.code() == Code::Conflict || recorded.code() == Code::IllegalTransition)) {
        // An attempt is in flight, or the action moved meanwhile: store the evidence, and have
        // the reconciler look again at once.
        record.disposition = QStringLiteral("lookup");
        reason += QStringLiteral(" (not applied: %1)").arg(recorded.error().message());
        recorded = m_evidence.recordWebhookEvent(record, lookup, std::nullopt, reason);
        deferred = true;
    }
    result.eventId = record.eventId;
    result.actionId = target.id;
    if (!recorded.ok()) {
        qCWarning(lcWebhook) << target.id << "webhook" << record.eventId << "cannot be stored";
        failWith(result, recorded.error());
        return result;
    }
    result.httpStatus = 200;
    if (recorded->duplicate) {
        result.status = Status::Duplicate;
        result.message = QStringLiteral("duplicate event");
        return result;
    }
    result.status = Status::Accepted;
    result.message = reason;
    if (recorded->lookup) {
        result.state = recorded->lookup->record.state;
        if ((trigger || contradiction) && !deferred && m_observer)
            m_observer(recorded->lookup->record);
        if (deferred && recorded->lookup->record.state == ActionState::ConfirmationUnknown) {
            const auto schedule = m_evidence.reconcileSchedule(target.id);
            const LedgerError nudged = m_evidence.scheduleReconciliation(
                target.id, schedule.ok() ? schedule->tries : 0, m_evidence.currentTime(),
                QStringLiteral("webhook %1 arrived; look again now").arg(record.eventId));
            if (!nudged.ok())
                qCWarning(lcWebhook) << target.id << "cannot be rescheduled after webhook" << record.eventId << ":"
                                     << nudged.toString();
        }
    }
    qCInfo(lcWebhook) << target.id << "webhook" << record.eventId << record.type << "->" << toString(result.status)
                      << reason;
    return result;
}

} // namespace cs
