#include "server/api/authenticator.h"

#include "server/api/userstore.h"

namespace cs {

Authenticator::Authenticator(const UserStore *users) : m_users(users) {}

Authenticator::Result Authenticator::authenticate(const QByteArray &authorizationHeader) const
{
    Result result;
    const QByteArray header = authorizationHeader.trimmed();
    const qsizetype space = header.indexOf(' ');
    if (space <= 0 || header.left(space).compare("bearer", Qt::CaseInsensitive) != 0) {
        result.status = Status::Missing;
        return result;
    }
    const QByteArray token = header.mid(space + 1).trimmed();
    if (token.isEmpty() || token.size() > 512) {
        result.status = token.isEmpty() ? Status::Missing : Status::Unknown;
        return result;
    }
    const auto user = m_users->userForToken(QString::fromLatin1(token));
    if (!user.ok()) {
        result.status = Status::Error;
        result.error = user.error().toString();
        return result;
    }
    if (!user.value()) {
        result.status = Status::Unknown;
        return result;
    }
    result.status = Status::Ok;
    result.user = *user.value();
    return result;
}

} // namespace cs
