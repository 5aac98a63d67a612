#include "models/fingerprint.h"

#include <QCryptographicHash>

#include <algorithm>

namespace cs {

namespace {

// RFC 3986 percent-encoding of the UTF-8 bytes: unreserved characters (ALPHA DIGIT - . _ ~) are
// kept, everything else, including '&', '=', '+', '[', ']', space and newline, becomes %XX with
// uppercase hex. That keeps a name or value from ever being confused with a separator.
QByteArray percentEncoded(const QString &text)
{
    return text.toUtf8().toPercentEncoding();
}

} // namespace

QByteArray ProviderRequest::formBody() const
{
    QByteArray body;
    for (const auto &[name, value] : fields) {
        if (!body.isEmpty())
            body += '&';
        body += percentEncoded(name);
        body += '=';
        body += percentEncoded(value);
    }
    return body;
}

QString ProviderRequest::field(const QString &name) const
{
    for (const auto &[fieldName, value] : fields) {
        if (fieldName == name)
            return value;
    }
    return QString();
}

QByteArray canonicalRequest(const ProviderRequest &request)
{
    // Sorted by the encoded name, then the encoded value, comparing bytes: a total order that does
    // not depend on locale or on QString's collation, and that a reimplementation in any language
    // (sorting the UTF-8 percent-encoded strings) reproduces.
    QList<QPair<QByteArray, QByteArray>> encoded;
    encoded.reserve(request.fields.size());
    for (const auto &[name, value] : request.fields)
        encoded.append({ percentEncoded(name), percentEncoded(value) });
    std::sort(encoded.begin(), encoded.end());

    QByteArray canonical = request.method.toUtf8();
    canonical += '\n';
    canonical += request.path.toUtf8();
    canonical += '\n';
    for (const auto &[name, value] : std::as_const(encoded)) {
        canonical += name;
        canonical += '=';
        canonical += value;
        canonical += '\n';
    }
    return canonical;
}

QString requestFingerprint(const ProviderRequest &request)
{
    const QByteArray digest = QCryptographicHash::hash(canonicalRequest(request), QCryptographicHash::Sha256);
    return QString::fromLatin1(digest.toHex());
}

} // namespace cs
