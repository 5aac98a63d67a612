#include "simulator/httprequestparser.h"

namespace cs::paysim {

namespace {

bool isTokenChar(char c)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
        return true;
    return QByteArrayView("!#$%&'*+-.^_`|~").contains(c);
}

bool isToken(QByteArrayView s)
{
    if (s.isEmpty())
        return false;
    for (char c : s) {
        if (!isTokenChar(c))
            return false;
    }
    return true;
}

HttpRequestParser::Refusal refusal(int status, const QString &message)
{
    return HttpRequestParser::Refusal{status, message};
}

} // namespace

HttpRequestParser::Step HttpRequestParser::takeHead(QByteArray *buffer)
{
    while (buffer->startsWith("\r\n"))
        buffer->remove(0, 2);
    const qsizetype end = buffer->indexOf("\r\n\r\n");
    if (end < 0) {
        // A head of MaxHeadBytes is still complete once its CRLF CRLF arrives: refuse only when
        // the terminator can no longer end within the limit, whatever the chunking.
        if (buffer->size() >= MaxHeadBytes + 4)
            return refusal(431, QStringLiteral("Request head exceeds %1 bytes.").arg(MaxHeadBytes));
        return NeedMore{};
    }
    if (end > MaxHeadBytes)
        return refusal(431, QStringLiteral("Request head exceeds %1 bytes.").arg(MaxHeadBytes));
    const QByteArray head = buffer->left(end);
    buffer->remove(0, end + 4);
    auto parsed = parseHead(head);
    if (auto *refused = std::get_if<Refusal>(&parsed))
        return std::move(*refused);
    return std::get<Head>(std::move(parsed));
}

std::variant<HttpRequestParser::Head, HttpRequestParser::Refusal> HttpRequestParser::parseHead(const QByteArray &head)
{
    Head out;
    HttpRequest &request = out.request;

    const QList<QByteArray> lines = head.split('\n');
    QList<QByteArray> clean;
    clean.reserve(lines.size());
    for (const QByteArray &line : lines) {
        if (!line.endsWith('\r') && &line != &lines.last())
            return refusal(400, QStringLiteral("Malformed request: lines must end with CRLF."));
        clean.append(line.endsWith('\r') ? line.chopped(1) : line);
        // RFC 9110 5.5: CR and NUL are never part of a field value or a request line. A bare CR
        // is a line end to some readers, which would see one more header than we do.
        if (clean.constLast().contains('\r') || clean.constLast().contains('\0'))
            return refusal(400, QStringLiteral("Malformed request: a bare CR or a NUL in the head."));
    }

    const QList<QByteArray> parts = clean.first().split(' ');
    if (parts.size() != 3 || !isToken(parts[0]) || parts[1].isEmpty())
        return refusal(400, QStringLiteral("Malformed request line."));
    request.method = parts[0];
    request.target = parts[1];
    request.version = parts[2];
    if (request.version != QByteArrayLiteral("HTTP/1.1") && request.version != QByteArrayLiteral("HTTP/1.0")) {
        if (request.version.startsWith("HTTP/"))
            return refusal(505, QStringLiteral("Only HTTP/1.0 and HTTP/1.1 are supported."));
        return refusal(400, QStringLiteral("Malformed request line."));
    }
    if (!request.target.startsWith('/'))
        return refusal(400, QStringLiteral("The request target must be an absolute path."));
    for (char c : std::as_const(request.target)) {
        if (static_cast<unsigned char>(c) <= 0x20 || static_cast<unsigned char>(c) >= 0x7f)
            return refusal(400, QStringLiteral("The request target contains invalid characters."));
    }

    for (qsizetype i = 1; i < clean.size(); ++i) {
        const QByteArray &line = clean[i];
        if (line.startsWith(' ') || line.startsWith('\t'))
            return refusal(400, QStringLiteral("Folded header lines are not accepted."));
        const qsizetype colon = line.indexOf(':');
        if (colon <= 0 || !isToken(QByteArrayView(line).first(colon)))
            return refusal(400, QStringLiteral("Malformed header line."));
        request.headers.append({line.left(colon), line.mid(colon + 1).trimmed()});
    }

    if (request.version == QByteArrayLiteral("HTTP/1.1") && !request.hasHeader("Host"))
        return refusal(400, QStringLiteral("HTTP/1.1 requests must carry a Host header."));
    if (request.hasHeader("Transfer-Encoding")) {
        return refusal(411, QStringLiteral("Transfer-coded (chunked) request bodies are not supported; "
                                           "send the body with a Content-Length header."));
    }

    bool haveLength = false;
    qint64 length = 0;
    for (const auto &h : std::as_const(request.headers)) {
        if (QByteArrayView("Content-Length").compare(h.first, Qt::CaseInsensitive) != 0)
            continue;
        const QByteArray &v = h.second;
        bool digits = !v.isEmpty() && v.size() <= 18;
        for (char c : v)
            digits = digits && c >= '0' && c <= '9';
        if (!digits)
            return refusal(400, QStringLiteral("Invalid Content-Length."));
        const qint64 n = v.toLongLong();
        if (haveLength && n != length)
            return refusal(400, QStringLiteral("Conflicting Content-Length headers."));
        haveLength = true;
        length = n;
    }
    const bool bodyMethod = request.method == QByteArrayLiteral("POST") || request.method == QByteArrayLiteral("PUT")
        || request.method == QByteArrayLiteral("PATCH");
    if (!haveLength && bodyMethod) {
        return refusal(411, QStringLiteral("A %1 request needs a Content-Length header (send Content-Length: 0 for no body).")
                                .arg(QString::fromLatin1(request.method)));
    }
    if (length > MaxBodyBytes) {
        return refusal(413,
                       QStringLiteral("Request body of %1 bytes exceeds the limit of %2 bytes.").arg(length).arg(MaxBodyBytes));
    }
    out.bodyLength = static_cast<qsizetype>(length);
    return out;
}

} // namespace cs::paysim
