#include "server/policy/policyparser.h"

#include "models/approval.h"
#include "models/money.h"

#include <QJsonArray>
#include <QRegularExpression>
#include <QSet>

#include <limits>

namespace cs {

namespace {

using Error = PolicyParser::Error;

// Every member of `object` must be one of `known`.
std::optional<Error> unknownMember(const QJsonObject &object, const QString &path, const QStringList &known)
{
    for (auto it = object.begin(); it != object.end(); ++it) {
        if (!known.contains(it.key()))
            return Error{path.isEmpty() ? it.key() : path + u'.' + it.key(),
                         QStringLiteral("is not a known member (known: %1)").arg(known.join(QStringLiteral(", "))), 0};
    }
    return std::nullopt;
}

// A JSON integer (not 1.0, not 1e2: the strict reader keeps those as NaN) in [low, high].
std::optional<qint64> integerIn(const QJsonValue &value, qint64 low, qint64 high)
{
    constexpr qint64 none = std::numeric_limits<qint64>::min();
    if (!value.isDouble())
        return std::nullopt;
    const qint64 n = value.toInteger(none);
    if (n == none || n < low || n > high)
        return std::nullopt;
    return n;
}

// A non-empty array of distinct non-empty strings of at most 255 characters.
std::optional<Error> stringList(const QJsonValue &value, const QString &path, bool allowEmptyString, QStringList *out)
{
    if (!value.isArray() || value.toArray().isEmpty())
        return Error{path, QStringLiteral("must be a non-empty array of strings"), 0};
    const QJsonArray array = value.toArray();
    for (qsizetype i = 0; i < array.size(); ++i) {
        const QString item = QStringLiteral("%1[%2]").arg(path).arg(i);
        if (!array.at(i).isString())
            return Error{item, QStringLiteral("must be a string"), 0};
        const QString s = array.at(i).toString();
        if ((!allowEmptyString && s.trimmed().isEmpty()) || s.size() > 255 || !s.isValidUtf16())
            return Error{item, QStringLiteral("must be a non-blank string of at most 255 characters"), 0};
        if (out->contains(s))
            return Error{item, QStringLiteral("repeats \"%1\"").arg(s), 0};
        out->append(s);
    }
    return std::nullopt;
}

std::optional<Error> parseMatch(const QJsonValue &value, const QString &path, PolicyRule *rule)
{
    if (!value.isObject())
        return Error{path, QStringLiteral("must be an object"), 0};
    const QJsonObject match = value.toObject();
    if (auto e = unknownMember(match, path, {QStringLiteral("currency"), QStringLiteral("amount_above"),
                                             QStringLiteral("amount_up_to"), QStringLiteral("agents"),
                                             QStringLiteral("reasons"), QStringLiteral("kinds")}))
        return e;
    const auto member = [&](const char *name) -> QString { return path + u'.' + QLatin1String(name); };
    if (match.contains(QLatin1String("currency"))) {
        const QJsonValue c = match.value(QLatin1String("currency"));
        const QString currency = c.toString();
        if (!c.isString() || currency != currency.toLower() || !Money::isKnownCurrency(currency))
            return Error{member("currency"), QStringLiteral("must be a known ISO-4217 currency in lower case (\"usd\")"), 0};
        rule->currency = currency;
    }
    for (const char *name : {"amount_above", "amount_up_to"}) {
        if (!match.contains(QLatin1String(name)))
            continue;
        const auto n = integerIn(match.value(QLatin1String(name)), 0, std::numeric_limits<qint64>::max());
        if (!n)
            return Error{member(name), QStringLiteral("must be a non-negative integer amount in minor units"), 0};
        if (rule->currency.isEmpty())
            return Error{member(name), QStringLiteral("needs a currency beside it (amounts are minor units of one currency)"), 0};
        (qstrcmp(name, "amount_above") == 0 ? rule->amountAbove : rule->amountUpTo) = *n;
    }
    if (rule->amountAbove && rule->amountUpTo && *rule->amountUpTo <= *rule->amountAbove)
        return Error{member("amount_up_to"), QStringLiteral("must be greater than amount_above (no amount would match)"), 0};
    const struct { const char *name; QStringList *list; bool allowEmpty; } lists[] = {
        {"agents", &rule->agents, false}, {"reasons", &rule->reasons, true}, {"kinds", &rule->kinds, false}};
    for (const auto &l : lists) {
        if (!match.contains(QLatin1String(l.name)))
            continue;
        if (auto e = stringList(match.value(QLatin1String(l.name)), member(l.name), l.allowEmpty, l.list))
            return e;
    }
    return std::nullopt;
}

// "auto_approve": {"up_to": minor units, "agents": [...], "daily_total": minor units}, in the rule's
// currency (docs/POLICY.md).
std::optional<Error> parseAutoApprove(const QJsonValue &value, const QString &path, PolicyRule *rule)
{
    if (!value.isObject())
        return Error{path, QStringLiteral("must be an object with up_to, agents and daily_total"), 0};
    const QJsonObject object = value.toObject();
    if (auto e = unknownMember(object, path, {QStringLiteral("up_to"), QStringLiteral("agents"),
                                              QStringLiteral("daily_total")}))
        return e;
    if (rule->currency.isEmpty())
        return Error{path, QStringLiteral("needs match.currency (its amounts are minor units of one currency)"), 0};
    PolicyRule::AutoApprove autoApprove;
    const auto upTo = integerIn(object.value(QLatin1String("up_to")), 1, std::numeric_limits<qint64>::max());
    if (!upTo)
        return Error{path + u".up_to", QStringLiteral("is required: a positive integer amount in minor units"), 0};
    autoApprove.upTo = *upTo;
    if (!object.contains(QLatin1String("agents")))
        return Error{path + u".agents", QStringLiteral("is required: the agents whose proposals the policy may approve"), 0};
    if (auto e = stringList(object.value(QLatin1String("agents")), path + u".agents", false, &autoApprove.agents))
        return e;
    const QString approver = Approval::policyApprover();
    if (autoApprove.agents.contains(approver))
        return Error{path + u".agents", QStringLiteral("cannot name \"%1\", the policy's own approver name").arg(approver), 0};
    const auto daily = integerIn(object.value(QLatin1String("daily_total")), 1, std::numeric_limits<qint64>::max());
    if (!daily)
        return Error{path + u".daily_total", QStringLiteral("is required: a positive integer amount in minor units"), 0};
    if (*daily < autoApprove.upTo)
        return Error{path + u".daily_total", QStringLiteral("must be at least up_to"), 0};
    autoApprove.dailyTotal = *daily;
    rule->autoApprove = autoApprove;
    return std::nullopt;
}

std::optional<Error> parseRule(const QJsonValue &value, const QString &path, PolicyRule *rule)
{
    if (!value.isObject())
        return Error{path, QStringLiteral("must be an object"), 0};
    const QJsonObject object = value.toObject();
    if (auto e = unknownMember(object, path, {QStringLiteral("id"), QStringLiteral("description"),
                                              QStringLiteral("match"), QStringLiteral("require_approvals"),
                                              QStringLiteral("auto_approve"), QStringLiteral("approval_expires_after")}))
        return e;
    static const QRegularExpression idPattern(QStringLiteral("^[a-z0-9_-]{1,64}$"));
    const QJsonValue id = object.value(QLatin1String("id"));
    if (!id.isString() || !idPattern.match(id.toString()).hasMatch())
        return Error{path + u".id", QStringLiteral("is required: 1 to 64 of a-z, 0-9, \"_\" and \"-\""), 0};
    rule->id = id.toString();
    if (object.contains(QLatin1String("description"))) {
        const QJsonValue d = object.value(QLatin1String("description"));
        if (!d.isString() || d.toString().size() > 1000 || !d.toString().isValidUtf16())
            return Error{path + u".description", QStringLiteral("must be a string of at most 1000 characters"), 0};
        rule->description = d.toString();
    }
    if (object.contains(QLatin1String("match"))) {
        if (auto e = parseMatch(object.value(QLatin1String("match")), path + u".match", rule))
            return e;
    }
    if (object.contains(QLatin1String("approval_expires_after"))) {
        const QJsonValue v = object.value(QLatin1String("approval_expires_after"));
        const auto seconds = v.isString() ? PolicyRule::durationFromText(v.toString()) : std::nullopt;
        if (!seconds)
            return Error{path + u".approval_expires_after",
                         QStringLiteral("must be a duration from 1s to 90d: a whole number and one of s, m, h, d"
                                        " (\"90s\", \"30m\", \"4h\", \"2d\")"), 0};
        rule->approvalExpiresAfterSeconds = *seconds;
    }
    if (object.contains(QLatin1String("auto_approve"))) {
        if (auto e = parseAutoApprove(object.value(QLatin1String("auto_approve")), path + u".auto_approve", rule))
            return e;
    }
    // auto_approve and approval_expires_after are outcomes too; what they leave to humans needs
    // one approver unless require_approvals says more.
    if (!object.contains(QLatin1String("require_approvals"))) {
        if (rule->autoApprove || rule->approvalExpiresAfterSeconds)
            return std::nullopt;
        return Error{path, QStringLiteral("needs an outcome: require_approvals, auto_approve or approval_expires_after"), 0};
    }
    const auto n = integerIn(object.value(QLatin1String("require_approvals")), 1, Policy::kMaxApprovals);
    if (!n)
        return Error{path + u".require_approvals",
                     QStringLiteral("must be an integer from 1 to %1").arg(Policy::kMaxApprovals), 0};
    rule->requireApprovals = int(*n);
    return std::nullopt;
}

} // namespace

QString PolicyParser::Error::toString() const
{
    if (line > 0)
        return QStringLiteral("line %1: %2").arg(line).arg(message);
    return field.isEmpty() ? message : QStringLiteral("%1: %2").arg(field, message);
}

std::variant<Policy, PolicyParser::Error> PolicyParser::parse(const QJsonObject &document)
{
    if (auto e = unknownMember(document, QString(), {QStringLiteral("description"), QStringLiteral("rules")}))
        return *e;
    if (document.contains(QLatin1String("description")) && !document.value(QLatin1String("description")).isString())
        return Error{QStringLiteral("description"), QStringLiteral("must be a string"), 0};
    const QJsonValue rules = document.value(QLatin1String("rules"));
    if (!rules.isArray())
        return Error{QStringLiteral("rules"), QStringLiteral("is required: an array of rules (it may be empty)"), 0};
    const QJsonArray array = rules.toArray();
    if (array.size() > Policy::kMaxRules)
        return Error{QStringLiteral("rules"), QStringLiteral("has more than %1 rules").arg(Policy::kMaxRules), 0};
    Policy policy;
    QSet<QString> ids;
    for (qsizetype i = 0; i < array.size(); ++i) {
        const QString path = QStringLiteral("rules[%1]").arg(i);
        PolicyRule rule;
        if (auto e = parseRule(array.at(i), path, &rule))
            return *e;
        if (ids.contains(rule.id))
            return Error{path + u".id", QStringLiteral("repeats the rule id \"%1\"").arg(rule.id), 0};
        ids.insert(rule.id);
        policy.rules.append(rule);
    }
    return policy;
}

} // namespace cs
