// AgentTraffic against the real demo stack (paysim and countersignd as child processes, the
// demo's users), at a fast pace: the mix shows in the ledger (pending proposals, a lost answer
// resent to the same action, a changed resubmission in REQUIRES_REVIEW, an outage that turns what
// this test approves into CONFIRMATION_UNKNOWN), the traffic itself never approves, paysim's
// ground truth holds at most one refund per action, turning it off stops proposals and removes its
// outage, and the pending limit bounds the queue. Bad options are refused.

#include "demo/agenttraffic.h"
#include "demo/demohttp.h"
#include "demo/demostack.h"
#include "demo/paysimadmin.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QSignalSpy>
#include <QTest>
#include <QUrlQuery>

#include <memory>
#include <optional>

using namespace cs::demo;
using Kind = AgentTraffic::Kind;

class TestAgentTraffic : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<DemoStack> m_stack;
    DemoHttp m_http;
    PaysimAdminClient m_paysim;

    // The fast pace every test starts from: proposals 20-60 ms apart, no outage unless asked.
    static AgentTraffic::Options fast()
    {
        AgentTraffic::Options o;
        o.minIntervalMs = 20;
        o.maxIntervalMs = 60;
        o.resendAfterMs = 100;
        o.lostAnswerPercent = 0;
        o.changedPercent = 0;
        o.outagePercent = 0;
        o.outageMinMs = 3000;
        o.outageMaxMs = 4000;
        return o;
    }

    HttpReply await(const std::function<void(DemoHttp::Done)> &call)
    {
        std::optional<HttpReply> answer;
        call([&](const HttpReply &reply) { answer = reply; });
        [&] { QTRY_VERIFY_WITH_TIMEOUT(answer.has_value(), 15000); }();
        return answer.value_or(HttpReply());
    }

    HttpReply api(const QString &user, const QByteArray &verb, const QString &path, const QJsonObject &body = QJsonObject(),
                  qint64 ifMatch = -1)
    {
        DemoHttp::Headers headers{{"Authorization", "Bearer " + m_stack->tokens().value(user).toUtf8()}};
        QByteArray payload;
        if (verb == "POST") {
            headers.append(qMakePair(QByteArray("Content-Type"), QByteArray("application/json")));
            payload = QJsonDocument(body).toJson(QJsonDocument::Compact);
        }
        if (ifMatch >= 0)
            headers.append(qMakePair(QByteArray("If-Match"), QByteArray('"' + QByteArray::number(ifMatch) + '"')));
        const QUrl url(m_stack->backendUrl().toString() + QStringLiteral("/api/v1") + path);
        return await([&](DemoHttp::Done done) { m_http.request(verb, url, headers, payload, done); });
    }

    QString auditor() const { return m_stack->userFor(QStringLiteral("auditor")); }
    QString approver() const { return m_stack->userFor(QStringLiteral("approver")); }

    QJsonObject action(const QString &id) { return api(auditor(), "GET", QStringLiteral("/actions/") + id).json(); }

    // Every action in the ledger (the tests stay far below one page of 200).
    QJsonArray allActions()
    {
        const HttpReply r = api(auditor(), "GET", QStringLiteral("/actions?limit=200"));
        [&] { QCOMPARE(r.status, 200); }();
        return r.json().value(QLatin1String("data")).toArray();
    }

    int pendingInLedger()
    {
        const HttpReply r = api(auditor(), "GET", QStringLiteral("/actions?state=PENDING&limit=1"));
        return r.json().value(QLatin1String("counts")).toObject().value(QLatin1String("PENDING")).toInt(-1);
    }

    QJsonArray faultRules()
    {
        const HttpReply r = await([&](DemoHttp::Done done) { m_paysim.faults(done); });
        return r.json().value(QLatin1String("rules")).toArray();
    }

    bool approve(const QString &id)
    {
        const qint64 version = action(id).value(QLatin1String("state_version")).toInteger();
        const QJsonObject note{{QStringLiteral("note"), QStringLiteral("the trainee checked the order")}};
        const HttpReply r = api(approver(), "POST", QStringLiteral("/actions/%1/approvals").arg(id), note, version);
        return r.status == 200;
    }

    static int count(const QList<AgentTraffic::Proposal> &proposals, Kind kind)
    {
        int n = 0;
        for (const AgentTraffic::Proposal &p : proposals)
            n += p.kind == kind ? 1 : 0;
        return n;
    }

private slots:
    void init()
    {
        if (QByteArray(QTest::currentTestFunction()) == "badOptionsAreRefused")
            return; // refused before the stack is looked at
        DemoStack::Options options;
        options.paysimPath = QStringLiteral(PAYSIM_BIN);
        options.countersigndPath = QStringLiteral(COUNTERSIGND_BIN);
        m_stack = std::make_unique<DemoStack>(options);
        QVERIFY2(m_stack->start(), qPrintable(m_stack->errorString()));
        m_paysim.setBaseUrl(m_stack->paysimUrl());
    }

    void cleanup() { m_stack.reset(); }

    void badOptionsAreRefused_data()
    {
        QTest::addColumn<int>("field");
        QTest::addColumn<int>("value");
        QTest::newRow("a negative pause") << 0 << -1;
        QTest::newRow("min pause above max") << 1 << 10;
        QTest::newRow("no pending allowed") << 2 << 0;
        QTest::newRow("lost + changed above 100 %") << 3 << 95;
        QTest::newRow("outage above 100 %") << 4 << 101;
        QTest::newRow("an outage of no length") << 5 << 0;
    }

    void badOptionsAreRefused()
    {
        QFETCH(int, field);
        QFETCH(int, value);
        AgentTraffic::Options o = fast();
        switch (field) {
        case 0: o.minIntervalMs = value; break;
        case 1: o.maxIntervalMs = value, o.minIntervalMs = 20; break;
        case 2: o.pendingLimit = value; break;
        case 3: o.lostAnswerPercent = value, o.changedPercent = 10; break;
        case 4: o.outagePercent = value; break;
        case 5: o.outageMinMs = value; break;
        }
        AgentTraffic traffic(nullptr, o);
        QSignalSpy running(&traffic, &AgentTraffic::runningChanged);
        QVERIFY(running.isValid());
        QVERIFY(!traffic.start(3));
        QVERIFY2(traffic.errorString().contains(QLatin1String("invalid options")), qPrintable(traffic.errorString()));
        QVERIFY(!traffic.isRunning());
        QCOMPARE(running.count(), 0);

        // The fast options themselves are good: what refuses them then is the missing stack.
        AgentTraffic good(nullptr, fast());
        QVERIFY(!good.start(0));
        QVERIFY2(good.errorString().contains(QLatin1String("not running")), qPrintable(good.errorString()));
    }

    void mixAgainstTheRealStack()
    {
        AgentTraffic::Options o = fast();
        o.seed = 5;
        o.lostAnswerPercent = 20;
        o.changedPercent = 20;
        o.outagePercent = 15;
        AgentTraffic traffic(m_stack.get(), o);
        QSignalSpy outage(&traffic, &AgentTraffic::outageStarted);
        QSignalSpy happened(&traffic, &AgentTraffic::happened);
        QVERIFY(outage.isValid());
        QVERIFY(happened.isValid());
        QVERIFY2(traffic.start(4), qPrintable(traffic.errorString()));

        // While paysim is down, this test approves two plain proposals, as the trainee would.
        QVERIFY(outage.wait(60000));
        QVERIFY(traffic.outageActive());
        QSet<QString> approvedByTest;
        for (const AgentTraffic::Proposal &p : traffic.proposals()) {
            if (p.kind == Kind::Proposed && approvedByTest.size() < 2
                && action(p.actionId).value(QLatin1String("state")).toString() == QLatin1String("PENDING") && approve(p.actionId))
                approvedByTest.insert(p.actionId);
        }
        QCOMPARE(approvedByTest.size(), 2);
        // The first refund sent in the outage commits and its answer is lost: unknown (the
        // action was CONFIRMATION_UNKNOWN), whatever the reconciler makes of it later.
        const auto anyUnknown = [&] {
            for (const QString &id : std::as_const(approvedByTest)) {
                for (const QJsonValue &a : action(id).value(QLatin1String("attempts")).toArray()) {
                    if (a.toObject().value(QLatin1String("outcome")).toString() == QLatin1String("unknown"))
                        return true;
                }
            }
            return false;
        };
        QTRY_VERIFY_WITH_TIMEOUT(anyUnknown(), 20000);
        QTRY_VERIFY_WITH_TIMEOUT(count(traffic.proposals(), Kind::Proposed) >= 6 && count(traffic.proposals(), Kind::Resent) >= 1
                                     && count(traffic.proposals(), Kind::Changed) >= 1,
                                 90000);

        bool stopped = false;
        traffic.stop([&] { stopped = true; });
        QTRY_VERIFY_WITH_TIMEOUT(stopped, 10000);
        QCOMPARE(traffic.errorCount(), 0);
        QVERIFY(traffic.outageCount() >= 1);
        QCOMPARE(faultRules().size(), 0); // the outage's rules went with it

        const QList<AgentTraffic::Proposal> proposals = traffic.proposals();
        QSet<QString> references;
        QSet<QString> changed;
        for (const AgentTraffic::Proposal &p : proposals) {
            references.insert(p.agent + QLatin1Char('/') + p.reference);
            if (p.kind == Kind::Changed)
                changed.insert(p.actionId);
        }
        // Resent after a lost answer: HTTP 200, the action the lost answer named, and only one
        // action under that reference in the ledger.
        for (const AgentTraffic::Proposal &p : proposals) {
            if (p.kind != Kind::Resent)
                continue;
            QCOMPARE(p.status, 200);
            QVERIFY(!p.lostActionId.isEmpty());
            QCOMPARE(p.actionId, p.lostActionId);
            const HttpReply found = api(auditor(), "GET", QStringLiteral("/actions?q=") + QString::fromUtf8(QUrl::toPercentEncoding(p.reference)));
            const QJsonArray same = found.json().value(QLatin1String("data")).toArray();
            int named = 0; // the search is a substring search: read each row's reference
            for (const QJsonValue &v : same) {
                const QJsonObject detail = action(v.toObject().value(QLatin1String("id")).toString());
                named += detail.value(QLatin1String("client_reference")).toString() == p.reference
                            && detail.value(QLatin1String("requested_by")).toString() == p.agent;
            }
            QCOMPARE(named, 1);
        }
        // A changed resubmission: 409, and the stored action is unchanged, in REQUIRES_REVIEW, with
        // the conflicting amount kept as evidence.
        for (const AgentTraffic::Proposal &p : proposals) {
            // (an action this test approved between the traffic's look and its resubmission goes
            // its own way: the traffic only picks unapproved ones)
            if (p.kind != Kind::Changed || approvedByTest.contains(p.actionId))
                continue;
            QCOMPARE(p.status, 409);
            const QJsonObject detail = action(p.actionId);
            QCOMPARE(detail.value(QLatin1String("state")).toString(), QStringLiteral("REQUIRES_REVIEW"));
            QVERIFY(detail.value(QLatin1String("amount")).toInteger() != p.amount);
            const QJsonArray conflicts = detail.value(QLatin1String("conflicts")).toArray();
            QVERIFY(!conflicts.isEmpty());
            QCOMPARE(conflicts.last().toObject().value(QLatin1String("conflicting_payload")).toObject().value(QLatin1String("amount")).toInteger(),
                     p.amount);
        }
        // One action per reference the agents used; every one of them by an agent of the demo,
        // plain ones PENDING, and nothing approved but what this test approved.
        const QJsonArray all = allActions();
        QCOMPARE(all.size(), references.size());
        const QStringList agents = m_stack->usersFor(QStringLiteral("agent"));
        int pending = 0;
        for (const QJsonValue &v : all) {
            const QString id = v.toObject().value(QLatin1String("id")).toString();
            const QJsonObject detail = action(id);
            QVERIFY(agents.contains(detail.value(QLatin1String("requested_by")).toString()));
            const QJsonArray approvals = detail.value(QLatin1String("approvals")).toArray();
            if (approvedByTest.contains(id)) {
                QCOMPARE(approvals.size(), 1);
                QCOMPARE(approvals.at(0).toObject().value(QLatin1String("decided_by")).toString(), approver());
                continue;
            }
            QVERIFY2(approvals.isEmpty(), qPrintable(id));
            QVERIFY(detail.value(QLatin1String("attempts")).toArray().isEmpty());
            const QString state = detail.value(QLatin1String("state")).toString();
            QCOMPARE(state, changed.contains(id) ? QStringLiteral("REQUIRES_REVIEW") : QStringLiteral("PENDING"));
            pending += state == QLatin1String("PENDING") ? 1 : 0;
        }
        QVERIFY(pending >= 4);
        // Ground truth: no action has more than one refund, and only approved actions have any.
        const HttpReply truth = await([&](DemoHttp::Done done) { m_paysim.refunds(done); });
        QHash<QString, int> refunds;
        for (const QJsonValue &v : PaysimAdminClient::dataOf(truth))
            ++refunds[v.toObject().value(QLatin1String("metadata")).toObject().value(QLatin1String("countersign_action_id")).toString()];
        for (auto it = refunds.cbegin(); it != refunds.cend(); ++it) {
            QVERIFY2(approvedByTest.contains(it.key()), qPrintable(it.key()));
            QVERIFY2(it.value() <= 1, qPrintable(it.key()));
        }
        // Each event was reported as it happened.
        QVERIFY(happened.size() >= proposals.size());
    }

    void turningItOffStopsProposals()
    {
        AgentTraffic::Options o = fast();
        o.lostAnswerPercent = 30;
        o.outagePercent = 100;  // an outage is on when the traffic is turned off
        o.outageMinMs = 60000;
        o.outageMaxMs = 60000;
        AgentTraffic traffic(m_stack.get(), o);
        QSignalSpy running(&traffic, &AgentTraffic::runningChanged);
        QVERIFY(running.isValid());
        QVERIFY(traffic.start(0));
        QCOMPARE(running.count(), 1);
        QTRY_VERIFY_WITH_TIMEOUT(traffic.proposals().size() >= 3 && traffic.outageActive(), 30000);
        QVERIFY(!faultRules().isEmpty());

        bool stopped = false;
        traffic.stop([&] { stopped = true; });
        QVERIFY(!traffic.isRunning());
        QCOMPARE(running.count(), 2);
        QCOMPARE(running.at(1).at(0).toBool(), false);
        QTRY_VERIFY_WITH_TIMEOUT(stopped, 10000);
        QVERIFY(!traffic.isBusy());
        QCOMPARE(faultRules().size(), 0);

        const qsizetype made = traffic.proposals().size();
        const qsizetype inLedger = allActions().size();
        // Fifty times the longest pause: a traffic still running would have proposed meanwhile.
        QTest::qWait(50 * o.maxIntervalMs);
        QCOMPARE(traffic.proposals().size(), made);
        QCOMPARE(allActions().size(), inLedger);
        QCOMPARE(traffic.errorCount(), 0);

        // And on again.
        QVERIFY(traffic.start(1));
        QTRY_VERIFY_WITH_TIMEOUT(traffic.proposals().size() > made, 10000);
        traffic.stop();
    }

    void boundedByThePendingLimit()
    {
        AgentTraffic::Options o = fast();
        o.pendingLimit = 4;
        AgentTraffic traffic(m_stack.get(), o);
        QSignalSpy full(&traffic, &AgentTraffic::queueFull);
        QVERIFY(full.isValid());
        QVERIFY(traffic.start(8)); // more at once than the limit allows
        QVERIFY(full.wait(20000));
        QCOMPARE(full.at(0).at(0).toInt(), 4);
        QCOMPARE(pendingInLedger(), 4);
        QCOMPARE(traffic.proposals().size(), 4);
        QTest::qWait(20 * o.maxIntervalMs);
        QCOMPARE(traffic.proposals().size(), 4);
        QCOMPARE(full.count(), 1); // reported once while it stays full

        // A decision frees a place: the next proposal follows.
        QVERIFY(approve(traffic.proposals().at(0).actionId));
        QTRY_COMPARE_WITH_TIMEOUT(traffic.proposals().size(), 5, 10000);
        traffic.stop();
    }
};

QTEST_MAIN(TestAgentTraffic)
#include "tst_agenttraffic.moc"
