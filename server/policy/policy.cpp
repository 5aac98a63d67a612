#include "server/policy/policy.h"

#include <QJsonArray>
#include <QRegularExpression>

#include <utility>

namespace cs {

namespace {

QJsonArray toArray(const QStringList &values)
{
    QJsonArray array;
    for (const QString &value : values)
        array.append(value);
    return array;
}

} // namespace

std::optional<qint64> PolicyRule::durationFromText(const QString &text)
{
    static const QRegularExpression pattern(QStringLiteral("^([1-9][0-9]{0,7})([smhd])$"));
    const QRegularExpressionMatch m = pattern.match(text);
    if (!m.hasMatch())
        return std::nullopt;
    const qint64 n = m.captured(1).toLongLong();
    const QChar unit = m.captured(2).at(0);
    const qint64 perUnit = unit == u's' ? 1 : unit == u'm' ? 60 : unit == u'h' ? 3600 : 86400;
    if (n > kMaxExpirySeconds / perUnit)
        return std::nullopt;
    return n * perUnit;
}

QString PolicyRule::durationToText(qint64 seconds)
{
    for (const auto &[perUnit, unit] : {std::pair<qint64, char>{86400, 'd'}, {3600, 'h'}, {60, 'm'}}) {
        if (seconds % perUnit == 0)
            return QString::number(seconds / perUnit) + QLatin1Char(unit);
    }
    return QString::number(seconds) + u's';
}

bool PolicyRule::matches(const ActionRecord &action) const
{
    if (!currency.isEmpty() && action.currency != currency)
        return false;
    if (amountAbove && !(action.amount > *amountAbove))
        return false;
    if (amountUpTo && !(action.amount <= *amountUpTo))
        return false;
    if (!agents.isEmpty() && !agents.contains(action.requestedBy))
        return false;
    if (!reasons.isEmpty() && !reasons.contains(action.reason))
        return false;
    if (!kinds.isEmpty() && !kinds.contains(action.kind))
        return false;
    return true;
}

QJsonObject PolicyRule::toJson() const
{
    QJsonObject match;
    if (!currency.isEmpty())
        match.insert(QLatin1String("currency"), currency);
    if (amountAbove)
        match.insert(QLatin1String("amount_above"), *amountAbove);
    if (amountUpTo)
        match.insert(QLatin1String("amount_up_to"), *amountUpTo);
    if (!agents.isEmpty())
        match.insert(QLatin1String("agents"), toArray(agents));
    if (!reasons.isEmpty())
        match.insert(QLatin1String("reasons"), toArray(reasons));
    if (!kinds.isEmpty())
        match.insert(QLatin1String("kinds"), toArray(kinds));
    QJsonObject json{{QLatin1String("id"), id}, {QLatin1String("match"), match},
                     {QLatin1String("require_approvals"), requireApprovals}};
    if (autoApprove)
        json.insert(QLatin1String("auto_approve"),
                    QJsonObject{{QLatin1String("up_to"), autoApprove->upTo},
                                {QLatin1String("agents"), toArray(autoApprove->agents)},
                                {QLatin1String("daily_total"), autoApprove->dailyTotal}});
    if (approvalExpiresAfterSeconds)
        json.insert(QLatin1String("approval_expires_after"), durationToText(*approvalExpiresAfterSeconds));
    if (!description.isEmpty())
        json.insert(QLatin1String("description"), description);
    return json;
}

const PolicyRule *Policy::match(const ActionRecord &action) const
{
    for (const PolicyRule &rule : rules) {
        if (rule.matches(action))
            return &rule;
    }
    return nullptr;
}

Policy::Requirement Policy::requirementFor(const ActionRecord &action) const
{
    Requirement requirement;
    requirement.policyVersion = version;
    if (const PolicyRule *rule = match(action)) {
        requirement.approvals = rule->requireApprovals;
        requirement.ruleId = rule->id;
        requirement.autoApprove = rule->autoApprove;
        requirement.currency = rule->currency;
        requirement.autoApprovable = rule->autoApprove && rule->autoApprove->agents.contains(action.requestedBy)
            && action.amount <= rule->autoApprove->upTo;
        requirement.expiresAfterSeconds = rule->approvalExpiresAfterSeconds;
    }
    return requirement;
}

QJsonObject Policy::toJson() const
{
    QJsonArray ruleArray;
    for (const PolicyRule &rule : rules)
        ruleArray.append(rule.toJson());
    return QJsonObject{
        {QLatin1String("version"), version},
        {QLatin1String("sha256"), sha256},
        {QLatin1String("source"), source},
        {QLatin1String("loaded_by"), loadedBy},
        {QLatin1String("loaded_at"), loadedAt.isValid() ? QJsonValue(toWireTime(loadedAt)) : QJsonValue()},
        {QLatin1String("rules"), ruleArray},
    };
}

} // namespace cs
