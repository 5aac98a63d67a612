// The approval policy through the API (docs/POLICY.md), countersignd a real process on 127.0.0.1
// started with `serve --policy FILE`: GET /api/v1/policy for every role, dual control over HTTP
// (202 with "1 of 2", already_signed, four_eyes, the quorum's 200 with its signers, one reject
// rejects), POST /api/v1/policy/reload (a bad file keeps the version in force and names the
// member or line; admin only), SIGHUP does the same, a bad file at start stops the start,
// auto-approval (201 with the policy's approval, a resubmission, the daily total), and approval
// expiry (expires_at, permission to approve again once past it, the expiry recorded by the next
// approval, a fresh key, a stale If-Match refused).
#include "tests/api/apitestsupport.h"

#include <QCryptographicHash>
#include <QFile>
#include <QJsonArray>
#include <QTest>

#include <csignal>

namespace {

const QByteArray kPolicy = R"({
  "description": "two approvers above $500.00",
  "rules": [
    {"id": "usd-large", "match": {"currency": "usd", "amount_above": 50000}, "require_approvals": 2}
  ]
})";

QStringList approversOf(const QJsonArray &given)
{
    QStringList names;
    for (const QJsonValue &v : given)
        names << v.toObject().value(QStringLiteral("approver")).toString();
    return names;
}

} // namespace

class TestApiPolicy : public QObject
{
    Q_OBJECT

private:
    ApiHarness m_harness;
    std::unique_ptr<ApiClient> m_client;
    QTemporaryDir m_dir;
    QString m_policyPath;
    int m_serial = 0;

    QString token(const QString &user) const { return m_harness.token(user); }
    bool writePolicy(const QByteArray &text)
    {
        QFile file(m_policyPath);
        return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(text) == text.size();
    }
    QByteArray key() { return "policy-key-" + QByteArray::number(++m_serial); }
    ApiReply approve(const QString &user, const QString &id, const QByteArray &etag)
    {
        return m_client->approve(token(user), id, etag, key());
    }
    ApiReply reload(const QString &user)
    {
        return m_client->post(QStringLiteral("/policy/reload"), token(user), QJsonObject());
    }
    // Each proposal refunds a charge and an order of its own: two on one charge are possible
    // duplicates (a note to approve, never auto-approved: tst_api_duplicates), not what this is about.
    static QJsonObject distinctProposal(const QString &reference, qint64 amount)
    {
        QJsonObject proposal = ApiClient::proposal(reference, amount, QStringLiteral("ch_") + QString(reference).remove(u'-'));
        proposal.insert(QStringLiteral("business_reference"), QString(QStringLiteral("order-") + reference));
        return proposal;
    }
    ApiReply propose(qint64 amount)
    {
        return m_client->propose(token(QStringLiteral("agent-7")),
                                 distinctProposal(QStringLiteral("policy-%1").arg(++m_serial), amount));
    }

private slots:
    void initTestCase();
    void cleanupTestCase();
    void everyRoleReadsThePolicy();
    void belowThresholdOneApproval();
    void dualControlOverHttp();
    void oneRejectRejects();
    void awaitingDecisionOverHttp();
    void reloadKeepsTheVersionInForceOnABadFile();
    void badFileStopsTheStart();
    void sighupReloads();
    void autoApprovalOverHttp();
    void approvalExpiryOverHttp();
};

void TestApiPolicy::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_policyPath = m_dir.filePath(QStringLiteral("policy.json"));
    QVERIFY(writePolicy(kPolicy));
    ApiHarness::Options options;
    options.extraServeArguments = {QStringLiteral("--policy"), m_policyPath};
    QString error;
    QVERIFY2(m_harness.start(options, &error), qPrintable(error));
    m_client = std::make_unique<ApiClient>(m_harness.api());
}

void TestApiPolicy::cleanupTestCase()
{
    m_client.reset();
    m_harness.stop();
}

void TestApiPolicy::everyRoleReadsThePolicy()
{
    for (const char *user : {"agent-7", "ana", "sam", "aud", "root"}) {
        const ApiReply reply = m_client->get(QStringLiteral("/policy"), token(QLatin1String(user)));
        QCOMPARE(reply.status, 200);
        QCOMPARE(reply.json.value(QStringLiteral("version")).toInt(), 1);
        QCOMPARE(reply.json.value(QStringLiteral("sha256")).toString(),
                 QString::fromLatin1(QCryptographicHash::hash(kPolicy, QCryptographicHash::Sha256).toHex()));
        QCOMPARE(reply.json.value(QStringLiteral("source")).toString(), m_policyPath);
        QCOMPARE(reply.json.value(QStringLiteral("loaded_by")).toString(), QStringLiteral("startup"));
        const QJsonArray rules = reply.json.value(QStringLiteral("rules")).toArray();
        QCOMPARE(rules.size(), 1);
        QCOMPARE(rules.first().toObject().value(QStringLiteral("require_approvals")).toInt(), 2);
        QCOMPARE(rules.first().toObject().value(QStringLiteral("match")).toObject().value(QStringLiteral("amount_above")).toInteger(),
                 qint64(50000));
    }
    // Recorded in the ledger: one version, its load audited.
    const auto versions = m_harness.ledger().policies().versions();
    QVERIFY(versions.ok());
    QCOMPARE(versions->size(), 1);
    QCOMPARE(versions->first().text, QString::fromUtf8(kPolicy));
}

void TestApiPolicy::belowThresholdOneApproval()
{
    const ApiReply proposed = propose(50000);
    QCOMPARE(proposed.status, 201);
    const QString id = proposed.json.value(QStringLiteral("id")).toString();
    const ApiReply approved = approve(QStringLiteral("ana"), id, proposed.ifMatch());
    QCOMPARE(approved.status, 200);
    QCOMPARE(approved.json.value(QStringLiteral("approvals_required")).toInt(), 1);
    QCOMPARE(approved.json.value(QStringLiteral("approval")).toObject().value(QStringLiteral("policy_version")).toInt(), 1);
    QVERIFY(!m_harness.ledger().reader().action(id)->idempotencyKey.isEmpty());
}

void TestApiPolicy::dualControlOverHttp()
{
    const ApiReply proposed = propose(60000);
    QCOMPARE(proposed.status, 201);
    const QString id = proposed.json.value(QStringLiteral("id")).toString();

    // The requester never counts.
    const ApiReply own = approve(QStringLiteral("agent-7"), id, proposed.ifMatch());
    QCOMPARE(own.status, 403);

    // 1 of 2: 202, still PENDING, no key.
    const ApiReply first = approve(QStringLiteral("ana"), id, proposed.ifMatch());
    QCOMPARE(first.status, 202);
    QVERIFY(first.json.value(QStringLiteral("approval")).isNull());
    QCOMPARE(first.json.value(QStringLiteral("approvals_required")).toInt(), 2);
    QCOMPARE(approversOf(first.json.value(QStringLiteral("approvals_given")).toArray()), QStringList{QStringLiteral("ana")});
    QCOMPARE(first.json.value(QStringLiteral("approval_rule")).toObject().value(QStringLiteral("rule_id")).toString(),
             QStringLiteral("usd-large"));
    QCOMPARE(first.json.value(QStringLiteral("action")).toObject().value(QStringLiteral("state")).toString(),
             QStringLiteral("PENDING"));
    QVERIFY(m_harness.ledger().reader().action(id)->idempotencyKey.isEmpty());

    // The detail shows the quorum, with who and when.
    const ApiReply detail = m_client->get(QStringLiteral("/actions/") + id, token(QStringLiteral("bob")));
    QCOMPARE(detail.status, 200);
    QCOMPARE(detail.json.value(QStringLiteral("approvals_required")).toInt(), 2);
    const QJsonArray given = detail.json.value(QStringLiteral("approvals_given")).toArray();
    QCOMPARE(approversOf(given), QStringList{QStringLiteral("ana")});
    QVERIFY(!given.first().toObject().value(QStringLiteral("signed_at")).toString().isEmpty());
    QVERIFY(detail.json.value(QStringLiteral("permissions")).toObject().value(QStringLiteral("approve")).toObject()
                .value(QStringLiteral("allowed")).toBool());

    // The list's row says "1 of 2" too (the console's queue marker).
    const ApiReply list = m_client->get(QStringLiteral("/actions?limit=200"), token(QStringLiteral("bob")));
    QCOMPARE(list.status, 200);
    QJsonObject row;
    for (const QJsonValue &v : list.json.value(QStringLiteral("data")).toArray()) {
        if (v.toObject().value(QStringLiteral("id")).toString() == id)
            row = v.toObject();
    }
    QCOMPARE(row.value(QStringLiteral("approvals_required")).toInt(), 2);
    QCOMPARE(approversOf(row.value(QStringLiteral("approvals_given")).toArray()), QStringList{QStringLiteral("ana")});

    // The same approver cannot count twice.
    const ApiReply twice = approve(QStringLiteral("ana"), id, detail.ifMatch());
    QCOMPARE(twice.status, 409);
    QCOMPARE(twice.code(), QStringLiteral("already_signed"));

    // The quorum: the key is minted now, the approval lists both.
    const ApiReply second = approve(QStringLiteral("bob"), id, detail.ifMatch());
    QCOMPARE(second.status, 200);
    const QJsonObject approval = second.json.value(QStringLiteral("approval")).toObject();
    QCOMPARE(approval.value(QStringLiteral("decided_by")).toString(), QStringLiteral("bob"));
    QCOMPARE(approversOf(approval.value(QStringLiteral("signers")).toArray()), (QStringList{QStringLiteral("ana"), QStringLiteral("bob")}));
    QCOMPARE(approval.value(QStringLiteral("rule_id")).toString(), QStringLiteral("usd-large"));
    QCOMPARE(approversOf(second.json.value(QStringLiteral("approvals_given")).toArray()),
             (QStringList{QStringLiteral("ana"), QStringLiteral("bob")}));
    const auto record = m_harness.ledger().reader().action(id);
    QVERIFY(!record->idempotencyKey.isEmpty());
    QCOMPARE(m_harness.ledger().reader().approvals(id)->size(), 1);

    // Approved: nobody adds to it.
    const ApiReply third = approve(QStringLiteral("root"), id, second.ifMatch());
    QCOMPARE(third.status, 409);
    QCOMPARE(third.code(), QStringLiteral("already_approved"));
}

void TestApiPolicy::oneRejectRejects()
{
    const ApiReply proposed = propose(70000);
    const QString id = proposed.json.value(QStringLiteral("id")).toString();
    QCOMPARE(approve(QStringLiteral("ana"), id, proposed.ifMatch()).status, 202);
    const ApiReply rejected = m_client->post(QStringLiteral("/actions/%1/rejections").arg(id), token(QStringLiteral("bob")),
                                             QJsonObject{{QStringLiteral("reason"), QStringLiteral("wrong_amount")}},
                                             {{"If-Match", proposed.ifMatch()}, {"Idempotency-Key", key()}});
    QCOMPARE(rejected.status, 200);
    QCOMPARE(rejected.json.value(QStringLiteral("action")).toObject().value(QStringLiteral("state")).toString(),
             QStringLiteral("REJECTED"));
    const ApiReply late = approve(QStringLiteral("root"), id, rejected.ifMatch());
    QCOMPARE(late.status, 409);
    QCOMPARE(late.code(), QStringLiteral("illegal_state"));
}

// awaiting=decision leaves out the PENDING actions whose approval is complete (queued for the
// executor; this countersignd sends nothing, so they stay PENDING), and counts.queued counts them
// (an agent: its own). A dual-control action with 1 of 2 signatures still awaits a decision.
void TestApiPolicy::awaitingDecisionOverHttp()
{
    const auto list = [&](const QString &user, const QString &query) {
        const QString limit = query.contains(QLatin1String("limit=")) ? QString() : QStringLiteral("&limit=200");
        return m_client->get(QStringLiteral("/actions?state=queue") + limit + query, token(user));
    };
    const auto idsOf = [](const ApiReply &reply) {
        QStringList ids;
        for (const QJsonValue &row : reply.json.value(QStringLiteral("data")).toArray())
            ids << row.toObject().value(QStringLiteral("id")).toString();
        return ids;
    };
    const auto queued = [](const ApiReply &reply) {
        return reply.json.value(QStringLiteral("counts")).toObject().value(QStringLiteral("queued")).toInteger(-1);
    };
    const ApiReply before = list(QStringLiteral("bob"), QString());
    QCOMPARE(before.status, 200);
    const qint64 queuedBefore = queued(before);
    QVERIFY(queuedBefore >= 0);
    QCOMPARE(queued(list(QStringLiteral("agent-8"), QString())), 0); // agent-8 has proposed nothing yet

    // Two below the quorum's threshold and one above it, by agent-8.
    QStringList ids;
    QList<QByteArray> etags;
    for (qint64 amount : {30000, 30000, 60000}) {
        const ApiReply proposed = m_client->propose(
            token(QStringLiteral("agent-8")), distinctProposal(QStringLiteral("awaiting-%1").arg(++m_serial), amount));
        QCOMPARE(proposed.status, 201);
        ids << proposed.json.value(QStringLiteral("id")).toString();
        etags << proposed.ifMatch();
    }
    const QString &open = ids.at(0);
    const QString &approved = ids.at(1);
    const QString &quorum = ids.at(2);
    QCOMPARE(approve(QStringLiteral("ana"), approved, etags.at(1)).status, 200); // the key minted
    QCOMPARE(approve(QStringLiteral("ana"), quorum, etags.at(2)).status, 202);   // 1 of 2

    for (const QString &user : {QStringLiteral("bob"), QStringLiteral("agent-8")}) {
        const ApiReply awaiting = list(user, QStringLiteral("&awaiting=decision"));
        QVERIFY2(awaiting.status == 200, awaiting.body.constData());
        QVERIFY(idsOf(awaiting).contains(open));
        QVERIFY(idsOf(awaiting).contains(quorum));
        QVERIFY(!idsOf(awaiting).contains(approved));
        const ApiReply all = list(user, QString());
        QVERIFY(idsOf(all).contains(approved)); // still in the queue, PENDING
        // Each row says whether it is queued (a row carries no key).
        for (const QJsonValue &row : all.json.value(QStringLiteral("data")).toArray()) {
            const QJsonObject o = row.toObject();
            const QString id = o.value(QStringLiteral("id")).toString();
            if (ids.contains(id))
                QCOMPARE(o.value(QStringLiteral("queued")).toBool(), id == approved);
        }
    }
    QCOMPARE(queued(list(QStringLiteral("bob"), QString())), queuedBefore + 1);
    const ApiReply mine = list(QStringLiteral("agent-8"), QStringLiteral("&awaiting=decision"));
    QCOMPARE(queued(mine), 1);
    QCOMPARE(mine.json.value(QStringLiteral("counts")).toObject().value(QStringLiteral("PENDING")).toInteger(), 3);
    QCOMPARE(idsOf(mine), (QStringList{quorum, open})); // newest first

    // Paged by one, in amount order: the cursor is tied to awaiting=decision.
    QStringList paged;
    QString cursor;
    for (int page = 0; page < 5; ++page) {
        const ApiReply reply = list(QStringLiteral("agent-8"),
                                    QStringLiteral("&awaiting=decision&sort=-amount&limit=1")
                                        + (cursor.isEmpty() ? QString() : QStringLiteral("&cursor=") + cursor));
        QVERIFY2(reply.status == 200, reply.body.constData());
        paged << idsOf(reply);
        cursor = reply.json.value(QStringLiteral("next_cursor")).toString();
        if (page == 0) {
            const ApiReply other = list(QStringLiteral("agent-8"), QStringLiteral("&sort=-amount&limit=1&cursor=") + cursor);
            QCOMPARE(other.status, 400);
        }
        if (cursor.isEmpty())
            break;
    }
    QCOMPARE(paged, (QStringList{quorum, open})); // 600.00 before 300.00 usd

    // The quorum's second approval completes it: queued too.
    const ApiReply detail = m_client->get(QStringLiteral("/actions/") + quorum, token(QStringLiteral("bob")));
    QCOMPARE(approve(QStringLiteral("bob"), quorum, detail.ifMatch()).status, 200);
    QCOMPARE(idsOf(list(QStringLiteral("agent-8"), QStringLiteral("&awaiting=decision"))), QStringList{open});
    QCOMPARE(queued(list(QStringLiteral("agent-8"), QString())), 2);
    QCOMPARE(queued(list(QStringLiteral("bob"), QString())), queuedBefore + 2);

    // Anything but "decision" is refused, naming the parameter.
    const ApiReply refused = list(QStringLiteral("bob"), QStringLiteral("&awaiting=approval"));
    QCOMPARE(refused.status, 400);
    QCOMPARE(refused.code(), QStringLiteral("invalid_parameter"));
}

void TestApiPolicy::reloadKeepsTheVersionInForceOnABadFile()
{
    // Only an admin reloads.
    QCOMPARE(reload(QStringLiteral("ana")).status, 403);

    // An unknown member: 422 naming it; version 1 stays in force.
    QVERIFY(writePolicy(R"({"rules": [{"id": "x", "match": {"amount_over": 5}, "require_approvals": 2}]})"));
    ApiReply bad = reload(QStringLiteral("root"));
    QCOMPARE(bad.status, 422);
    QCOMPARE(bad.code(), QStringLiteral("invalid_policy"));
    QCOMPARE(bad.json.value(QStringLiteral("version_in_force")).toInt(), 1);
    QCOMPARE(bad.json.value(QStringLiteral("errors")).toArray().first().toObject().value(QStringLiteral("field")).toString(),
             QStringLiteral("rules[0].match.amount_over"));
    // A syntax error: the line named.
    QVERIFY(writePolicy("{\n  \"rules\": [\n    {\"id\": \"x\" \"require_approvals\": 2}\n  ]\n}"));
    bad = reload(QStringLiteral("root"));
    QCOMPARE(bad.status, 422);
    QCOMPARE(bad.json.value(QStringLiteral("line")).toInt(), 3);
    QVERIFY2(bad.json.value(QStringLiteral("detail")).toString().startsWith(QStringLiteral("line 3:")), bad.body.constData());
    QCOMPARE(m_client->get(QStringLiteral("/policy"), token(QStringLiteral("aud"))).json.value(QStringLiteral("version")).toInt(), 1);
    QCOMPARE(m_harness.ledger().policies().versions()->size(), 1);

    // A good file: version 2 in force at once, kept beside version 1.
    const QByteArray three = R"({"rules": [{"id": "usd-large", "match": {"currency": "usd", "amount_above": 50000}, "require_approvals": 3}]})";
    QVERIFY(writePolicy(three));
    const ApiReply good = reload(QStringLiteral("root"));
    QCOMPARE(good.status, 200);
    QCOMPARE(good.json.value(QStringLiteral("version")).toInt(), 2);
    QCOMPARE(good.json.value(QStringLiteral("loaded_by")).toString(), QStringLiteral("root"));
    QCOMPARE(m_client->get(QStringLiteral("/policy"), token(QStringLiteral("agent-7"))).json.value(QStringLiteral("version")).toInt(), 2);
    QCOMPARE(m_harness.ledger().policies().versions()->size(), 2);
    const ApiReply proposed = propose(60000);
    const ApiReply signed_ = approve(QStringLiteral("ana"), proposed.json.value(QStringLiteral("id")).toString(), proposed.ifMatch());
    QCOMPARE(signed_.status, 202);
    QCOMPARE(signed_.json.value(QStringLiteral("approvals_required")).toInt(), 3);
    // Reloading the same file again is the same version.
    QCOMPARE(reload(QStringLiteral("root")).json.value(QStringLiteral("version")).toInt(), 2);
    QCOMPARE(m_harness.ledger().policies().versions()->size(), 2);
    int loads = 0;
    const auto log = m_harness.ledger().reader().auditLog();
    for (const cs::AuditEvent &e : *log)
        loads += e.event == u"policy_loaded" ? 1 : 0;
    QCOMPARE(loads, 3); // startup, version 2, version 2 again
    QVERIFY(writePolicy(kPolicy));
    QCOMPARE(reload(QStringLiteral("root")).json.value(QStringLiteral("version")).toInt(), 3);
}

void TestApiPolicy::badFileStopsTheStart()
{
    const QString bad = m_dir.filePath(QStringLiteral("bad.json"));
    QFile file(bad);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("{\"rules\": [{\"id\": \"a\", \"require_approvals\": 0}]}");
    file.close();
    QProcess serve;
    serve.start(ApiHarness::countersigndBinary(),
                {QStringLiteral("serve"), QStringLiteral("--db"), m_harness.dbPath(), QStringLiteral("--listen"),
                 QStringLiteral("127.0.0.1:0"), QStringLiteral("--no-executor"), QStringLiteral("--policy"), bad});
    QVERIFY(serve.waitForFinished(30000));
    QCOMPARE(serve.exitStatus(), QProcess::NormalExit);
    QCOMPARE(serve.exitCode(), 2);
    const QString err = QString::fromUtf8(serve.readAllStandardError());
    QVERIFY2(err.contains(QStringLiteral("rules[0].require_approvals: must be an integer from 1 to 10")), qPrintable(err));
    QVERIFY(serve.readAllStandardOutput().isEmpty()); // never listened
    // Nothing recorded by the failed start.
    QCOMPARE(m_harness.ledger().policies().versions()->size(), 3);
}

void TestApiPolicy::sighupReloads()
{
    const auto version = [this] {
        return m_client->get(QStringLiteral("/policy"), token(QStringLiteral("aud"))).json.value(QStringLiteral("version")).toInt();
    };
    QCOMPARE(version(), 3);
    const qint64 pid = m_harness.countersignd().process().processId();
    QVERIFY(pid > 0);
    // A bad file: the version in force stays, stderr says why.
    QVERIFY(writePolicy(R"({"rules": [{"id": "x", "require_approvals": 11}]})"));
    QCOMPARE(::kill(pid_t(pid), SIGHUP), 0);
    QTRY_VERIFY_WITH_TIMEOUT(m_harness.countersignd().standardError().contains("SIGHUP: --policy"), 10000);
    QVERIFY2(m_harness.countersignd().standardError().contains("rules[0].require_approvals"),
             m_harness.countersignd().standardError().constData());
    QCOMPARE(version(), 3);
    // A good one: version 4 in force, loaded by "SIGHUP".
    QVERIFY(writePolicy(R"({"rules": [{"id": "all-two", "require_approvals": 2}]})"));
    QCOMPARE(::kill(pid_t(pid), SIGHUP), 0);
    QTRY_COMPARE_WITH_TIMEOUT(version(), 4, 10000);
    QCOMPARE(m_client->get(QStringLiteral("/policy"), token(QStringLiteral("aud"))).json.value(QStringLiteral("loaded_by")).toString(),
             QStringLiteral("SIGHUP"));
    QVERIFY(m_harness.countersignd().process().state() == QProcess::Running);
}

void TestApiPolicy::autoApprovalOverHttp()
{
    // agent-7's refunds up to $25.00 approved by the policy, $40.00 a day; the rest two approvers.
    QVERIFY(writePolicy(R"({"rules": [{"id": "small-auto", "match": {"currency": "usd", "amount_up_to": 2500},
      "auto_approve": {"up_to": 2500, "agents": ["agent-7"], "daily_total": 4000}, "require_approvals": 2}]})"));
    const ApiReply reloaded = reload(QStringLiteral("root"));
    QCOMPARE(reloaded.status, 200);
    const int version = reloaded.json.value(QStringLiteral("version")).toInt();
    const QJsonObject shown = reloaded.json.value(QStringLiteral("rules")).toArray().first().toObject();
    QCOMPARE(shown.value(QStringLiteral("auto_approve")).toObject().value(QStringLiteral("daily_total")).toInteger(), qint64(4000));

    // 201 with the approval: by the policy, the rule and the version, the key minted.
    const QString reference = QStringLiteral("auto-%1").arg(++m_serial);
    const QJsonObject proposal = distinctProposal(reference, 2500);
    const ApiReply proposed = m_client->propose(token(QStringLiteral("agent-7")), proposal);
    QCOMPARE(proposed.status, 201);
    const QString id = proposed.json.value(QStringLiteral("id")).toString();
    QCOMPARE(proposed.json.value(QStringLiteral("state")).toString(), QStringLiteral("PENDING"));
    QCOMPARE(proposed.json.value(QStringLiteral("approval_version")).toInt(), 1);
    const QJsonObject approval = proposed.json.value(QStringLiteral("approval")).toObject();
    QCOMPARE(approval.value(QStringLiteral("decided_by")).toString(), QStringLiteral("policy"));
    QCOMPARE(approval.value(QStringLiteral("decision")).toString(), QStringLiteral("approved"));
    QCOMPARE(approval.value(QStringLiteral("rule_id")).toString(), QStringLiteral("small-auto"));
    QCOMPARE(approval.value(QStringLiteral("policy_version")).toInt(), version);
    const auto stored = m_harness.ledger().reader().action(id);
    QVERIFY(!stored->idempotencyKey.isEmpty());
    QCOMPARE(approval.value(QStringLiteral("idempotency_key")).toString(), stored->idempotencyKey);

    // The detail says who approved; a human's approval is not needed.
    const ApiReply detail = m_client->get(QStringLiteral("/actions/") + id, token(QStringLiteral("ana")));
    QCOMPARE(detail.status, 200);
    QCOMPARE(detail.ifMatch(), proposed.ifMatch()); // the ETag of the approved action
    QCOMPARE(detail.json.value(QStringLiteral("state_version")).toInteger(), stored->stateVersion);
    QCOMPARE(approversOf(detail.json.value(QStringLiteral("approvals_given")).toArray()), QStringList{QStringLiteral("policy")});
    QCOMPARE(detail.json.value(QStringLiteral("approval_rule")).toObject().value(QStringLiteral("rule_id")).toString(),
             QStringLiteral("small-auto"));

    // The same proposal again: 200, the action as it is, nothing approved twice.
    const ApiReply again = m_client->propose(token(QStringLiteral("agent-7")), proposal);
    QCOMPARE(again.status, 200);
    QCOMPARE(again.json.value(QStringLiteral("id")).toString(), id);
    QVERIFY(!again.json.contains(QStringLiteral("approval")));
    QCOMPARE(m_harness.ledger().reader().approvals(id)->size(), 1);

    // $15.01 more would exceed $40.00 today: created PENDING for humans, no approval, the audit says why.
    const ApiReply over = propose(1501);
    QCOMPARE(over.status, 201);
    QVERIFY(!over.json.contains(QStringLiteral("approval")));
    const QString overId = over.json.value(QStringLiteral("id")).toString();
    QVERIFY(m_harness.ledger().reader().action(overId)->idempotencyKey.isEmpty());
    const auto audit = m_harness.ledger().reader().audit(overId);
    QCOMPARE(audit->constLast().event, QStringLiteral("auto_approval_skipped"));
    QCOMPARE(audit->constLast().after.value(QStringLiteral("problem")).toString(), QStringLiteral("daily_total"));
    const ApiReply signed_ = approve(QStringLiteral("ana"), overId, over.ifMatch());
    QCOMPARE(signed_.status, 202); // the rule's two approvers
    // $15.00 still fits.
    const ApiReply fits = propose(1500);
    QCOMPARE(fits.status, 201);
    QCOMPARE(fits.json.value(QStringLiteral("approval")).toObject().value(QStringLiteral("decided_by")).toString(),
             QStringLiteral("policy"));
    // Another agent is not named: humans.
    const ApiReply other = m_client->propose(token(QStringLiteral("agent-8")),
                                             distinctProposal(QStringLiteral("auto-%1").arg(++m_serial), 100));
    QCOMPARE(other.status, 201);
    QVERIFY(!other.json.contains(QStringLiteral("approval")));
    QVERIFY(m_harness.ledger().reader().verifyAudit()->ok);
}

void TestApiPolicy::approvalExpiryOverHttp()
{
    // Every usd refund: one approver, and an approval unsent after 1 s expires. This countersignd
    // has no provider, so nothing is sent: what expires is recorded by the next decision.
    QVERIFY(writePolicy(R"({"rules": [{"id": "quick-expiry", "match": {"currency": "usd"},
      "approval_expires_after": "1s"}]})"));
    const ApiReply reloaded = reload(QStringLiteral("root"));
    QCOMPARE(reloaded.status, 200);
    QCOMPARE(reloaded.json.value(QStringLiteral("rules")).toArray().first().toObject()
                 .value(QStringLiteral("approval_expires_after")).toString(),
             QStringLiteral("1s"));

    const ApiReply proposed = propose(3000);
    QCOMPARE(proposed.status, 201);
    const QString id = proposed.json.value(QStringLiteral("id")).toString();
    const ApiReply approved = approve(QStringLiteral("ana"), id, proposed.ifMatch());
    QCOMPARE(approved.status, 200);
    const QJsonObject first = approved.json.value(QStringLiteral("approval")).toObject();
    const QDateTime decidedAt = cs::timeFromWire(first.value(QStringLiteral("decided_at")).toString());
    QCOMPARE(cs::timeFromWire(first.value(QStringLiteral("expires_at")).toString()), decidedAt.addSecs(1));
    QVERIFY(first.value(QStringLiteral("expired_at")).isNull());
    const QString firstKey = first.value(QStringLiteral("idempotency_key")).toString();
    QVERIFY(!firstKey.isEmpty());

    // Approved and current: nobody may approve it. Past its expiry it no longer signs anything, so
    // approving is allowed again, before anything recorded it.
    const auto approveAllowed = [&] {
        return m_client->get(QStringLiteral("/actions/") + id, token(QStringLiteral("bob")))
            .json.value(QStringLiteral("permissions")).toObject().value(QStringLiteral("approve")).toObject()
            .value(QStringLiteral("allowed")).toBool();
    };
    if (QDateTime::currentDateTimeUtc() < decidedAt.addMSecs(900))
        QVERIFY(!approveAllowed());
    QTRY_VERIFY_WITH_TIMEOUT(approveAllowed(), 5000);
    QVERIFY(m_harness.ledger().reader().approvals(id)->constFirst().expiredAt.isNull());

    // The next approval records the expiry first (by "policy"), then approves: v2, a fresh key.
    const ApiReply again = approve(QStringLiteral("bob"), id, approved.ifMatch());
    QCOMPARE(again.status, 200);
    const QJsonObject second = again.json.value(QStringLiteral("approval")).toObject();
    QCOMPARE(second.value(QStringLiteral("version")).toInt(), 2);
    QCOMPARE(second.value(QStringLiteral("decided_by")).toString(), QStringLiteral("bob"));
    const QString secondKey = second.value(QStringLiteral("idempotency_key")).toString();
    QVERIFY(!secondKey.isEmpty());
    QVERIFY(secondKey != firstKey);
    QVERIFY(!second.value(QStringLiteral("expires_at")).isNull());
    const auto audit = m_harness.ledger().reader().audit(id);
    QStringList events;
    for (const cs::AuditEvent &e : audit.value())
        events << e.event;
    QCOMPARE(events, (QStringList{QStringLiteral("proposed"), QStringLiteral("approved"),
                                  QStringLiteral("approval_expired"), QStringLiteral("approved")}));

    // The detail keeps both: v1 expired (its key on record, never used), v2 current.
    const ApiReply detail = m_client->get(QStringLiteral("/actions/") + id, token(QStringLiteral("aud")));
    QCOMPARE(detail.status, 200);
    const QJsonArray history = detail.json.value(QStringLiteral("approvals")).toArray();
    QCOMPARE(history.size(), 2);
    QVERIFY(!history.at(0).toObject().value(QStringLiteral("expired_at")).isNull());
    QCOMPARE(history.at(0).toObject().value(QStringLiteral("idempotency_key")).toString(), firstKey);
    QVERIFY(history.at(1).toObject().value(QStringLiteral("expired_at")).isNull());
    QCOMPARE(detail.json.value(QStringLiteral("idempotency_key")).toString(), secondKey);

    // An approval sent with the If-Match of before the expiry, once more: stale.
    const ApiReply stale = approve(QStringLiteral("root"), id, approved.ifMatch());
    QCOMPARE(stale.status, 412);
}

QTEST_GUILESS_MAIN(TestApiPolicy)
#include "tst_api_policy.moc"
