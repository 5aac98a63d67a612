#pragma once

#include "server/api/role.h"

#include <QByteArray>
#include <QString>

#include <optional>

namespace cs {

class UserStore;

// Maps an `Authorization: Bearer <token>` header to a user (tokens are looked up by their
// SHA-256, never stored). Thread-safe as UserStore is.
class Authenticator
{
public:
    enum class Status {
        Ok,
        Missing, // no Authorization header, or not exactly `Bearer <token>` (bearerToken())
        Unknown, // a token no enabled user has
        Error,   // the user table could not be read
    };

    struct Result
    {
        Status status = Status::Missing;
        User user;
        QString error;
    };

    explicit Authenticator(const UserStore *users);

    Result authenticate(const QByteArray &authorizationHeader) const;

    // The syntax of the header value (docs/API.md, "Authentication and roles"): the scheme
    // `Bearer` (case-insensitive, RFC 9110 §11.1), exactly ONE space, then an RFC 6750 b64token
    // (letters, digits, - . _ ~ + /, then any `=`). Nothing for any other form: `Bearer  tok`,
    // `Bearer\ttok`, `Bearer`, `Basic …`, a token with a comma or a non-ASCII byte.
    static std::optional<QByteArray> bearerToken(const QByteArray &value);

private:
    const UserStore *m_users;
};

} // namespace cs
