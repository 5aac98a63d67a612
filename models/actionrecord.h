#pragma once

#include "models/actionstate.h"
#include "models/fingerprint.h"
#include "models/money.h"

#include <QDateTime>
#include <QJsonObject>
#include <QMap>
#include <QString>

#include <optional>

namespace cs {

// What a refund is taken from at the provider.
enum class TargetType { Charge, PaymentIntent };
QString toWire(TargetType type); // "charge", "payment_intent"
std::optional<TargetType> targetTypeFromWire(QStringView wire);

// The wire shape of a target, in proposals and actions alike: {"charge": "ch_…"} or
// {"payment_intent": "pi_…"}, exactly one key with a non-empty string.
QJsonObject targetToJson(TargetType type, const QString &id);
// Reads that shape; on failure returns false and sets *error to "target: …" / "target.charge: …".
bool targetFromJson(const QJsonObject &json, TargetType *type, QString *id, QString *error);

// The durable record of one logical operation, written before anything is sent (DESIGN.md).
// A plain value type: copying it copies a snapshot; the ledger is the only owner of the truth.
// Amount is integer minor units of `currency` (lowercase ISO-4217); see money().
struct ActionRecord
{
    QString id;                 // "act_" + 24 lowercase base32 chars, minted by the backend
    QString kind = QStringLiteral("refund");
    TargetType targetType = TargetType::Charge;
    QString targetId;           // "ch_…" or "pi_…"
    QString businessReference;  // the order id, free text, may be empty
    qint64 amount = 0;          // minor units
    QString currency;           // lowercase ISO-4217
    QString reason;             // Stripe refund reason or empty: duplicate | fraudulent | requested_by_customer
    QString provider;           // adapter name: "stripe", "paysim"
    QString providerAccount;    // account label, may be empty
    QString requestedBy;        // the proposing agent (user name)
    QString clientReference;    // the agent's own stable reference; unique per requestedBy
    QString parentId;           // for a follow-up: the action it adjusts; empty otherwise
    QString requestFingerprint; // requestFingerprint(providerRequest()), 64 hex chars
    QString idempotencyKey;     // minted at approval; empty until approved
    int approvalVersion = 0;    // 0 until the first approval
    ActionState state = ActionState::Pending;
    qint64 stateVersion = 1;    // bumped by every change; the API's ETag
    QString reviewReason;       // why it is REQUIRES_REVIEW; empty otherwise
    QDateTime createdAt;        // UTC
    QDateTime updatedAt;        // UTC

    // The agent's reasons (issue 19): for the approver only. Immutable from the proposal on and
    // never part of providerRequest() or its fingerprint. Limits are the API's (docs/API.md):
    QString justification;             // ≤ 2,000 characters; newline and tab the only controls
    QString contextUrl;                // an absolute https:// URL with a host, ≤ 2,048; may be empty
    QMap<QString, QString> facts;      // ≤ 10 members; keys [a-z0-9_]{1,40}; values ≤ 200 characters

    // PENDING with its approval complete (the key minted; a quorum's partial signatures mint
    // none): nothing left for a person to decide, waiting for the executor (GET /actions'
    // awaiting=decision and counts.queued; the ledger's partial index actions_queued).
    bool isQueued() const { return state == ActionState::Pending && !idempotencyKey.isEmpty(); }

    bool hasReasons() const { return !justification.isEmpty() || !contextUrl.isEmpty() || !facts.isEmpty(); }
    // {"justification", "context_url", "facts"}: the members an agent proposed, empty ones left out
    // (so a proposal without reasons compares as it did before they existed).
    QJsonObject reasonsPayload() const;

    std::optional<Money> money() const; // nothing only for a record that was never validated

    // The exact request the executor sends for this action (idempotency key goes in a header and
    // is not part of it). Fields: charge|payment_intent, amount (plain integer), reason if set,
    // metadata[countersign_action_id], metadata[countersign_currency], metadata[business_reference]
    // if set. The fingerprint is computed over this.
    ProviderRequest providerRequest() const;

    // The payload an agent proposed, for comparing a resubmission under the same reference:
    // kind, target, amount, currency, reason, business_reference (not ids, keys or state).
    // The agent's reasons are compared too, but through reasonsPayload().
    QJsonObject proposalPayload() const;

    QJsonObject toJson() const;
    static std::optional<ActionRecord> fromJson(const QJsonObject &json, QString *error = nullptr);

    friend bool operator==(const ActionRecord &, const ActionRecord &) = default;
};

// facts on the wire and in the ledger: a JSON object of strings. factsFromJson keeps only string
// members (the API refuses anything else before it gets here).
QJsonObject factsToJson(const QMap<QString, QString> &facts);
QMap<QString, QString> factsFromJson(const QJsonObject &json);

// Timestamps on the wire: ISO-8601 UTC with milliseconds, "2026-11-29T22:38:35.123Z".
QString toWireTime(const QDateTime &time);        // empty string for a null time
QDateTime timeFromWire(const QString &wire);      // null QDateTime if empty or malformed

} // namespace cs
