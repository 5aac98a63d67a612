#pragma once

#include "server/api/apiresponse.h"
#include "server/ledger/ledgererror.h"

#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QString>

#include <optional>

namespace cs {

// One offending field of a request: a JSON path of a body member ("target.charge"), or the name
// of a query parameter or header.
struct FieldError
{
    QString field;
    QString message;
};

// An application/problem+json answer (RFC 9457) with the API's stable `code` (docs/API.md,
// "Errors"). The status and title are fixed per code; detail and extensions vary per instance.
class Problem
{
public:
    Problem(QString code, QString detail);

    Problem &withErrors(const QList<FieldError> &errors);
    Problem &with(const QString &member, const QJsonValue &value);
    Problem &withHeader(const QByteArray &name, const QByteArray &value);

    const QString &code() const { return m_code; }
    int status() const { return m_status; }
    QString title() const;

    QJsonObject toJson(const QString &instance) const;
    ApiResponse toResponse(const QString &instance) const;

    // The HTTP status of a code (500 for an unknown one).
    static int statusOf(const QString &code);

private:
    QString m_code;
    int m_status = 500;
    QString m_detail;
    QJsonObject m_extensions;
    HeaderList m_headers;
};

// A ledger whose storage refuses writes (LedgerError::CannotWrite: a full disk, a read-only file
// or database, an I/O error) or that is damaged (Damaged): 503 `unavailable`, Retry-After 30, the
// reason in words and `"ledger": "cannot_write"` or `"damaged"` for clients (the console says "the
// ledger cannot write"). nullopt for any other error. notDone: what did not happen ("nothing was
// written").
std::optional<Problem> storageProblem(const LedgerError &error, const QString &notDone);

} // namespace cs
