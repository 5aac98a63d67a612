#pragma once

#include <QJsonObject>
#include <QList>
#include <QMetaType>
#include <QPair>
#include <QString>

namespace cs {

// What went wrong with one API call, typed: a transport failure (no answer: the request may or
// may not have been processed), a deadline, or an HTTP error answer with its problem+json body
// (RFC 9457 plus Countersign's stable `code`). Clients branch on `code`, never on `detail`.
struct ApiError
{
    enum class Kind {
        None,      // success
        Transport, // connection refused / reset / closed before an answer: response lost or never sent
        Timeout,   // the per-request deadline passed: the response, if any, was lost
        Http,      // the backend answered with an error status
        Protocol,  // the backend answered something this client cannot read
        Cancelled, // the caller abandoned the call
    };

    Kind kind = Kind::None;
    int httpStatus = 0;
    QString code;        // "stale_state_version", "four_eyes", ...; empty for non-HTTP kinds
    QString title;
    QString detail;
    QJsonObject problem; // the whole problem object
    QString message;     // transport or protocol text
    int retryAfterSeconds = 0;

    bool isError() const { return kind != Kind::None; }
    // No answer arrived: whether the backend acted is unknown. A mutation resends with the same
    // Idempotency-Key and If-Match, so the answer to the first copy comes back instead.
    bool responseLost() const { return kind == Kind::Transport || kind == Kind::Timeout; }
    // Worth sending again unchanged: lost responses, 503 unavailable, 409 idempotency_key_in_flight,
    // and 5xx gateway-like answers (the backend stores nothing for 5xx).
    bool isTransient() const;

    // For 412 stale_state_version and 409 illegal_state: where the action is now (-1 if absent).
    qint64 currentStateVersion() const;
    QString currentState() const;
    // For validation_failed / invalid_parameter: "field: message" lines.
    QList<QPair<QString, QString>> fieldErrors() const;

    // One paragraph for a human, e.g. "Stale state version (412): If-Match "6" is stale; …".
    QString userText() const;

    static ApiError fromHttp(int status, const QByteArray &body, int retryAfterSeconds = 0);
    static ApiError transport(const QString &message);
    static ApiError timeout(int milliseconds);
    static ApiError protocol(const QString &message);
    static ApiError cancelled();
};

} // namespace cs

Q_DECLARE_METATYPE(cs::ApiError)
