#pragma once

#include "models/actionstate.h"
#include "server/ledger/actionreader.h"
#include "server/ledger/evidencestore.h"

#include <QByteArray>
#include <QDateTime>
#include <QString>

#include <chrono>
#include <functional>
#include <optional>

namespace cs {

// The logic behind the provider's webhook endpoint (the HTTP route arrives with the API): checks
// the Stripe-Signature (HMAC-SHA256 of "<t>.<body>" keyed with the endpoint secret, compared in
// constant time, t within the tolerance of now — replays outside it are refused), ignores
// duplicate event ids (remembered in the ledger, in the same transaction as what the event
// changed), and turns a refund event (refund.created / updated / failed, charge.refund.updated)
// into a stored lookup (method Webhook) of the action it matches: by metadata.countersign_action_id,
// else by the idempotency key Countersign minted (request.idempotency_key), else by the refund a
// settlement follows. For a COMPLETED action the lookup moves its settlement (docs/SETTLEMENT.md);
// an event that matches nothing is kept with its charge (EvidenceStore::unmatchedRefundEvents). For a CONFIRMATION_UNKNOWN action conclusive evidence is
// applied at once — the same rules as the reconciler's lookups; while an attempt is in flight it
// is only stored and the reconciler is asked to look again now.
//
// Thread-safe; blocks only on the ledger (no provider calls), so it may run on the HTTP thread.
class WebhookReceiver
{
public:
    struct Options
    {
        QByteArray secret;                      // "whsec_…", the whole string is the HMAC key
        std::chrono::seconds tolerance{300};    // Stripe's default
    };

    enum class Status {
        Accepted,     // stored (a lookup, possibly a transition)
        Duplicate,    // this event id was handled before: nothing done
        Ignored,      // a valid event that is no refund event (remembered)
        Unmatched,    // a refund event that matches no action of this ledger: kept and listed on its
                      // charge (GET /charges/{id}: unmatched_refund_events)
        BadSignature, // refused: missing, malformed, wrong or outside the tolerance
        Malformed,    // signed, but not an event
        Failed,       // the ledger failed: answer 5xx so the provider delivers it again (503 busy or
                      // unreachable, 500 otherwise; nothing stored either way)
    };
    struct Result
    {
        Status status = Status::Failed;
        int httpStatus = 500;
        QString message;
        QString eventId;
        QString actionId;
        std::optional<ActionState> state; // the action's state afterwards, when one was touched
    };
    using ChangeObserver = std::function<void(const ActionRecord &)>;

    WebhookReceiver(EvidenceStore &evidence, const ActionReader &reader, Options options);
    void setChangeObserver(ChangeObserver observer) { m_observer = std::move(observer); }

    // Verifies a Stripe-Signature header against body at `now` (wall clock).
    static bool verify(const QByteArray &signatureHeader, const QByteArray &body, const QByteArray &secret,
                       const QDateTime &now, std::chrono::seconds tolerance, QString *why = nullptr);
    static QByteArray sign(const QByteArray &secret, qint64 timestamp, const QByteArray &body); // the v1 hex

    Result handle(const QByteArray &signatureHeader, const QByteArray &body);
    Result handle(const QByteArray &signatureHeader, const QByteArray &body, const QDateTime &now);

private:
    Result remember(const EvidenceStore::WebhookEvent &event, Status status, const QString &message);

    EvidenceStore &m_evidence;
    const ActionReader &m_reader;
    Options m_options;
    ChangeObserver m_observer;
};

QString toString(WebhookReceiver::Status status);

} // namespace cs
