#pragma once

#include "server/api/role.h"
#include "server/ledger/clock.h"
#include "server/ledger/ledgerresult.h"

#include <QDateTime>
#include <QList>
#include <QString>

#include <optional>

namespace cs {

class LedgerDatabase;

// A token's expiry as the CLI gives it: `given` false keeps what there is (UserStore::rotateToken:
// the same lifetime from now); `at` empty means never.
struct TokenExpiry
{
    bool given = false;
    std::optional<QDateTime> at;
};

// The API's users (table `users`, migrations 3 and 6): a name, one role and the SHA-256 of one
// bearer token, with the token's life cycle: when it was minted, when it expires (never, by
// default), whether the user is disabled, and when it was last used.
//
// Tokens are "cst_" + 52 base32 characters (a-z, 2-7: 260 random bits from the OS CSPRNG), so a
// secret scanner finds a leaked one with the regex  \bcst_[a-z2-7]{52}\b  (tokenPattern()). Only
// their hash is stored, so a token is shown once, when it is minted (addUser, rotateToken).
//
// Thread-safe (each thread uses its own connection of `database`; writes go through its one write
// transaction and mutex).
class UserStore
{
public:
    using Expiry = TokenExpiry;

    enum class TokenState { Unknown, Active, Expired, Disabled };

    struct Lookup
    {
        TokenState state = TokenState::Unknown;
        User user; // set unless Unknown
    };

    // A row of `user list`.
    struct Record
    {
        User user;
        bool disabled = false;
        QDateTime tokenCreatedAt;
        std::optional<QDateTime> expiresAt;
        std::optional<QDateTime> lastUsedAt;
        QString state(const QDateTime &now) const; // "active", "expired" or "disabled"
    };

    // A successful authentication is recorded in last_used_at at most this often per user.
    static constexpr qint64 kLastUseResolutionMs = 60 * 1000;

    explicit UserStore(LedgerDatabase *database, Clock clock = {});

    // Creates the user and returns its new token. Invalid for a malformed or reserved name
    // ("executor", "reconciler", "system", "webhook") or an expiry not in the future, Conflict
    // when the name exists. Also appends a `user_added` audit event (no action, no token) to the
    // ledger's hash chain.
    LedgerResult<QString> addUser(const QString &name, Role role, const Expiry &expiry = {});

    // A new token for the user; the old one stops working with this commit. Audited
    // (`user_token_rotated`). NotFound for an unknown name.
    LedgerResult<QString> rotateToken(const QString &name, const Expiry &expiry = {});

    // Disabled users' tokens are refused (401 token_disabled) until enabled again. Audited
    // (`user_disabled`, `user_enabled`); NotFound for an unknown name. Idempotent.
    LedgerError setDisabled(const QString &name, bool disabled);

    // What the token is: Unknown (no user has it), or its user with the token's state. An Active
    // lookup records the use (at most once per kLastUseResolutionMs per user; a failure to record
    // it is logged, not returned).
    LedgerResult<Lookup> lookUpToken(const QString &token) const;

    LedgerResult<QList<Record>> users() const;

    static QString newToken();
    static QString tokenPattern(); // the regex above, for secret scanners and tests
    static QString hashToken(const QString &token); // 64 lowercase hex characters
    static bool isValidName(const QString &name, QString *why = nullptr);

private:
    QDateTime now() const;

    LedgerDatabase *m_db;
    Clock m_clock;
};

} // namespace cs
