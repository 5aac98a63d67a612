#include "models/displayformat.h"
#include "models/approval.h"
#include "models/money.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTimeZone>

#include <limits>

namespace cs::display {

namespace {
QString tr(const char *text)
{
    return QCoreApplication::translate("cs::display", text);
}
} // namespace

QString stateName(ActionState state)
{
    switch (state) {
    case ActionState::Pending:
        return tr("Pending");
    case ActionState::Executing:
        return tr("Executing");
    case ActionState::ConfirmationUnknown:
        return tr("Confirmation unknown");
    case ActionState::Completed:
        return tr("Completed");
    case ActionState::Rejected:
        return tr("Rejected");
    case ActionState::RequiresReview:
        return tr("Requires review");
    }
    return QString();
}

QString money(qint64 minorUnits, const QString &currency)
{
    if (const std::optional<Money> m = Money::fromMinorUnits(minorUnits, currency))
        return m->format();
    // A difference can be negative (a budget overdrawn): the amount with a minus sign.
    if (minorUnits < 0 && minorUnits > std::numeric_limits<qint64>::min()) {
        if (const std::optional<Money> m = Money::fromMinorUnits(-minorUnits, currency))
            return QChar(0x2212) + m->format();
    }
    return QString::number(minorUnits) + QLatin1Char(' ') + currency.toUpper();
}

QString age(qint64 seconds)
{
    if (seconds < 0)
        seconds = 0;
    if (seconds < 60)
        return QCoreApplication::translate("cs::display", "%1 s").arg(seconds);
    if (seconds < 3600)
        return QCoreApplication::translate("cs::display", "%1 min").arg(seconds / 60);
    if (seconds < 48 * 3600)
        return QCoreApplication::translate("cs::display", "%1 h").arg(seconds / 3600);
    return QCoreApplication::translate("cs::display", "%1 d").arg(seconds / 86400);
}

QString relative(const QDateTime &then, const QDateTime &now)
{
    if (!then.isValid())
        return QString();
    const qint64 seconds = then.secsTo(now);
    if (seconds < 5)
        return tr("just now");
    return QCoreApplication::translate("cs::display", "%1 ago").arg(age(seconds));
}

QString time(const QDateTime &utc)
{
    if (!utc.isValid())
        return QString();
    return utc.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
}

QString preciseTime(const QDateTime &utc)
{
    if (!utc.isValid())
        return QString();
    return utc.toLocalTime().toString(QStringLiteral("HH:mm:ss.zzz"));
}

QString timeAfter(const QDateTime &laterUtc, const QDateTime &earlierUtc)
{
    if (!laterUtc.isValid())
        return QString();
    const QDateTime later = laterUtc.toLocalTime();
    if (earlierUtc.isValid() && earlierUtc.toLocalTime().date() == later.date())
        return later.toString(QStringLiteral("HH:mm:ss"));
    return time(laterUtc);
}

QString timeSpan(const QDateTime &firstUtc, const QDateTime &lastUtc)
{
    const QString first = timeAfter(firstUtc, lastUtc);
    return first + QChar(0x2013) + timeAfter(lastUtc, firstUtc);
}

QString isoTime(const QDateTime &utc)
{
    if (!utc.isValid())
        return QString();
    return utc.toUTC().toString(Qt::ISODateWithMs);
}

QString duration(qint64 ms)
{
    if (ms < 0)
        ms = 0;
    if (ms < 1000)
        return QCoreApplication::translate("cs::display", "%1 ms").arg(ms);
    if (ms < 60'000)
        return QCoreApplication::translate("cs::display", "%1 s").arg(double(ms) / 1000.0, 0, 'f', 1);
    const qint64 s = ms / 1000;
    if (s < 3600)
        return QCoreApplication::translate("cs::display", "%1 min %2 s").arg(s / 60).arg(s % 60);
    if (s < 48 * 3600)
        return QCoreApplication::translate("cs::display", "%1 h %2 min").arg(s / 3600).arg((s % 3600) / 60);
    return QCoreApplication::translate("cs::display", "%1 d %2 h").arg(s / 86400).arg((s % 86400) / 3600);
}

QString shortHash(const QString &hex)
{
    if (hex.size() <= 20)
        return hex;
    return hex.left(10) + QChar(0x2026) + hex.right(6);
}

QString yesNo(bool value)
{
    return value ? tr("yes") : tr("no");
}

QString rejectionReason(const QString &wire)
{
    if (wire == u"wrong_amount")
        return tr("Wrong amount");
    if (wire == u"duplicate")
        return tr("Duplicate");
    if (wire == u"not_eligible")
        return tr("Not eligible");
    if (wire == u"needs_information")
        return tr("Needs information");
    if (wire == u"other")
        return tr("Other");
    return wire;
}

QString rejectionText(const QString &wireReason, const QString &note)
{
    const QString reason = rejectionReason(wireReason);
    if (reason.isEmpty() || note.isEmpty())
        return reason.isEmpty() ? note : reason;
    return reason + QStringLiteral(": ") + note;
}

QString decider(const QString &decidedBy, const QString &ruleId, int policyVersion)
{
    if (decidedBy != Approval::policyApprover())
        return decidedBy;
    return QCoreApplication::translate("cs::display", "the policy (rule %1, v%2)")
        .arg(ruleId.isEmpty() ? QStringLiteral("-") : ruleId)
        .arg(policyVersion);
}

std::optional<qint64> parseAmount(const QString &text, const QString &currency)
{
    int exponent = Money::exponent(currency);
    if (exponent < 0)
        return std::nullopt;
    QString t = text.trimmed();
    t.replace(QLatin1Char(','), QLatin1Char('.'));
    if (t.isEmpty() || t.size() > 20)
        return std::nullopt;
    const qsizetype dot = t.indexOf(QLatin1Char('.'));
    const QString whole = dot < 0 ? t : t.left(dot);
    QString fraction = dot < 0 ? QString() : t.mid(dot + 1);
    if (whole.isEmpty() || fraction.size() > exponent || (dot >= 0 && fraction.isEmpty()))
        return std::nullopt;
    const QString digits = whole + fraction;
    for (const QChar c : digits) {
        if (c < QLatin1Char('0') || c > QLatin1Char('9'))
            return std::nullopt;
    }
    while (fraction.size() < exponent)
        fraction += QLatin1Char('0');
    bool ok = false;
    const qint64 value = QString(whole + fraction).toLongLong(&ok);
    if (!ok || value > Money::MaxMinorUnits)
        return std::nullopt;
    return value;
}

QString jsonValue(const QJsonValue &value)
{
    if (value.isUndefined())
        return QStringLiteral("\u2014");
    if (value.isString())
        return value.toString();
    if (value.isDouble())
        return QString::number(value.toInteger(qint64(value.toDouble())));
    if (value.isBool())
        return value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    if (value.isNull())
        return QStringLiteral("null");
    const QJsonDocument doc = value.isObject() ? QJsonDocument(value.toObject()) : QJsonDocument(value.toArray());
    return QString::fromUtf8(doc.toJson(QJsonDocument::Compact));
}

} // namespace cs::display
