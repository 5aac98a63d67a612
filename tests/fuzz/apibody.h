#pragma once

// The JSON body of a request exactly as countersignd's routes get it (RequestPreconditions, then
// the endpoint's parser), for the parser targets.

#include "server/api/requestpreconditions.h"
#include "tests/fuzz/fuzzcheck.h"

#include <QJsonObject>

#include <optional>
#include <variant>

namespace cs::fuzz {

constexpr qsizetype ApiMaxBodyBytes = 64 * 1024; // countersignd's default --max-body-bytes

// The object countersignd hands the endpoint's parser, or nothing when it answers first (415, 400).
inline std::optional<QJsonObject> apiJsonBody(const QByteArray &body)
{
    RequestPreconditions::Needs needs;
    needs.body = RequestPreconditions::Body::Json;
    const HeaderList headers{{QByteArrayLiteral("Content-Type"), QByteArrayLiteral("application/json")}};
    const auto checked = RequestPreconditions::check(needs, headers, body, ApiMaxBodyBytes);
    if (const auto *problem = std::get_if<Problem>(&checked)) {
        FUZZ_CHECK(!problem->code().isEmpty());
        FUZZ_CHECK(problem->status() >= 400 && problem->status() < 500);
        return std::nullopt;
    }
    return std::get<RequestPreconditions::Passed>(checked).json;
}

// Every error says what is wrong and names its member: a path, or "" only for a member whose
// name is "" (the parsers name an unknown member by its own name).
inline void checkFieldErrors(const QJsonObject &body, const QList<FieldError> &errors)
{
    for (const FieldError &e : errors) {
        FUZZ_CHECK(!e.field.isEmpty() || body.contains(QString()));
        FUZZ_CHECK(!e.message.isEmpty());
    }
}

} // namespace cs::fuzz
