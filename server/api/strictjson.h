#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>

#include <variant>

namespace cs {

// The reader of request bodies (docs/API.md, "Limits and validation"): RFC 8259 JSON over the raw
// bytes, stricter than QJsonDocument where that one is lenient, and exact where it loses facts.
//
// Refused as syntax (Error::Kind::Syntax, 400 malformed_json): anything outside the RFC 8259
// grammar (leading zeros, a leading byte order mark, raw control characters U+0000..U+001F inside
// strings, invalid UTF-8 outside strings or in a member NAME, a lone surrogate escape in a member
// name, bad escapes, trailing bytes), and nesting deeper than maxDepth.
// Refused as ambiguous (Error::Kind::DuplicateMember, 400 duplicate_member): a member name given
// twice in one object, at any depth, compared after unescaping ("a" and "\u0061" are the same).
//
// Kept for the member checks (BodyReader, 422 validation_failed naming the field):
// - Numbers: a JSON integer literal (no fraction, no exponent) that fits in int64 becomes an
//   integer QJsonValue; every other number a double one (40.5; 9223372036854775808; 1e309 as
//   infinity). A QJsonObject turns an integral double into an integer, so an integral literal
//   with a fraction or an exponent (1e2, 100.0, -0.0, 4000e0) is kept as NaN: a number, never an
//   integer. isIntegerLiteral() tells them apart. (No API member takes a fractional number.)
// - String VALUES that are not valid Unicode (invalid UTF-8: overlong forms, UTF-8-encoded
//   surrogates, code points over U+10FFFF, stray bytes; \uD800-style escapes that do not form a
//   surrogate pair) stay recognisably invalid: every offending unit becomes a lone LOW surrogate
//   (U+DC00 + the byte, or the escape's value), and no high surrogate is ever left unpaired, so
//   such a string is exactly one for which QString::isValidUtf16() is false.
//
// Pure, re-entrant, no allocation beyond the result; linear in the input.
class StrictJson
{
public:
    struct Error
    {
        enum class Kind { Syntax, DuplicateMember };
        Kind kind = Kind::Syntax;
        QString message;   // "unterminated string", "a byte order mark is not allowed", ...
        qsizetype offset = 0;
        QString path;      // DuplicateMember: the member's JSON path ("target.charge")
    };

    static constexpr int DefaultMaxDepth = 64;

    // One JSON text whose value is an object.
    static std::variant<QJsonObject, Error> parseObject(const QByteArray &bytes, int maxDepth = DefaultMaxDepth);
    // One JSON text of any value.
    static std::variant<QJsonValue, Error> parse(const QByteArray &bytes, int maxDepth = DefaultMaxDepth);

    // True for a value read from an integer literal that fits in int64 (and for integers a
    // program put into a QJsonValue); false for doubles, whatever their value.
    static bool isIntegerLiteral(const QJsonValue &value);
};

} // namespace cs
