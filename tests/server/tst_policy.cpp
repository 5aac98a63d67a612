// The approval policy on its own (server/policy, docs/POLICY.md): the matcher as a table of rules ×
// amounts × agents × currencies × reasons, the strict parser (every refusal names its member or
// line), and the shipped example file.

#include "server/api/policyservice.h"
#include "server/policy/policy.h"
#include "server/policy/policyparser.h"

#include <QFile>
#include <QJsonDocument>
#include <QTest>

using namespace cs;

namespace {

Policy parsed(const QByteArray &text)
{
    auto result = PolicyService::parse(text);
    if (const auto *error = std::get_if<PolicyParser::Error>(&result))
        qFatal("the test's policy does not parse: %s", qPrintable(error->toString()));
    return std::get<Policy>(result);
}

// The policy the matcher table runs against (first match wins).
const QByteArray kTable = R"({"rules": [
  {"id": "usd-huge",  "match": {"currency": "usd", "amount_above": 500000}, "require_approvals": 3},
  {"id": "usd-large", "match": {"currency": "usd", "amount_above": 50000, "amount_up_to": 500000}, "require_approvals": 2},
  {"id": "jpy-large", "match": {"currency": "jpy", "amount_above": 50000}, "require_approvals": 2},
  {"id": "fraud",     "match": {"reasons": ["fraudulent"]}, "require_approvals": 2},
  {"id": "no-reason", "match": {"reasons": [""], "agents": ["agent-9"]}, "require_approvals": 4},
  {"id": "trusted",   "match": {"agents": ["returns-agent", "agent-8"], "kinds": ["refund"]}, "require_approvals": 1},
  {"id": "auto",      "match": {"currency": "gbp"}, "auto_approve": {"up_to": 100, "agents": ["agent-8"], "daily_total": 500}},
  {"id": "cad-expiring", "match": {"currency": "cad"}, "require_approvals": 2, "approval_expires_after": "90m"}
]})";

ActionRecord action(qint64 amount, const QString &currency, const QString &agent, const QString &reason)
{
    ActionRecord a;
    a.amount = amount;
    a.currency = currency;
    a.requestedBy = agent;
    a.reason = reason;
    return a;
}

} // namespace

class TestPolicy : public QObject
{
    Q_OBJECT
private slots:
    void matcher_data();
    void matcher();
    void noPolicyIsOneApprover();
    void autoApprovable_data();
    void autoApprovable();
    void refusals_data();
    void refusals();
    void expiryDurations_data();
    void expiryDurations();
    void expiryIsAnOutcome();
    void exampleFileParses();
    void roundTripsThroughJson();
};

void TestPolicy::matcher_data()
{
    QTest::addColumn<qint64>("amount");
    QTest::addColumn<QString>("currency");
    QTest::addColumn<QString>("agent");
    QTest::addColumn<QString>("reason");
    QTest::addColumn<QString>("rule");
    QTest::addColumn<int>("approvals");

    const QString customer = QStringLiteral("requested_by_customer");
    const QString a7 = QStringLiteral("agent-7");
    // Amount bounds: amount_above is exclusive, amount_up_to inclusive.
    QTest::newRow("usd 500.00 is not above 500.00") << qint64(50000) << "usd" << a7 << customer << "" << 1;
    QTest::newRow("usd 500.01 is above 500.00") << qint64(50001) << "usd" << a7 << customer << "usd-large" << 2;
    QTest::newRow("usd 5000.00 is up to 5000.00") << qint64(500000) << "usd" << a7 << customer << "usd-large" << 2;
    QTest::newRow("usd 5000.01: the huge rule, listed first") << qint64(500001) << "usd" << a7 << customer << "usd-huge" << 3;
    // Currency: the same minor units in another currency are another amount.
    QTest::newRow("eur 5000.01 matches no usd rule") << qint64(500001) << "eur" << a7 << customer << "" << 1;
    QTest::newRow("jpy 50001 yen") << qint64(50001) << "jpy" << a7 << customer << "jpy-large" << 2;
    QTest::newRow("jpy 50000 yen") << qint64(50000) << "jpy" << a7 << customer << "" << 1;
    // Reasons and agents; first match wins over a later, more lenient rule.
    QTest::newRow("fraudulent, small") << qint64(100) << "usd" << a7 << "fraudulent" << "fraud" << 2;
    QTest::newRow("fraudulent by a trusted agent: fraud comes first") << qint64(100) << "usd" << "agent-8" << "fraudulent"
                                                                      << "fraud" << 2;
    QTest::newRow("trusted agent, small") << qint64(100) << "usd" << "agent-8" << customer << "trusted" << 1;
    QTest::newRow("trusted agent, large: the amount rule first") << qint64(60000) << "usd" << "returns-agent" << customer
                                                                 << "usd-large" << 2;
    QTest::newRow("no reason, agent-9") << qint64(100) << "usd" << "agent-9" << "" << "no-reason" << 4;
    QTest::newRow("a reason, agent-9") << qint64(100) << "usd" << "agent-9" << customer << "" << 1;
    QTest::newRow("no reason, another agent") << qint64(100) << "usd" << a7 << "" << "" << 1;
    // The one rule with an approval expiry (checked in matcher()).
    QTest::newRow("cad: dual control whose approvals expire") << qint64(1) << "cad" << a7 << customer << "cad-expiring" << 2;
}

void TestPolicy::matcher()
{
    QFETCH(qint64, amount);
    QFETCH(QString, currency);
    QFETCH(QString, agent);
    QFETCH(QString, reason);
    QFETCH(QString, rule);
    QFETCH(int, approvals);
    Policy policy = parsed(kTable);
    policy.version = 7;
    const Policy::Requirement r = policy.requirementFor(action(amount, currency, agent, reason));
    QCOMPARE(r.ruleId, rule);
    QCOMPARE(r.approvals, approvals);
    QCOMPARE(r.policyVersion, 7);
    QCOMPARE(r.expiresAfterSeconds, rule == u"cad-expiring" ? std::optional<qint64>(90 * 60) : std::nullopt);
}

void TestPolicy::noPolicyIsOneApprover()
{
    const Policy empty = parsed(R"({"rules": []})");
    const Policy::Requirement r = empty.requirementFor(action(99999999, QStringLiteral("usd"), QStringLiteral("a"), QString()));
    QCOMPARE(r, Policy::Requirement());
    QCOMPARE(r.approvals, 1);
}

// Which actions a rule's auto_approve covers (the daily total is the ledger's: tst_policy_auto).
void TestPolicy::autoApprovable_data()
{
    QTest::addColumn<qint64>("amount");
    QTest::addColumn<QString>("currency");
    QTest::addColumn<QString>("agent");
    QTest::addColumn<QString>("rule");
    QTest::addColumn<bool>("autoApprovable");
    QTest::addColumn<int>("approvals"); // what it needs when the policy does not approve it

    QTest::newRow("a named agent at up_to") << qint64(2500) << "usd" << "returns-agent" << "usd-auto" << true << 1;
    QTest::newRow("the other named agent") << qint64(1) << "usd" << "agent-8" << "usd-auto" << true << 1;
    QTest::newRow("one cent above up_to") << qint64(2501) << "usd" << "returns-agent" << "usd-auto" << false << 1;
    QTest::newRow("an agent not named") << qint64(100) << "usd" << "agent-7" << "usd-auto" << false << 1;
    QTest::newRow("above the rule's range: the next rule") << qint64(10001) << "usd" << "returns-agent" << "usd-rest"
                                                          << false << 2;
    QTest::newRow("another currency: its own rule") << qint64(100) << "eur" << "returns-agent" << "eur-auto" << true << 2;
    QTest::newRow("eur above its up_to: two approvers") << qint64(1001) << "eur" << "returns-agent" << "eur-auto" << false
                                                        << 2;
    QTest::newRow("jpy: no rule") << qint64(100) << "jpy" << "returns-agent" << "" << false << 1;
}

void TestPolicy::autoApprovable()
{
    QFETCH(qint64, amount);
    QFETCH(QString, currency);
    QFETCH(QString, agent);
    QFETCH(QString, rule);
    QFETCH(bool, autoApprovable);
    QFETCH(int, approvals);
    const Policy policy = parsed(R"({"rules": [
      {"id": "usd-auto", "match": {"currency": "usd", "amount_up_to": 10000},
       "auto_approve": {"up_to": 2500, "agents": ["returns-agent", "agent-8"], "daily_total": 10000}},
      {"id": "usd-rest", "match": {"currency": "usd"}, "require_approvals": 2},
      {"id": "eur-auto", "match": {"currency": "eur"}, "require_approvals": 2,
       "auto_approve": {"up_to": 1000, "agents": ["returns-agent"], "daily_total": 1000}}
    ]})");
    ActionRecord a = action(amount, currency, agent, QString());
    a.kind = QStringLiteral("refund");
    const Policy::Requirement r = policy.requirementFor(a);
    QCOMPARE(r.ruleId, rule);
    QCOMPARE(r.autoApprovable, autoApprovable);
    QCOMPARE(r.approvals, approvals);
    QCOMPARE(r.autoApprove.has_value(), rule.endsWith(QLatin1String("-auto")));
    if (r.autoApprove)
        QCOMPARE(r.currency, currency);
}

void TestPolicy::refusals_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("says"); // Error::toString() starts with this

    QTest::newRow("not JSON, line named") << QByteArray("{\n\"rules\": [\n  {\"id\": \"a\",,}\n]}") << "line 3:";
    QTest::newRow("a duplicate member, line named")
        << QByteArray("{\"rules\": [\n {\"id\": \"a\", \"require_approvals\": 2,\n  \"require_approvals\": 1}]}")
        << "line 3: rules[0].require_approvals: a member given twice";
    QTest::newRow("rules missing") << QByteArray("{}") << "rules: is required";
    QTest::newRow("an unknown top-level member") << QByteArray(R"({"rules": [], "rulez": []})") << "rulez: is not a known member";
    QTest::newRow("an unknown rule member")
        << QByteArray(R"({"rules": [{"id": "a", "require_approvals": 2, "approvals": 2}]})")
        << "rules[0].approvals: is not a known member";
    // Approval expiry (docs/POLICY.md): a duration text, 1 s to 90 d.
    const auto expiring = [](const char *value) -> QByteArray {
        return QByteArray(R"({"rules": [{"id": "a", "require_approvals": 2, "approval_expires_after": )") + value + "}]}";
    };
    const char *expirySays = "rules[0].approval_expires_after: must be a duration from 1s to 90d";
    QTest::newRow("expiry a number of seconds") << expiring("3600") << expirySays;
    QTest::newRow("expiry without a unit") << expiring(R"("3600")") << expirySays;
    QTest::newRow("expiry of 0s") << expiring(R"("0s")") << expirySays;
    QTest::newRow("expiry negative") << expiring(R"("-5m")") << expirySays;
    QTest::newRow("expiry with a fraction") << expiring(R"("1.5h")") << expirySays;
    QTest::newRow("expiry in weeks") << expiring(R"("2w")") << expirySays;
    QTest::newRow("expiry upper-case unit") << expiring(R"("30M")") << expirySays;
    QTest::newRow("expiry with a space") << expiring(R"("30 m")") << expirySays;
    QTest::newRow("expiry of 91 days") << expiring(R"("91d")") << expirySays;
    QTest::newRow("expiry of 90 days and a second") << expiring(R"("7776001s")") << expirySays;
    QTest::newRow("expiry null") << expiring("null") << expirySays;
    // Auto-approval (docs/POLICY.md): every member required, amounts in the rule's currency.
    const auto autoRule = [](const char *autoApprove, const char *match = R"({"currency": "usd"})") -> QByteArray {
        return QByteArray(R"({"rules": [{"id": "a", "match": )") + match + R"(, "auto_approve": )" + autoApprove + "}]}";
    };
    QTest::newRow("auto_approve without a currency")
        << autoRule(R"({"up_to": 100, "agents": ["x"], "daily_total": 1000})", "{}")
        << "rules[0].auto_approve: needs match.currency";
    QTest::newRow("auto_approve not an object") << autoRule("true") << "rules[0].auto_approve: must be an object";
    QTest::newRow("auto_approve with an unknown member")
        << autoRule(R"({"up_to": 100, "agents": ["x"], "daily_total": 1000, "weekly_total": 1})")
        << "rules[0].auto_approve.weekly_total: is not a known member";
    QTest::newRow("auto_approve without up_to") << autoRule(R"({"agents": ["x"], "daily_total": 1000})")
                                                << "rules[0].auto_approve.up_to: is required";
    QTest::newRow("auto_approve up_to 0") << autoRule(R"({"up_to": 0, "agents": ["x"], "daily_total": 1000})")
                                          << "rules[0].auto_approve.up_to:";
    QTest::newRow("auto_approve up_to a fraction") << autoRule(R"({"up_to": 10.5, "agents": ["x"], "daily_total": 1000})")
                                                   << "rules[0].auto_approve.up_to:";
    QTest::newRow("auto_approve without agents") << autoRule(R"({"up_to": 100, "daily_total": 1000})")
                                                 << "rules[0].auto_approve.agents: is required";
    QTest::newRow("auto_approve with no agent") << autoRule(R"({"up_to": 100, "agents": [], "daily_total": 1000})")
                                                << "rules[0].auto_approve.agents: must be a non-empty array";
    QTest::newRow("auto_approve naming the policy itself")
        << autoRule(R"({"up_to": 100, "agents": ["x", "policy"], "daily_total": 1000})")
        << "rules[0].auto_approve.agents: cannot name \"policy\"";
    QTest::newRow("auto_approve without daily_total") << autoRule(R"({"up_to": 100, "agents": ["x"]})")
                                                      << "rules[0].auto_approve.daily_total: is required";
    QTest::newRow("auto_approve daily_total below up_to")
        << autoRule(R"({"up_to": 100, "agents": ["x"], "daily_total": 99})")
        << "rules[0].auto_approve.daily_total: must be at least up_to";
    QTest::newRow("auto_approve with require_approvals 0")
        << QByteArray(R"({"rules": [{"id": "a", "match": {"currency": "usd"}, "require_approvals": 0,)"
                      R"( "auto_approve": {"up_to": 100, "agents": ["x"], "daily_total": 100}}]})")
        << "rules[0].require_approvals:";
    QTest::newRow("an unknown match member")
        << QByteArray(R"({"rules": [{"id": "a", "match": {"amount_over": 5}, "require_approvals": 2}]})")
        << "rules[0].match.amount_over: is not a known member";
    QTest::newRow("no outcome") << QByteArray(R"({"rules": [{"id": "a"}]})") << "rules[0]: needs an outcome";
    QTest::newRow("require_approvals a string")
        << QByteArray(R"({"rules": [{"id": "a", "require_approvals": "2"}]})") << "rules[0].require_approvals: must be an integer";
    QTest::newRow("require_approvals 0") << QByteArray(R"({"rules": [{"id": "a", "require_approvals": 0}]})")
                                         << "rules[0].require_approvals: must be an integer from 1 to 10";
    QTest::newRow("require_approvals 11") << QByteArray(R"({"rules": [{"id": "a", "require_approvals": 11}]})")
                                          << "rules[0].require_approvals:";
    QTest::newRow("require_approvals 2.0") << QByteArray(R"({"rules": [{"id": "a", "require_approvals": 2.0}]})")
                                           << "rules[0].require_approvals:";
    QTest::newRow("an amount with a fraction")
        << QByteArray(R"({"rules": [{"id": "a", "match": {"currency": "usd", "amount_above": 500.5}, "require_approvals": 2}]})")
        << "rules[0].match.amount_above: must be a non-negative integer";
    QTest::newRow("a negative amount")
        << QByteArray(R"({"rules": [{"id": "a", "match": {"currency": "usd", "amount_up_to": -1}, "require_approvals": 2}]})")
        << "rules[0].match.amount_up_to:";
    QTest::newRow("an amount without a currency")
        << QByteArray(R"({"rules": [{"id": "a", "match": {"amount_above": 500}, "require_approvals": 2}]})")
        << "rules[0].match.amount_above: needs a currency";
    QTest::newRow("an empty range")
        << QByteArray(R"({"rules": [{"id": "a", "match": {"currency": "usd", "amount_above": 500, "amount_up_to": 500}, "require_approvals": 2}]})")
        << "rules[0].match.amount_up_to: must be greater";
    QTest::newRow("an unknown currency")
        << QByteArray(R"({"rules": [{"id": "a", "match": {"currency": "usx"}, "require_approvals": 2}]})")
        << "rules[0].match.currency:";
    QTest::newRow("an upper-case currency")
        << QByteArray(R"({"rules": [{"id": "a", "match": {"currency": "USD"}, "require_approvals": 2}]})")
        << "rules[0].match.currency:";
    QTest::newRow("agents not an array")
        << QByteArray(R"({"rules": [{"id": "a", "match": {"agents": "agent-7"}, "require_approvals": 2}]})")
        << "rules[0].match.agents: must be a non-empty array";
    QTest::newRow("agents empty") << QByteArray(R"({"rules": [{"id": "a", "match": {"agents": []}, "require_approvals": 2}]})")
                                  << "rules[0].match.agents:";
    QTest::newRow("an agent a number")
        << QByteArray(R"({"rules": [{"id": "a", "match": {"agents": ["x", 7]}, "require_approvals": 2}]})")
        << "rules[0].match.agents[1]: must be a string";
    QTest::newRow("an agent twice")
        << QByteArray(R"({"rules": [{"id": "a", "match": {"agents": ["x", "x"]}, "require_approvals": 2}]})")
        << "rules[0].match.agents[1]: repeats";
    QTest::newRow("a rule id twice")
        << QByteArray(R"({"rules": [{"id": "a", "require_approvals": 2}, {"id": "a", "require_approvals": 1}]})")
        << "rules[1].id: repeats the rule id";
    QTest::newRow("a rule without id") << QByteArray(R"({"rules": [{"require_approvals": 2}]})") << "rules[0].id: is required";
    QTest::newRow("a rule id with spaces")
        << QByteArray(R"({"rules": [{"id": "big one", "require_approvals": 2}]})") << "rules[0].id:";
    QTest::newRow("a rule not an object") << QByteArray(R"({"rules": [3]})") << "rules[0]: must be an object";
    QTest::newRow("not an object") << QByteArray("[]") << "line 1:";
}

void TestPolicy::refusals()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, says);
    const auto result = PolicyService::parse(text);
    const auto *error = std::get_if<PolicyParser::Error>(&result);
    QVERIFY2(error, "the policy was accepted");
    QVERIFY2(error->toString().startsWith(says), qPrintable(error->toString()));
}

void TestPolicy::expiryDurations_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<qint64>("seconds");
    QTest::addColumn<QString>("shown"); // what GET /policy shows: the largest unit that divides it
    QTest::newRow("1s") << "1s" << qint64(1) << "1s";
    QTest::newRow("90s") << "90s" << qint64(90) << "90s";
    QTest::newRow("120s shows as 2m") << "120s" << qint64(120) << "2m";
    QTest::newRow("30m") << "30m" << qint64(1800) << "30m";
    QTest::newRow("90m") << "90m" << qint64(5400) << "90m";
    QTest::newRow("4h") << "4h" << qint64(14400) << "4h";
    QTest::newRow("48h shows as 2d") << "48h" << qint64(172800) << "2d";
    QTest::newRow("90d, the most") << "90d" << qint64(7776000) << "90d";
    QTest::newRow("7776000s") << "7776000s" << qint64(7776000) << "90d";
}

void TestPolicy::expiryDurations()
{
    QFETCH(QString, text);
    QFETCH(qint64, seconds);
    QFETCH(QString, shown);
    QCOMPARE(PolicyRule::durationFromText(text), std::optional<qint64>(seconds));
    QCOMPARE(PolicyRule::durationToText(seconds), shown);
    const Policy policy = parsed(QStringLiteral(R"({"rules": [{"id": "a", "require_approvals": 2,)"
                                                R"( "approval_expires_after": "%1"}]})").arg(text).toUtf8());
    QCOMPARE(policy.rules.constFirst().approvalExpiresAfterSeconds, std::optional<qint64>(seconds));
    QCOMPARE(policy.rules.constFirst().toJson().value(QStringLiteral("approval_expires_after")).toString(), shown);
    const Policy::Requirement r = policy.requirementFor(action(100, QStringLiteral("usd"), QStringLiteral("x"), QString()));
    QCOMPARE(r.expiresAfterSeconds, std::optional<qint64>(seconds));
    QCOMPARE(r.approvals, 2);
}

void TestPolicy::expiryIsAnOutcome()
{
    // A rule with only an expiry needs one approver whose approval expires; a rule without one
    // leaves approvals unexpiring, and a rule that does not match says nothing of expiry.
    const Policy policy = parsed(R"({"rules": [
      {"id": "eur-expiring", "match": {"currency": "eur"}, "approval_expires_after": "4h"},
      {"id": "usd-dual", "match": {"currency": "usd", "amount_above": 10000}, "require_approvals": 2,
       "approval_expires_after": "30m"},
      {"id": "usd", "match": {"currency": "usd"}, "require_approvals": 1}
    ]})");
    const QString agent = QStringLiteral("agent-7");
    const Policy::Requirement eur = policy.requirementFor(action(5, QStringLiteral("eur"), agent, QString()));
    QCOMPARE(eur.ruleId, QStringLiteral("eur-expiring"));
    QCOMPARE(eur.approvals, 1);
    QCOMPARE(eur.expiresAfterSeconds, std::optional<qint64>(4 * 3600));
    const Policy::Requirement big = policy.requirementFor(action(10001, QStringLiteral("usd"), agent, QString()));
    QCOMPARE(big.approvals, 2);
    QCOMPARE(big.expiresAfterSeconds, std::optional<qint64>(1800));
    const Policy::Requirement small = policy.requirementFor(action(10000, QStringLiteral("usd"), agent, QString()));
    QCOMPARE(small.ruleId, QStringLiteral("usd"));
    QCOMPARE(small.expiresAfterSeconds, std::nullopt);
    QCOMPARE(policy.requirementFor(action(10000, QStringLiteral("chf"), agent, QString())).expiresAfterSeconds,
             std::nullopt);
}

void TestPolicy::exampleFileParses()
{
    QFile file(QStringLiteral(COUNTERSIGN_SOURCE_DIR "/resources/policy.example.json"));
    QVERIFY(file.open(QIODevice::ReadOnly));
    const Policy policy = parsed(file.readAll());
    QCOMPARE(policy.rules.size(), 5);
    QCOMPARE(policy.requirementFor(action(50001, QStringLiteral("usd"), QStringLiteral("a"), QString())).approvals, 2);
    QCOMPARE(policy.requirementFor(action(500001, QStringLiteral("usd"), QStringLiteral("a"), QString())).approvals, 3);
    ActionRecord small = action(2500, QStringLiteral("usd"), QStringLiteral("returns-agent"), QStringLiteral("requested_by_customer"));
    small.kind = QStringLiteral("refund");
    QCOMPARE(policy.requirementFor(small).ruleId, QStringLiteral("trusted-agent-small"));
    QVERIFY(policy.requirementFor(small).autoApprovable);
    small.requestedBy = QStringLiteral("agent-7");
    QCOMPARE(policy.requirementFor(small).ruleId, QStringLiteral("trusted-agent-small"));
    QVERIFY(!policy.requirementFor(small).autoApprovable);
    QCOMPARE(policy.requirementFor(small).approvals, 1);
}

void TestPolicy::roundTripsThroughJson()
{
    // GET /api/v1/policy shows the rules as the file states them: parsing what it shows gives the
    // same rules.
    const Policy policy = parsed(kTable);
    const QJsonObject shown = policy.toJson();
    const QByteArray again = QJsonDocument(QJsonObject{{QStringLiteral("rules"), shown.value(QStringLiteral("rules"))}}).toJson();
    QCOMPARE(parsed(again).rules, policy.rules);
}

QTEST_APPLESS_MAIN(TestPolicy)
#include "tst_policy.moc"
