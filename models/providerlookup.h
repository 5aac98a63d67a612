#pragma once

#include <QDateTime>
#include <QJsonObject>
#include <QString>

#include <optional>

namespace cs {

// One question asked of the provider about an action, and its answer (append-only). Stored
// whoever asked: the reconciler, a supervisor's "look up now", a webhook.
struct ProviderLookup
{
    enum class Method {
        ListByMetadata, // GET /v1/refunds?charge=… matched on metadata[countersign_action_id]
        RetrieveRefund, // GET /v1/refunds/{id}
        Events,         // GET /v1/events
        Webhook,        // an event delivered to us
    };
    enum class Result { Found, NotFound, Error };

    QString actionId;
    int seq = 0;               // 1, 2, ... per action
    Method method = Method::ListByMetadata;
    QString askedBy;           // "reconciler", a user name, "webhook"
    QDateTime at;              // UTC
    Result result = Result::NotFound;
    QString providerObjectId;  // "re_…" when found
    QString status;            // provider's refund status: pending | requires_action | succeeded | failed | canceled
    qint64 amount = 0;         // minor units, when found
    QString currency;          // lowercase, when found
    int httpStatus = 0;
    QString excerpt;           // at most 500 characters of what the provider said
    QString failureReason;     // the refund's failure_reason when failed (issue 18); else empty

    QJsonObject toJson() const;
    static std::optional<ProviderLookup> fromJson(const QJsonObject &json, QString *error = nullptr);
    friend bool operator==(const ProviderLookup &, const ProviderLookup &) = default;
};

QString toWire(ProviderLookup::Method method); // "list_by_metadata", "retrieve_refund", "events", "webhook"
std::optional<ProviderLookup::Method> lookupMethodFromWire(QStringView wire);
QString toWire(ProviderLookup::Result result); // "FOUND", "NOT_FOUND", "ERROR"
std::optional<ProviderLookup::Result> lookupResultFromWire(QStringView wire);

} // namespace cs
