#pragma once

#include "server/policy/policy.h"

#include <QJsonObject>
#include <QString>

#include <variant>

namespace cs {

// The policy file's members (docs/POLICY.md), read strictly like the API's request bodies: an
// unknown member, a wrong type, an out-of-range value, a duplicate rule id are errors naming the
// member by its path ("rules[2].match.amount_above"). The JSON text itself (syntax, a member given
// twice) is read before, by the caller (PolicyLoader, with StrictJson), which names the line.
class PolicyParser
{
public:
    struct Error
    {
        QString field;   // "rules[2].match.currency"; "" for the document
        QString message; // "is not a known member", "must be an integer from 1 to 10", ...
        int line = 0;    // 1-based when known (syntax errors), else 0
        QString toString() const; // "line 3: ..." / "rules[2].match.currency: ..."
    };

    static std::variant<Policy, Error> parse(const QJsonObject &document);
};

} // namespace cs
