#pragma once

#include "server/api/auththrottle.h"
#include "server/api/role.h"

#include <QByteArray>
#include <QHostAddress>
#include <QString>

#include <chrono>
#include <optional>

namespace cs {

class UserStore;

// Maps an `Authorization: Bearer <token>` header to a user (tokens are looked up by their
// SHA-256, never stored), and rate-limits failed attempts per client address (AuthThrottle).
// Thread-safe as UserStore and AuthThrottle are.
class Authenticator
{
public:
    enum class Status {
        Ok,
        Missing,   // no Authorization header, or not exactly `Bearer <token>` (bearerToken())
        Unknown,   // a token no user has
        Expired,   // the user's token is past its expiry
        Disabled,  // the user is disabled
        Throttled, // too many failures from this address: retryAfter
        Error,     // the user table could not be read
    };

    struct Result
    {
        Status status = Status::Missing;
        User user;
        QString error;
        std::chrono::milliseconds retryAfter{0}; // Throttled
    };

    explicit Authenticator(const UserStore *users, AuthThrottle::Options throttle = {});

    // A token that is refused (Unknown, Expired, Disabled) counts as a failure of `peer`; a
    // missing one does not (it guesses nothing). Throttled is answered before the token is even
    // looked up, so a right guess from a throttled address is refused too.
    Result authenticate(const QByteArray &authorizationHeader, const QHostAddress &peer);

    const AuthThrottle &throttle() const { return m_throttle; }

    // The syntax of the header value (docs/API.md, "Authentication and roles"): the scheme
    // `Bearer` (case-insensitive, RFC 9110 §11.1), exactly ONE space, then an RFC 6750 b64token
    // (letters, digits, - . _ ~ + /, then any `=`). Nothing for any other form: `Bearer  tok`,
    // `Bearer\ttok`, `Bearer`, `Basic …`, a token with a comma or a non-ASCII byte.
    static std::optional<QByteArray> bearerToken(const QByteArray &value);

private:
    Result lookUp(const QByteArray &authorizationHeader) const;

    const UserStore *m_users;
    AuthThrottle m_throttle;
};

} // namespace cs
