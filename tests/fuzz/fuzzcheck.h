#pragma once

// Shared by the libFuzzer targets in tests/fuzz/ (one target per file). A failed property aborts,
// which libFuzzer reports as a crash and saves as crash-<sha1> for reproducing.

#include <QByteArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

// assert() vanishes under NDEBUG (RelWithDebInfo); the properties must not.
#define FUZZ_CHECK(condition)                                                                                   \
    do {                                                                                                       \
        if (!(condition)) {                                                                                    \
            std::fprintf(stderr, "FUZZ_CHECK failed at %s:%d: %s\n", __FILE__, __LINE__, #condition);         \
            std::abort();                                                                                      \
        }                                                                                                      \
    } while (0)

namespace cs::fuzz {

inline QByteArray bytes(const uint8_t *data, size_t size)
{
    return QByteArray(reinterpret_cast<const char *>(data), qsizetype(size));
}

// Text that survives UTF-8, which is what the ledger stores and the wire carries: false for a lone
// UTF-16 surrogate (a JSON "\ud800" escape), which would be stored as something else.
inline bool survivesUtf8(const QString &text)
{
    return QString::fromUtf8(text.toUtf8()) == text;
}

// Issue 12, "exact input": text the API accepts is valid Unicode (StrictJson refuses a lone
// surrogate), so the parser targets demand it. COUNTERSIGN_FUZZ_UNICODE=0 turns the check off, to
// fuzz a build from before that change.
inline bool requireValidUnicode()
{
    constexpr bool byDefault = true;
    static const bool required = [] {
        const char *value = std::getenv("COUNTERSIGN_FUZZ_UNICODE");
        return value ? value[0] == '1' : byDefault;
    }();
    return required;
}

// The compact JSON text of an object, as a server writes it.
inline QByteArray compact(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

} // namespace cs::fuzz
