#pragma once

#include "server/ledger/clock.h"
#include "server/ledger/ledgerresult.h"
#include "server/api/role.h"

#include <QList>
#include <QString>

#include <optional>

namespace cs {

class LedgerDatabase;

// The API's users (table `users`, migration 3): a name, one role and the SHA-256 of one bearer
// token. Tokens are "cst_" + 52 base32 characters (260 random bits from the OS CSPRNG); only
// their hash is stored, so a token is shown once, when it is minted.
//
// Thread-safe (each thread uses its own connection of `database`; writes go through its one write
// transaction and mutex).
class UserStore
{
public:
    explicit UserStore(LedgerDatabase *database, Clock clock = {});

    // Creates the user and returns its new token. Invalid for a malformed or reserved name
    // ("executor", "reconciler", "system", "webhook"), Conflict when the name exists. Also appends
    // a `user_added` audit event (no action, no token) to the ledger's hash chain.
    LedgerResult<QString> addUser(const QString &name, Role role);

    // The enabled user the token belongs to; nothing for an unknown token.
    LedgerResult<std::optional<User>> userForToken(const QString &token) const;

    LedgerResult<QList<User>> users() const;

    static QString newToken();
    static QString hashToken(const QString &token); // 64 lowercase hex characters
    static bool isValidName(const QString &name, QString *why = nullptr);

private:
    LedgerDatabase *m_db;
    Clock m_clock;
};

} // namespace cs
