#include "models/money.h"

#include <QLatin1String>

#include <algorithm>
#include <array>
#include <string_view>

namespace cs {

namespace {

struct CurrencyInfo
{
    std::string_view code; // lowercase
    int exponent;          // digits of the minor unit
};

// ISO 4217 List One as published by the maintenance agency (SIX) on 2026-01-01: every code that
// has a numeric minor unit. Units of account without one ("N.A.": xau, xdr, xts, xxx, ...) are
// not money a provider can refund and are deliberately absent. Withdrawn codes (ang, bgn, cuc,
// hrk, sll, zwl, ...) are absent too. Kept sorted so lookup is a binary search; a static_assert
// below guards the order.
constexpr std::array<CurrencyInfo, 165> Currencies{{
    { "aed", 2 }, { "afn", 2 }, { "all", 2 }, { "amd", 2 }, { "aoa", 2 }, { "ars", 2 }, { "aud", 2 },
    { "awg", 2 }, { "azn", 2 }, { "bam", 2 }, { "bbd", 2 }, { "bdt", 2 }, { "bhd", 3 }, { "bif", 0 },
    { "bmd", 2 }, { "bnd", 2 }, { "bob", 2 }, { "bov", 2 }, { "brl", 2 }, { "bsd", 2 }, { "btn", 2 },
    { "bwp", 2 }, { "byn", 2 }, { "bzd", 2 }, { "cad", 2 }, { "cdf", 2 }, { "che", 2 }, { "chf", 2 },
    { "chw", 2 }, { "clf", 4 }, { "clp", 0 }, { "cny", 2 }, { "cop", 2 }, { "cou", 2 }, { "crc", 2 },
    { "cup", 2 }, { "cve", 2 }, { "czk", 2 }, { "djf", 0 }, { "dkk", 2 }, { "dop", 2 }, { "dzd", 2 },
    { "egp", 2 }, { "ern", 2 }, { "etb", 2 }, { "eur", 2 }, { "fjd", 2 }, { "fkp", 2 }, { "gbp", 2 },
    { "gel", 2 }, { "ghs", 2 }, { "gip", 2 }, { "gmd", 2 }, { "gnf", 0 }, { "gtq", 2 }, { "gyd", 2 },
    { "hkd", 2 }, { "hnl", 2 }, { "htg", 2 }, { "huf", 2 }, { "idr", 2 }, { "ils", 2 }, { "inr", 2 },
    { "iqd", 3 }, { "irr", 2 }, { "isk", 0 }, { "jmd", 2 }, { "jod", 3 }, { "jpy", 0 }, { "kes", 2 },
    { "kgs", 2 }, { "khr", 2 }, { "kmf", 0 }, { "kpw", 2 }, { "krw", 0 }, { "kwd", 3 }, { "kyd", 2 },
    { "kzt", 2 }, { "lak", 2 }, { "lbp", 2 }, { "lkr", 2 }, { "lrd", 2 }, { "lsl", 2 }, { "lyd", 3 },
    { "mad", 2 }, { "mdl", 2 }, { "mga", 2 }, { "mkd", 2 }, { "mmk", 2 }, { "mnt", 2 }, { "mop", 2 },
    { "mru", 2 }, { "mur", 2 }, { "mvr", 2 }, { "mwk", 2 }, { "mxn", 2 }, { "mxv", 2 }, { "myr", 2 },
    { "mzn", 2 }, { "nad", 2 }, { "ngn", 2 }, { "nio", 2 }, { "nok", 2 }, { "npr", 2 }, { "nzd", 2 },
    { "omr", 3 }, { "pab", 2 }, { "pen", 2 }, { "pgk", 2 }, { "php", 2 }, { "pkr", 2 }, { "pln", 2 },
    { "pyg", 0 }, { "qar", 2 }, { "ron", 2 }, { "rsd", 2 }, { "rub", 2 }, { "rwf", 0 }, { "sar", 2 },
    { "sbd", 2 }, { "scr", 2 }, { "sdg", 2 }, { "sek", 2 }, { "sgd", 2 }, { "shp", 2 }, { "sle", 2 },
    { "sos", 2 }, { "srd", 2 }, { "ssp", 2 }, { "stn", 2 }, { "svc", 2 }, { "syp", 2 }, { "szl", 2 },
    { "thb", 2 }, { "tjs", 2 }, { "tmt", 2 }, { "tnd", 3 }, { "top", 2 }, { "try", 2 }, { "ttd", 2 },
    { "twd", 2 }, { "tzs", 2 }, { "uah", 2 }, { "ugx", 0 }, { "usd", 2 }, { "usn", 2 }, { "uyi", 0 },
    { "uyu", 2 }, { "uyw", 4 }, { "uzs", 2 }, { "ved", 2 }, { "ves", 2 }, { "vnd", 0 }, { "vuv", 0 },
    { "wst", 2 }, { "xad", 2 }, { "xaf", 0 }, { "xcd", 2 }, { "xcg", 2 }, { "xof", 0 }, { "xpf", 0 },
    { "yer", 2 }, { "zar", 2 }, { "zmw", 2 }, { "zwg", 2 },
}};

constexpr bool isStrictlySorted()
{
    for (std::size_t i = 1; i < Currencies.size(); ++i) {
        if (!(Currencies[i - 1].code < Currencies[i].code))
            return false;
    }
    return true;
}
static_assert(isStrictlySorted(), "the currency table must be sorted and free of duplicates");

// The lowercase form of an ISO code, or nothing if it is not three ASCII letters. Only ASCII is
// folded: QString::toLower would map the Kelvin sign U+212A to 'k' and accept "\u212Awd" as kwd.
std::optional<std::array<char, 3>> asciiCode(QStringView currency)
{
    if (currency.size() != 3)
        return std::nullopt;
    std::array<char, 3> code{};
    for (qsizetype i = 0; i < 3; ++i) {
        const char16_t c = currency[i].unicode();
        if (c >= u'a' && c <= u'z')
            code[std::size_t(i)] = char(c);
        else if (c >= u'A' && c <= u'Z')
            code[std::size_t(i)] = char(c - u'A' + u'a');
        else
            return std::nullopt;
    }
    return code;
}

const CurrencyInfo *findCurrency(QStringView currency)
{
    const auto code = asciiCode(currency);
    if (!code)
        return nullptr;
    const std::string_view key(code->data(), code->size());
    const auto it = std::lower_bound(Currencies.begin(), Currencies.end(), key,
                                     [](const CurrencyInfo &info, std::string_view k) { return info.code < k; });
    if (it == Currencies.end() || it->code != key)
        return nullptr;
    return &*it;
}

constexpr qint64 powerOfTen(int exponent)
{
    qint64 result = 1;
    for (int i = 0; i < exponent; ++i)
        result *= 10;
    return result;
}

void setError(QString *error, const QString &message)
{
    if (error)
        *error = message;
}

} // namespace

std::optional<Money> Money::fromMinorUnits(qint64 minorUnits, QStringView currency, QString *error)
{
    const CurrencyInfo *info = findCurrency(currency);
    if (!info) {
        setError(error, QStringLiteral("\"%1\" is not a known ISO-4217 currency code; expected three "
                                       "letters such as usd, eur or jpy.")
                            .arg(currency.toString()));
        return std::nullopt;
    }
    if (minorUnits < 0) {
        setError(error, QStringLiteral("The amount %1 is negative; an amount is a count of minor units "
                                       "from 0 to %2.")
                            .arg(minorUnits)
                            .arg(MaxMinorUnits));
        return std::nullopt;
    }
    if (minorUnits > MaxMinorUnits) {
        setError(error, QStringLiteral("The amount %1 is too large; at most %2 minor units are accepted.")
                            .arg(minorUnits)
                            .arg(MaxMinorUnits));
        return std::nullopt;
    }
    return Money(minorUnits, QLatin1String(info->code.data(), qsizetype(info->code.size())));
}

int Money::exponent(QStringView currency)
{
    const CurrencyInfo *info = findCurrency(currency);
    return info ? info->exponent : -1;
}

bool Money::isKnownCurrency(QStringView currency)
{
    return findCurrency(currency) != nullptr;
}

qint64 Money::tenThousandths(qint64 minorUnits, QStringView currency)
{
    const int digits = exponent(currency);
    return minorUnits * powerOfTen(4 - (digits < 0 ? 2 : digits));
}

std::optional<qint64> Money::searchedTenThousandths(QStringView text)
{
    const qsizetype dot = text.indexOf(u'.');
    const QStringView whole = dot < 0 ? text : text.left(dot);
    const QStringView decimals = dot < 0 ? QStringView() : text.mid(dot + 1);
    const auto digitsOnly = [](QStringView part) {
        return std::all_of(part.begin(), part.end(), [](QChar c) { return c >= u'0' && c <= u'9'; });
    };
    if (whole.isEmpty() || whole.size() > 15 || !digitsOnly(whole))
        return std::nullopt;
    if (dot >= 0 && (decimals.isEmpty() || decimals.size() > 4 || !digitsOnly(decimals)))
        return std::nullopt;
    // 15 digits fit a qint64; above MaxMinorUnits major units no action's amount can be equal.
    const qint64 major = whole.toLongLong();
    if (major > MaxMinorUnits)
        return std::nullopt;
    qint64 fraction = decimals.isEmpty() ? 0 : decimals.toLongLong();
    for (qsizetype i = decimals.size(); i < 4; ++i)
        fraction *= 10;
    return major * 10'000 + fraction;
}

QStringList Money::knownCurrencies()
{
    QStringList codes;
    for (const CurrencyInfo &info : Currencies)
        codes << QLatin1String(info.code.data(), qsizetype(info.code.size()));
    return codes;
}

QString Money::format() const
{
    return decimalString() + QLatin1Char(' ') + m_currency.toUpper();
}

QString Money::decimalString() const
{
    const int digits = exponent(m_currency);
    if (digits <= 0)
        return QString::number(m_minor);
    const qint64 scale = powerOfTen(digits);
    return QString::number(m_minor / scale) + QLatin1Char('.')
        + QStringLiteral("%1").arg(m_minor % scale, digits, 10, QLatin1Char('0'));
}

std::optional<Money> Money::minus(const Money &other) const
{
    if (m_currency != other.m_currency || other.m_minor > m_minor)
        return std::nullopt;
    return Money(m_minor - other.m_minor, m_currency);
}

std::optional<Money> Money::plus(const Money &other) const
{
    // Both operands are within 0..MaxMinorUnits, so the comparison below cannot overflow.
    if (m_currency != other.m_currency || other.m_minor > MaxMinorUnits - m_minor)
        return std::nullopt;
    return Money(m_minor + other.m_minor, m_currency);
}

} // namespace cs
