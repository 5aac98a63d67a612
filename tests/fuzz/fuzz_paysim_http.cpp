// libFuzzer target: paysim's HTTP/1.x request reading (simulator/httprequestparser.*), the pure
// part of HttpConnection. The input is what a client sends on one connection: requests are taken
// off it one after another (pipelining) as HttpConnection does. Properties: a refusal has a 4xx or
// 505 status and a message; an accepted head has a token method, an absolute-path target without
// control characters, HTTP/1.0 or 1.1, a Host for 1.1, no Transfer-Encoding, a body length within
// the limit and header values without line breaks; writing a request back in canonical form and
// reading it again gives the same request; and the same bytes split at any point frame the same.

#include "simulator/httprequestparser.h"
#include "tests/fuzz/fuzzcheck.h"

using cs::paysim::HttpRequest;
using cs::paysim::HttpRequestParser;

namespace {

struct Framed
{
    QList<HttpRequest> requests; // with bodies
    int refusal = 0;             // the status that ended the connection; 0: none
    QByteArray rest;             // bytes not yet a whole request
};

void checkHead(const HttpRequestParser::Head &head)
{
    const HttpRequest &r = head.request;
    FUZZ_CHECK(!r.method.isEmpty() && !r.method.contains(' '));
    FUZZ_CHECK(r.target.startsWith('/'));
    for (char c : r.target)
        FUZZ_CHECK(quint8(c) > 0x20 && quint8(c) < 0x7f);
    FUZZ_CHECK(r.version == "HTTP/1.1" || r.version == "HTTP/1.0");
    FUZZ_CHECK(r.version == "HTTP/1.0" || r.hasHeader("Host"));
    FUZZ_CHECK(!r.hasHeader("Transfer-Encoding"));
    FUZZ_CHECK(head.bodyLength >= 0 && head.bodyLength <= HttpRequestParser::MaxBodyBytes);
    for (const auto &[name, value] : r.headers) {
        FUZZ_CHECK(!name.isEmpty() && !name.contains(':') && !name.contains(' '));
        FUZZ_CHECK(!value.contains('\r') && !value.contains('\n') && !value.contains('\0'));
        FUZZ_CHECK(value == value.trimmed());
    }
}

// The request as a canonical head: request line, headers as parsed, CRLF endings.
QByteArray canonicalHead(const HttpRequest &r)
{
    QByteArray head = r.method + ' ' + r.target + ' ' + r.version;
    for (const auto &[name, value] : r.headers)
        head += "\r\n" + name + ": " + value;
    return head;
}

bool same(const HttpRequest &a, const HttpRequest &b)
{
    return a.method == b.method && a.target == b.target && a.version == b.version && a.headers == b.headers
        && a.body == b.body;
}

// Takes whole requests off *buffer as HttpConnection::processBuffer does.
void frame(QByteArray *buffer, Framed *out)
{
    while (out->refusal == 0) {
        QByteArray work = *buffer;
        HttpRequestParser::Step step = HttpRequestParser::takeHead(&work);
        if (std::holds_alternative<HttpRequestParser::NeedMore>(step)) {
            FUZZ_CHECK(work.size() <= buffer->size() && buffer->endsWith(work)); // only empty lines went
            return;
        }
        if (const auto *refused = std::get_if<HttpRequestParser::Refusal>(&step)) {
            FUZZ_CHECK((refused->status >= 400 && refused->status < 500) || refused->status == 505);
            FUZZ_CHECK(!refused->message.isEmpty());
            out->refusal = refused->status;
            return;
        }
        auto head = std::get<HttpRequestParser::Head>(std::move(step));
        checkHead(head);
        FUZZ_CHECK(work.size() < buffer->size());
        if (work.size() < head.bodyLength)
            return; // the body is still on its way; the head is read again with it
        head.request.body = work.left(head.bodyLength);
        work.remove(0, head.bodyLength);

        // Canonical form reads back as the same request.
        const auto again = HttpRequestParser::parseHead(canonicalHead(head.request));
        const auto *reread = std::get_if<HttpRequestParser::Head>(&again);
        FUZZ_CHECK(reread != nullptr);
        FUZZ_CHECK(reread->bodyLength == head.bodyLength);
        HttpRequest withBody = reread->request;
        withBody.body = head.request.body;
        FUZZ_CHECK(same(withBody, head.request));

        out->requests.append(std::move(head.request));
        *buffer = std::move(work);
    }
}

Framed frameAll(const QByteArray &stream, qsizetype split)
{
    Framed out;
    QByteArray buffer = stream.left(split);
    frame(&buffer, &out);
    if (out.refusal == 0) {
        buffer += stream.mid(split);
        frame(&buffer, &out);
    }
    out.rest = out.refusal == 0 ? buffer : QByteArray();
    return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    const QByteArray stream = cs::fuzz::bytes(data + 2, size - 2);
    const qsizetype split = stream.isEmpty() ? 0 : qsizetype(data[0] | (data[1] << 8)) % (stream.size() + 1);

    const Framed whole = frameAll(stream, stream.size());
    const Framed parts = frameAll(stream, split);
    FUZZ_CHECK(parts.refusal == whole.refusal);
    FUZZ_CHECK(parts.requests.size() == whole.requests.size());
    for (qsizetype i = 0; i < whole.requests.size(); ++i)
        FUZZ_CHECK(same(parts.requests[i], whole.requests[i]));
    FUZZ_CHECK(parts.rest == whole.rest);
    return 0;
}
