#pragma once

#include "server/api/role.h"

#include <QByteArray>
#include <QString>

namespace cs {

class UserStore;

// Maps an `Authorization: Bearer <token>` header to a user (tokens are looked up by their
// SHA-256, never stored). Thread-safe as UserStore is.
class Authenticator
{
public:
    enum class Status {
        Ok,
        Missing, // no Authorization header, or not a Bearer one
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

private:
    const UserStore *m_users;
};

} // namespace cs
