#include "server/api/strictjson.h"

#include <QVariant>
#include <QJsonArray>
#include <QSet>

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

namespace cs {

namespace {

class Reader
{
public:
    Reader(const QByteArray &bytes, int maxDepth)
        : m_data(reinterpret_cast<const unsigned char *>(bytes.constData())), m_size(bytes.size()), m_maxDepth(maxDepth)
    {
    }

    std::variant<QJsonValue, StrictJson::Error> run()
    {
        if (m_size >= 3 && m_data[0] == 0xEF && m_data[1] == 0xBB && m_data[2] == 0xBF)
            return fail(QStringLiteral("a byte order mark is not allowed"));
        skipSpace();
        QJsonValue value;
        if (!readValue(&value))
            return *m_error;
        skipSpace();
        if (m_pos != m_size)
            return fail(QStringLiteral("garbage at the end of the document"));
        return value;
    }

private:
    StrictJson::Error fail(const QString &message, StrictJson::Error::Kind kind = StrictJson::Error::Kind::Syntax)
    {
        if (!m_error)
            m_error = StrictJson::Error{kind, message, m_pos, path()};
        return *m_error;
    }
    bool failed(const QString &message)
    {
        fail(message);
        return false;
    }

    // "target.charge", "items[2].id"
    QString path() const
    {
        QString out;
        for (const QString &part : m_path)
            out += (out.isEmpty() || part.startsWith(QLatin1Char('[')) ? QString() : QStringLiteral(".")) + part;
        return out;
    }

    bool atEnd() const { return m_pos >= m_size; }
    unsigned char peek() const { return atEnd() ? 0 : m_data[m_pos]; }

    void skipSpace()
    {
        while (!atEnd() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r'))
            ++m_pos;
    }

    bool literal(const char *word, const QJsonValue &meaning, QJsonValue *out)
    {
        const qsizetype length = qsizetype(qstrlen(word));
        if (m_size - m_pos < length || memcmp(m_data + m_pos, word, size_t(length)) != 0)
            return failed(QStringLiteral("illegal value"));
        m_pos += length;
        *out = meaning;
        return true;
    }

    bool readValue(QJsonValue *out)
    {
        if (atEnd())
            return failed(QStringLiteral("a value is missing"));
        switch (peek()) {
        case '{':
            return readObject(out);
        case '[':
            return readArray(out);
        case '"': {
            QString text;
            if (!readString(&text, false))
                return false;
            *out = text;
            return true;
        }
        case 't':
            return literal("true", true, out);
        case 'f':
            return literal("false", false, out);
        case 'n':
            return literal("null", QJsonValue::Null, out);
        default:
            return readNumber(out);
        }
    }

    bool enter()
    {
        if (++m_depth > m_maxDepth)
            return failed(QStringLiteral("too deeply nested document"));
        ++m_pos;
        skipSpace();
        return true;
    }

    bool readObject(QJsonValue *out)
    {
        if (!enter())
            return false;
        QJsonObject object;
        QSet<QString> names;
        if (peek() == '}') {
            ++m_pos;
            --m_depth;
            *out = object;
            return true;
        }
        for (;;) {
            skipSpace();
            if (peek() != '"')
                return failed(atEnd() ? QStringLiteral("unterminated object") : QStringLiteral("a member name is expected"));
            const qsizetype nameAt = m_pos;
            QString name;
            if (!readString(&name, true))
                return false;
            if (names.contains(name)) {
                m_pos = nameAt;
                m_path.append(name);
                fail(QStringLiteral("the member \"%1\" is given more than once").arg(path()),
                     StrictJson::Error::Kind::DuplicateMember);
                return false;
            }
            names.insert(name);
            skipSpace();
            if (peek() != ':')
                return failed(atEnd() ? QStringLiteral("unterminated object") : QStringLiteral("missing name separator"));
            ++m_pos;
            skipSpace();
            m_path.append(name);
            QJsonValue value;
            if (!readValue(&value))
                return false;
            m_path.removeLast();
            object.insert(name, value);
            skipSpace();
            if (peek() == ',') {
                ++m_pos;
                continue;
            }
            if (peek() == '}') {
                ++m_pos;
                --m_depth;
                *out = object;
                return true;
            }
            return failed(atEnd() ? QStringLiteral("unterminated object") : QStringLiteral("missing value separator"));
        }
    }

    bool readArray(QJsonValue *out)
    {
        if (!enter())
            return false;
        QJsonArray array;
        if (peek() == ']') {
            ++m_pos;
            --m_depth;
            *out = array;
            return true;
        }
        for (;;) {
            skipSpace();
            m_path.append(QStringLiteral("[%1]").arg(array.size()));
            QJsonValue value;
            if (!readValue(&value))
                return false;
            m_path.removeLast();
            array.append(value);
            skipSpace();
            if (peek() == ',') {
                ++m_pos;
                continue;
            }
            if (peek() == ']') {
                ++m_pos;
                --m_depth;
                *out = array;
                return true;
            }
            return failed(atEnd() ? QStringLiteral("unterminated array") : QStringLiteral("missing value separator"));
        }
    }

    static int hexValue(unsigned char c)
    {
        if (c >= '0' && c <= '9')
            return c - '0';
        if (c >= 'a' && c <= 'f')
            return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
            return c - 'A' + 10;
        return -1;
    }

    // Four hex digits after "\u" at m_pos; advances past them.
    std::optional<char16_t> hex4()
    {
        if (m_size - m_pos < 4)
            return std::nullopt;
        int value = 0;
        for (int i = 0; i < 4; ++i) {
            const int digit = hexValue(m_data[m_pos + i]);
            if (digit < 0)
                return std::nullopt;
            value = value * 16 + digit;
        }
        m_pos += 4;
        return char16_t(value);
    }

    // One UTF-8 sequence starting at m_pos (a byte >= 0x80); the code point, or nothing (then
    // m_pos has moved past the first byte only).
    std::optional<char32_t> utf8()
    {
        const unsigned char b0 = m_data[m_pos];
        int length = 0;
        char32_t cp = 0;
        unsigned char low = 0x80, high = 0xBF;
        if (b0 >= 0xC2 && b0 <= 0xDF) {
            length = 2;
            cp = b0 & 0x1F;
        } else if (b0 >= 0xE0 && b0 <= 0xEF) {
            length = 3;
            cp = b0 & 0x0F;
            if (b0 == 0xE0)
                low = 0xA0; // overlong
            else if (b0 == 0xED)
                high = 0x9F; // UTF-8-encoded surrogates
        } else if (b0 >= 0xF0 && b0 <= 0xF4) {
            length = 4;
            cp = b0 & 0x07;
            if (b0 == 0xF0)
                low = 0x90; // overlong
            else if (b0 == 0xF4)
                high = 0x8F; // over U+10FFFF
        } else {
            ++m_pos; // 0x80..0xC1 (continuation, overlong lead), 0xF5..0xFF
            return std::nullopt;
        }
        if (m_size - m_pos < length) {
            ++m_pos;
            return std::nullopt;
        }
        for (int i = 1; i < length; ++i) {
            const unsigned char b = m_data[m_pos + i];
            if (b < (i == 1 ? low : 0x80) || b > (i == 1 ? high : 0xBF)) {
                ++m_pos;
                return std::nullopt;
            }
            cp = (cp << 6) | (b & 0x3F);
        }
        m_pos += length;
        return cp;
    }

    // A string at m_pos (the opening quote). Invalid Unicode in a member name is a syntax error;
    // in a value it is kept as lone low surrogates (see the header).
    bool readString(QString *out, bool isName)
    {
        ++m_pos;
        QString text;
        bool valid = true;
        const auto invalid = [&](char16_t unit) {
            valid = false;
            text.append(QChar(char16_t(0xDC00 | (unit & 0xFF))));
        };
        for (;;) {
            if (atEnd())
                return failed(QStringLiteral("unterminated string"));
            const unsigned char c = m_data[m_pos];
            if (c == '"') {
                ++m_pos;
                break;
            }
            if (c < 0x20)
                return failed(QStringLiteral("a raw control character (U+%1) in a string; escape it")
                                  .arg(QString::number(c, 16).toUpper().rightJustified(4, QLatin1Char('0'))));
            if (c == '\\') {
                ++m_pos;
                if (atEnd())
                    return failed(QStringLiteral("unterminated string"));
                const unsigned char e = m_data[m_pos++];
                switch (e) {
                case '"': text.append(QLatin1Char('"')); break;
                case '\\': text.append(QLatin1Char('\\')); break;
                case '/': text.append(QLatin1Char('/')); break;
                case 'b': text.append(QLatin1Char('\b')); break;
                case 'f': text.append(QLatin1Char('\f')); break;
                case 'n': text.append(QLatin1Char('\n')); break;
                case 'r': text.append(QLatin1Char('\r')); break;
                case 't': text.append(QLatin1Char('\t')); break;
                case 'u': {
                    const std::optional<char16_t> unit = hex4();
                    if (!unit)
                        return failed(QStringLiteral("invalid escape sequence"));
                    if (QChar::isHighSurrogate(*unit)) {
                        // A pair only as "\uD8xx\uDCxx".
                        const qsizetype save = m_pos;
                        if (m_size - m_pos >= 6 && m_data[m_pos] == '\\' && m_data[m_pos + 1] == 'u') {
                            m_pos += 2;
                            const std::optional<char16_t> next = hex4();
                            if (next && QChar::isLowSurrogate(*next)) {
                                text.append(QChar(*unit));
                                text.append(QChar(*next));
                                break;
                            }
                        }
                        m_pos = save;
                        invalid(*unit);
                    } else if (QChar::isLowSurrogate(*unit)) {
                        invalid(*unit);
                    } else {
                        text.append(QChar(*unit));
                    }
                    break;
                }
                default:
                    m_pos -= 2;
                    return failed(QStringLiteral("invalid escape sequence"));
                }
                continue;
            }
            if (c < 0x80) {
                text.append(QLatin1Char(char(c)));
                ++m_pos;
                continue;
            }
            const qsizetype at = m_pos;
            if (const std::optional<char32_t> cp = utf8()) {
                // Not QString::fromUcs4, which drops a leading U+FEFF as a byte order mark.
                if (QChar::requiresSurrogates(*cp)) {
                    text.append(QChar(QChar::highSurrogate(*cp)));
                    text.append(QChar(QChar::lowSurrogate(*cp)));
                } else {
                    text.append(QChar(char16_t(*cp)));
                }
            } else {
                invalid(char16_t(m_data[at]));
            }
        }
        if (isName && !valid)
            return failed(QStringLiteral("a member name is not valid Unicode"));
        *out = text;
        return true;
    }

    bool digits()
    {
        const qsizetype start = m_pos;
        while (!atEnd() && peek() >= '0' && peek() <= '9')
            ++m_pos;
        return m_pos > start;
    }

    bool readNumber(QJsonValue *out)
    {
        const qsizetype start = m_pos;
        if (peek() == '-')
            ++m_pos;
        if (peek() == '0') {
            ++m_pos;
        } else if (peek() >= '1' && peek() <= '9') {
            digits();
        } else {
            m_pos = start;
            return failed(QStringLiteral("illegal value"));
        }
        bool integer = true;
        if (peek() == '.') {
            ++m_pos;
            integer = false;
            if (!digits())
                return failed(QStringLiteral("illegal number"));
        }
        if (peek() == 'e' || peek() == 'E') {
            ++m_pos;
            integer = false;
            if (peek() == '+' || peek() == '-')
                ++m_pos;
            if (!digits())
                return failed(QStringLiteral("illegal number"));
        }
        if (!atEnd() && (peek() >= '0' && peek() <= '9'))
            return failed(QStringLiteral("illegal number")); // a leading zero: "01"
        const QByteArray text(reinterpret_cast<const char *>(m_data + start), m_pos - start);
        if (integer) {
            bool ok = false;
            const qint64 n = text.toLongLong(&ok);
            if (ok) {
                *out = QJsonValue(n);
                return true;
            }
        }
        bool ok = false;
        double d = text.toDouble(&ok);
        if (!ok) // out of the range of a double: keep the sign, refuse it as "not an integer" later
            d = text.startsWith('-') ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
        // A QJsonObject stores an integral double within int64 as an integer (1e2 would become
        // 100): such a literal is kept as NaN, a number that is no integer.
        if (std::isfinite(d) && std::trunc(d) == d && std::abs(d) < 9.2e18)
            d = std::numeric_limits<double>::quiet_NaN();
        *out = QJsonValue(d);
        return true;
    }

    const unsigned char *m_data;
    qsizetype m_size;
    qsizetype m_pos = 0;
    int m_depth = 0;
    int m_maxDepth;
    QStringList m_path;
    std::optional<StrictJson::Error> m_error;
};

} // namespace

std::variant<QJsonValue, StrictJson::Error> StrictJson::parse(const QByteArray &bytes, int maxDepth)
{
    return Reader(bytes, maxDepth).run();
}

std::variant<QJsonObject, StrictJson::Error> StrictJson::parseObject(const QByteArray &bytes, int maxDepth)
{
    auto parsed = parse(bytes, maxDepth);
    if (auto *error = std::get_if<Error>(&parsed))
        return *error;
    const QJsonValue &value = std::get<QJsonValue>(parsed);
    if (!value.isObject())
        return Error{Error::Kind::Syntax, QStringLiteral("the body is not a JSON object"), 0, QString()};
    return value.toObject();
}

bool StrictJson::isIntegerLiteral(const QJsonValue &value)
{
    // QJsonValue keeps the two apart internally (QCborValue Integer / Double); toVariant() shows
    // it (QCborValue::fromJsonValue would turn an integral double into an integer).
    return value.isDouble() && value.toVariant().typeId() == QMetaType::LongLong;
}

} // namespace cs
