#pragma once

#include <QString>
#include <QStringView>

namespace cs {

// Mints the identifiers the backend owns: action ids and idempotency keys. Randomness comes from
// QRandomGenerator::system() (the OS CSPRNG). Thread-safe.
class Ids
{
public:
    // `length` characters of the lowercase RFC 4648 base32 alphabet (a-z, 2-7).
    static QString randomBase32(int length);

    // "act_" + 24 base32 characters (120 random bits).
    static QString newActionId();
    static bool looksLikeActionId(QStringView id);

    // "csk_" + the action id's random part + "_v" + approvalVersion + "_" + 16 base32 characters.
    // At most 255 characters (Stripe's limit); minted only by a human approval (invariant 4).
    static QString newIdempotencyKey(const QString &actionId, int approvalVersion);
};

} // namespace cs
