#pragma once

#include <QString>
#include <QStringView>
#include <QtGlobal>

#include <optional>

namespace cs {

// An amount of money: integer minor units of one ISO-4217 currency. Never floating point.
// The currency is stored lowercase, as payment providers write it ("usd", "jpy").
// Valid amounts are 0 .. MaxMinorUnits inclusive; negative amounts and unknown currencies are
// refused at construction, so a Money that exists is always valid.
class Money
{
public:
    static constexpr qint64 MaxMinorUnits = 1'000'000'000'000; // 10^12

    // Returns nothing, and sets *error to a sentence a user can read, when the amount is negative,
    // exceeds MaxMinorUnits, or the currency is not a known ISO-4217 code (case-insensitive).
    static std::optional<Money> fromMinorUnits(qint64 minorUnits, QStringView currency,
                                               QString *error = nullptr);

    qint64 minorUnits() const { return m_minor; }
    QString currency() const { return m_currency; } // lowercase

    // Number of decimal digits of the currency's minor unit (usd 2, jpy 0, kwd 3); -1 if unknown.
    static int exponent(QStringView currency);
    static bool isKnownCurrency(QStringView currency);

    // Human format: "40.00 USD", "5000 JPY", "1.250 KWD". Locale-independent; for display only.
    QString format() const;
    // Major-unit decimal string without currency: "40.00", "5000".
    QString decimalString() const;

    // this - other; nothing if the currencies differ or the result would be negative.
    std::optional<Money> minus(const Money &other) const;
    // this + other; nothing if the currencies differ or the result exceeds MaxMinorUnits.
    std::optional<Money> plus(const Money &other) const;

    friend bool operator==(const Money &, const Money &) = default;

private:
    Money(qint64 minor, QString currency) : m_minor(minor), m_currency(std::move(currency)) {}
    qint64 m_minor = 0;
    QString m_currency;
};

} // namespace cs
