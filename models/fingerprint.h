#pragma once

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QString>

namespace cs {

// One form-encoded provider request, as it will leave the process: method, path and the form
// fields (Stripe style, bracketed names such as "metadata[order_id]"). Field order is irrelevant.
struct ProviderRequest
{
    QString method; // "POST"
    QString path;   // "/v1/refunds"
    QList<QPair<QString, QString>> fields;

    // application/x-www-form-urlencoded body, fields in the order given.
    QByteArray formBody() const;
    QString field(const QString &name) const; // empty if absent

    friend bool operator==(const ProviderRequest &, const ProviderRequest &) = default;
};

// SHA-256 over the canonical form of a provider request:
//   METHOD "\n" PATH "\n" then, for each field, name "=" value "\n", where names and values are
// percent-encoded (RFC 3986 unreserved kept) and the fields are sorted bytewise by encoded name,
// then encoded value. Method and path are written as given. Integers are written as the
// caller formats them; ActionRecord::providerRequest() writes amounts as plain integers.
// Same logical request -> same fingerprint regardless of field order; any change of a field,
// the method or the path -> a different one. Returned as 64 lowercase hex characters.
QString requestFingerprint(const ProviderRequest &request);

// The canonical text that requestFingerprint hashes (for the console's diff view and debugging).
QByteArray canonicalRequest(const ProviderRequest &request);

} // namespace cs
