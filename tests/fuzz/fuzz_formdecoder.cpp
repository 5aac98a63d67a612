// libFuzzer target: paysim's application/x-www-form-urlencoded decoder (simulator/formdecoder.*).
// Properties: a refusal says why; an accepted body is an object of strings, arrays and objects no
// deeper than MaxDepth with at most MaxPairs leaves; every parameter it named is in the result
// (nothing is dropped silently); and writing the result back as a form body (bracketed names) and
// decoding that gives the same object.

#include "simulator/formdecoder.h"
#include "tests/fuzz/fuzzcheck.h"

#include <QJsonArray>
#include <QUrl>

using cs::paysim::FormDecoder;

namespace {

// Flattens a decoded value into name=value pairs, as stripe-node writes them.
void flatten(const QString &name, const QJsonValue &value, int depth, QList<QPair<QString, QString>> *pairs)
{
    FUZZ_CHECK(depth <= FormDecoder::MaxDepth);
    if (value.isString()) {
        pairs->append({name, value.toString()});
    } else if (value.isArray()) {
        const QJsonArray array = value.toArray();
        FUZZ_CHECK(!array.isEmpty());
        for (qsizetype i = 0; i < array.size(); ++i)
            flatten(name + QLatin1Char('[') + QString::number(i) + QLatin1Char(']'), array.at(i), depth + 1, pairs);
    } else {
        FUZZ_CHECK(value.isObject());
        const QJsonObject object = value.toObject();
        FUZZ_CHECK(!object.isEmpty());
        for (auto it = object.begin(); it != object.end(); ++it)
            flatten(name + QLatin1Char('[') + it.key() + QLatin1Char(']'), it.value(), depth + 1, pairs);
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray body = cs::fuzz::bytes(data, size);
    QString error;
    const std::optional<QJsonObject> decoded = FormDecoder::decode(body, &error);
    if (!decoded) {
        FUZZ_CHECK(!error.isEmpty());
        return 0;
    }

    // Every parameter name is a key of the result.
    for (const QByteArray &pair : body.split('&')) {
        if (pair.isEmpty())
            continue;
        const qsizetype eq = pair.indexOf('=');
        const std::optional<QString> key = FormDecoder::decodeComponent(eq < 0 ? QByteArrayView(pair) : QByteArrayView(pair).first(eq));
        FUZZ_CHECK(key.has_value());
        const qsizetype open = key->indexOf(u'[');
        FUZZ_CHECK(decoded->contains(open < 0 ? *key : key->left(open)));
    }

    QList<QPair<QString, QString>> pairs;
    for (auto it = decoded->begin(); it != decoded->end(); ++it)
        flatten(it.key(), it.value(), 1, &pairs);
    FUZZ_CHECK(pairs.size() <= FormDecoder::MaxPairs);

    const QByteArray again = FormDecoder::encode(pairs);
    QString againError;
    const std::optional<QJsonObject> redecoded = FormDecoder::decode(again, &againError);
    FUZZ_CHECK(redecoded.has_value());
    FUZZ_CHECK(*redecoded == *decoded);
    return 0;
}
