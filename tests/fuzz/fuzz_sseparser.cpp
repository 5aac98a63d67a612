// libFuzzer target: the console's text/event-stream parser (client/sseparser.*). The same bytes
// are fed whole, one byte at a time and in chunks whose sizes come from the input itself; every
// way must dispatch the same events and end with the same last event id and retry. Each event has
// a type, no line break outside its data and no NUL in its id, and there are no more events than
// blank lines: the output is bounded by the input.

#include "client/sseparser.h"
#include "tests/fuzz/fuzzcheck.h"

using cs::SseEvent;
using cs::SseParser;

namespace {

struct Outcome
{
    QList<SseEvent> events;
    QString lastEventId;
    std::optional<int> retryMs;
    friend bool operator==(const Outcome &, const Outcome &) = default;
};

// Feeds `stream` in chunks: a chunk size from each byte of `sizes` in turn (0 means an empty
// chunk), then whatever is left.
Outcome feedInChunks(const QByteArray &stream, QByteArrayView sizes)
{
    SseParser parser;
    Outcome out;
    qsizetype at = 0;
    for (qsizetype i = 0; at < stream.size(); ++i) {
        const qsizetype size = sizes.isEmpty() ? stream.size() : qsizetype(quint8(sizes[i % sizes.size()])) % 17;
        out.events += parser.feed(stream.mid(at, size));
        at += size;
        if (i > 4 * stream.size() + 16)
            break; // all-zero sizes: the rest goes whole below
    }
    out.events += parser.feed(stream.mid(at));
    out.lastEventId = parser.lastEventId();
    out.retryMs = parser.retryMs();
    return out;
}

Outcome feedBytewise(const QByteArray &stream)
{
    SseParser parser;
    Outcome out;
    parser.feed(QByteArrayLiteral("data: before reset\n")); // reset() must forget it
    parser.reset();
    for (char c : stream)
        out.events += parser.feed(QByteArray(1, c));
    out.lastEventId = parser.lastEventId();
    out.retryMs = parser.retryMs();
    return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    // The first byte says how many of the following bytes are chunk sizes; the rest is the stream.
    if (size < 1)
        return 0;
    const qsizetype sizeCount = qMin<qsizetype>(data[0] % 16, qsizetype(size) - 1);
    const QByteArrayView sizes(reinterpret_cast<const char *>(data) + 1, sizeCount);
    const QByteArray stream = cs::fuzz::bytes(data + 1 + sizeCount, size - 1 - size_t(sizeCount));

    const Outcome whole = feedInChunks(stream, {});
    FUZZ_CHECK(feedInChunks(stream, sizes) == whole);
    FUZZ_CHECK(feedBytewise(stream) == whole);

    const qsizetype lineEnds = stream.count('\n') + stream.count('\r');
    FUZZ_CHECK(whole.events.size() <= lineEnds / 2 + 1);
    for (const SseEvent &event : whole.events) {
        FUZZ_CHECK(!event.type.isEmpty());
        FUZZ_CHECK(!event.type.contains(u'\n') && !event.type.contains(u'\r'));
        FUZZ_CHECK(!event.data.contains(u'\r'));
        FUZZ_CHECK(!event.id.contains(u'\n') && !event.id.contains(u'\r') && !event.id.contains(QChar(0)));
        FUZZ_CHECK(event.data.size() <= stream.size());
    }
    FUZZ_CHECK(!whole.retryMs || *whole.retryMs >= 0);
    return 0;
}
