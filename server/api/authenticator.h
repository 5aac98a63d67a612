#pragma once

#include "server/api/auththrottle.h"
#include "server/api/role.h"

#include <QByteArray>
#include <QHostAddress>
#include <QString>

#include <chrono>

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
        Missing,   // no Authorization header, or not a Bearer one
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

private:
    Result lookUp(const QByteArray &authorizationHeader) const;

    const UserStore *m_users;
    AuthThrottle m_throttle;
};

} // namespace cs
