#include "server/api/authenticator.h"

#include "server/api/userstore.h"

namespace cs {

Authenticator::Authenticator(const UserStore *users, AuthThrottle::Options throttle)
    : m_users(users), m_throttle(throttle)
{
}

std::optional<QByteArray> Authenticator::bearerToken(const QByteArray &value)
{
    // Optional whitespace around the whole field value is the HTTP parser's (RFC 9110 §5.5).
    const QByteArray header = value.trimmed();
    static constexpr QByteArrayView scheme = "bearer ";
    if (header.size() <= scheme.size() || QByteArrayView(header).first(scheme.size()).compare(scheme, Qt::CaseInsensitive) != 0)
        return std::nullopt;
    const QByteArray token = header.mid(scheme.size());
    // RFC 6750 b64token: 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
    qsizetype i = 0;
    const auto tokenChar = [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.'
            || c == '_' || c == '~' || c == '+' || c == '/';
    };
    while (i < token.size() && tokenChar(token.at(i)))
        ++i;
    if (i == 0)
        return std::nullopt;
    while (i < token.size() && token.at(i) == '=')
        ++i;
    if (i != token.size())
        return std::nullopt;
    return token;
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
    const std::optional<QByteArray> bearer = bearerToken(authorizationHeader);
    if (!bearer) {
        result.status = Status::Missing;
        return result;
    }
    const QByteArray &token = *bearer;
    if (token.size() > 512) {
        result.status = Status::Unknown;
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
