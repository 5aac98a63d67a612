#pragma once

#include "server/api/apiresponse.h"
#include "server/api/problem.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>

#include <optional>
#include <variant>

namespace cs {

// The checks an endpoint's row in ApiRoutes asks for before its handler runs (docs/API.md,
// "Errors"), in the contract's order: 413 payload_too_large, 415 unsupported_media_type, 400
// malformed_json, 400 invalid_parameter for the syntax of If-Match and Idempotency-Key; after the
// Idempotency-Key replay, 428 if_match_required. Beside ProposalParser and DecisionParser, which
// then check the body's members.
//
// Pure functions of the request: no I/O, safe on any thread. Header names are matched
// case-insensitively. A header the API reads (Authorization, Content-Type, If-Match,
// Idempotency-Key, Last-Event-ID) given twice is 400 invalid_parameter, before anything else.
// The body is read by StrictJson: a duplicate member is 400 duplicate_member; numbers and text
// that are not what a member needs are left to the member checks (422).
class RequestPreconditions
{
public:
    enum class Body {
        None,         // not looked at (GET)
        Raw,          // at most the limit and application/json, not parsed (the webhook verifies the bytes)
        Json,         // a JSON object, application/json
        OptionalJson, // as Json, or empty (then {} and no media type is needed)
    };
    struct Needs
    {
        Body body = Body::None;
        bool ifMatch = false;        // If-Match is parsed, and required (428)
        bool idempotencyKey = false; // a client Idempotency-Key is parsed (and replayed by the server)
    };

    struct Passed
    {
        QJsonObject json;          // the body; {} unless Needs::body is Json or OptionalJson with a body
        qint64 ifMatch = -1;       // -1: absent, `*`, or not asked for
        QString ifMatchText;       // the digits as sent (part of the replay hash); empty when ifMatch is -1
        QString idempotencyKey;    // empty: none sent, or not asked for
    };

    // 413, 415, 400 for what `needs` asks for; the checks stop at the first refusal.
    static std::variant<Passed, Problem> check(const Needs &needs, const HeaderList &headers, const QByteArray &body,
                                               qsizetype maxBodyBytes);
    // The one Authorization value (empty when absent), or 400 invalid_parameter when it was
    // sent twice; for ApiServer's authentication, which runs before check().
    static std::variant<QByteArray, Problem> authorization(const HeaderList &headers);

    // 428 when If-Match is needed and was absent or `*`. Runs after the replay store, so a resend
    // that still carries the old version is replayed rather than refused.
    static std::optional<Problem> requireIfMatch(const Needs &needs, const Passed &passed);

    // GET /events: Last-Event-ID, 1 to 18 digits (400 invalid_parameter); nothing when absent.
    static std::variant<std::optional<qint64>, Problem> lastEventId(const HeaderList &headers);

    // application/json with at most a charset=utf-8 parameter.
    static bool isJsonMediaType(const QByteArray &contentType);
    static std::optional<QByteArray> header(const HeaderList &headers, const QByteArray &name);
};

} // namespace cs
