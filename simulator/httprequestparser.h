#pragma once

#include "simulator/httprequest.h"

#include <QByteArray>
#include <QString>

#include <variant>

namespace cs::paysim {

// The pure part of paysim's HTTP/1.x request reading: bytes in, a parsed head or a refusal out; no
// socket, no I/O (HttpConnection owns those). Bodies are framed by Content-Length only.
// Refused: malformed request line or headers, including a bare CR or a NUL anywhere in the head (400), a POST/PUT/PATCH without Content-Length (411),
// any Transfer-Encoding (411), a Content-Length over MaxBodyBytes (413), a head over MaxHeadBytes
// (431), versions other than HTTP/1.0 and 1.1 (505).
class HttpRequestParser
{
public:
    static constexpr qsizetype MaxHeadBytes = 16 * 1024;
    static constexpr qsizetype MaxBodyBytes = 1024 * 1024;

    struct NeedMore
    {
    };
    struct Refusal
    {
        int status = 400;
        QString message;
    };
    struct Head
    {
        HttpRequest request; // no body and no peer yet
        qsizetype bodyLength = 0;
    };
    using Step = std::variant<NeedMore, Head, Refusal>;

    // Takes the next request head from the front of *buffer. Empty lines before a request line are
    // dropped (RFC 9112 2.2). Head: the head and its blank line are removed from *buffer, so the
    // body (bodyLength bytes, possibly not all arrived yet) starts it. NeedMore: nothing else is
    // removed. Refusal: the connection must be answered and closed; *buffer no longer matters.
    static Step takeHead(QByteArray *buffer);

    // One request head without its final CRLF CRLF.
    static std::variant<Head, Refusal> parseHead(const QByteArray &head);
};

} // namespace cs::paysim
