#include "server/api/authenticator.h"

#include "server/api/userstore.h"

namespace cs {

Authenticator::Authenticator(const UserStore *users, AuthThrottle::Options throttle)
    : m_users(users), m_throttle(throttle)
{
}

Authenticator::Result Authenticator::authenticate(const QByteArray &authorizationHeader, const QHostAddress &peer)
{
    if (const auto wait = m_throttle.retryAfter(peer); wait.count() > 0) {
        Result throttled;
        throttled.status = Status::Throttled;
        throttled.retryAfter = wait;
        return throttled;
    }
    Result result = lookUp(authorizationHeader);
    if (result.status == Status::Unknown || result.status == Status::Expired || result.status == Status::Disabled)
        m_throttle.recordFailure(peer);
    return result;
}

Authenticator::Result Authenticator::lookUp(const QByteArray &authorizationHeader) const
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
    const auto lookup = m_users->lookUpToken(QString::fromLatin1(token));
    if (!lookup.ok()) {
        result.status = Status::Error;
        result.error = lookup.error().toString();
        return result;
    }
    switch (lookup->state) {
    case UserStore::TokenState::Unknown: result.status = Status::Unknown; return result;
    case UserStore::TokenState::Expired: result.status = Status::Expired; break;
    case UserStore::TokenState::Disabled: result.status = Status::Disabled; break;
    case UserStore::TokenState::Active: result.status = Status::Ok; break;
    }
    result.user = lookup->user;
    return result;
}

} // namespace cs
