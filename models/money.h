#pragma once

#include <QString>
#include <QStringList>
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
    // Every known code, lower case, sorted.
    static QStringList knownCurrencies();
    // Minor units in 1/10,000 of the major unit (every known exponent is 0..4), so amounts in
    // currencies with different exponents compare by nominal major-unit value (migration 5's
    // amount_scaled: what a search for a number matches; the `amount` sort orders by currency,
    // then minor units, instead). An unknown code counts as exponent 2.
    static qint64 tenThousandths(qint64 minorUnits, QStringView currency);
    // The amount a search text writes, in the same 1/10,000 of a major unit, when the text is a
    // decimal number in canonical form — 1 to 15 digits, then optionally a dot and 1 to 4 digits;
    // no sign, no group separator, no spaces ("199" and "199.00": 1,990,000; "199.5": 1,995,000).
    // It matches an action whose tenThousandths() equals it (GET /actions?q=, the console's live
    // rows). Nothing for any other text, and for a number above every amount a ledger can hold
    // (MaxMinorUnits of a currency without decimals).
    static std::optional<qint64> searchedTenThousandths(QStringView text);

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
