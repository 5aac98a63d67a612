// Issue 18, settlement after COMPLETED, through the HTTP API only: countersignd's own executor sends
// to a real paysim whose `refund_settles` rules leave refunds pending; a jump of the simulator
// clock settles them (failed, canceled) and paysim delivers the signed refund.updated /
// refund.failed / charge.refund.updated webhooks to countersignd's /webhooks/provider. The action
// stays COMPLETED; its settlement says failed, opens a review item that the list shows (the row,
// counts.settlement_review, ?settlement=review with its cursor), that a supervisor closes with a
// note (every refusal first) or decides by the follow-up, which re-proposes the whole amount as a
// new PENDING action with its own approval and key. A failed refund holds nothing of the charge's
// budget. A refund made at paysim without Countersign's metadata is listed on the charge view.
#include "tests/api/apitestsupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>
#include <QTcpServer>
#include <QTest>

class TestApiSettlement : public QObject
{
    Q_OBJECT

private:
    ApiHarness m_harness;
    std::unique_ptr<ApiClient> m_client;
    static constexpr const char *kSecret = "whsec_countersign_settlement_test";
    static constexpr qint64 kFailedAmount = 5000;
    static constexpr qint64 kCanceledAmount = 3000;

    // Shared by the slots, in order: A fails after COMPLETED (agent-7), B is canceled after
    // COMPLETED (agent-8), C succeeds (agent-7).
    QString m_failed, m_canceled, m_succeeded;
    QString m_failedCharge, m_canceledCharge;
    QString m_followUp;

    QString token(const QString &user) const { return m_harness.token(user); }
    // The next refund paysim creates stays pending and settles `to` 60 s later on its clock.
    bool settleNextRefund(const QString &to, const QString &failureReason = {})
    {
        QJsonObject rule{{QStringLiteral("fault"), QStringLiteral("refund_settles")},
                         {QStringLiteral("method"), QStringLiteral("POST")},
                         {QStringLiteral("path"), QStringLiteral("/v1/refunds")},
                         {QStringLiteral("times"), 1},
                         {QStringLiteral("after_seconds"), 60},
                         {QStringLiteral("to"), to}};
        if (!failureReason.isEmpty())
            rule.insert(QStringLiteral("failure_reason"), failureReason);
        const ApiReply added = m_harness.sim("POST", QStringLiteral("/_sim/faults"), rule);
        if (added.status != 200 && added.status != 201)
            qWarning() << "paysim refused the rule:" << added.body;
        return added.status == 200 || added.status == 201;
    }
    QJsonArray providerRefundsOn(const QString &charge)
    {
        QJsonArray out;
        for (const QJsonValue &refund : m_harness.sim("GET", QStringLiteral("/_sim/refunds")).json.value(QStringLiteral("data")).toArray()) {
            if (refund.toObject().value(QStringLiteral("charge")).toString() == charge)
                out.append(refund);
        }
        return out;
    }

    // Proposed by `agent` on a fresh charge of exactly `amount` and approved by ana: the executor
    // takes it from there. Empty when a step was refused.
    QString proposeAndApprove(const QString &agent, qint64 amount, const QString &reference, QString *charge = nullptr)
    {
        const QString chargeId = m_harness.seedCharge(amount);
        if (charge)
            *charge = chargeId;
        const ApiReply proposed = m_client->propose(token(agent), ApiClient::proposal(reference, amount, chargeId));
        if (proposed.status != 201) {
            qWarning() << "proposal refused:" << proposed.status << proposed.body;
            return QString();
        }
        const QString id = proposed.json.value(QStringLiteral("id")).toString();
        const ApiReply approved = m_client->approve(token(QStringLiteral("ana")), id, proposed.ifMatch(), "approve-" + reference.toLatin1());
        return approved.status == 200 ? id : QString();
    }
    ApiReply detail(const QString &id, const QString &user = QStringLiteral("sam"))
    {
        return m_client->get(QStringLiteral("/actions/") + id, token(user));
    }
    QString stateOf(const QString &id) { return detail(id).json.value(QStringLiteral("state")).toString(); }
    QJsonObject settlementOf(const QString &id) { return detail(id).json.value(QStringLiteral("settlement")).toObject(); }
    QString settlementStatusOf(const QString &id) { return settlementOf(id).value(QStringLiteral("status")).toString(); }
    qint64 reviewCount(const QString &user)
    {
        const ApiReply list = m_client->get(QStringLiteral("/actions?limit=1"), token(user));
        return list.json.value(QStringLiteral("counts")).toObject().value(QStringLiteral("settlement_review")).toInteger(-1);
    }
    // The ids of every row of a list, following next_cursor.
    QStringList listIds(const QString &query, const QString &user, int *pages = nullptr)
    {
        QStringList ids;
        QString cursor;
        int n = 0;
        do {
            const QString path = QStringLiteral("/actions?%1%2").arg(query, cursor.isEmpty() ? QString()
                                                                                              : QStringLiteral("&cursor=") + cursor);
            const ApiReply page = m_client->get(path, token(user));
            if (page.status != 200) {
                qWarning() << path << page.status << page.body;
                return {QStringLiteral("<error>")};
            }
            ++n;
            for (const QJsonValue &row : page.json.value(QStringLiteral("data")).toArray())
                ids << row.toObject().value(QStringLiteral("id")).toString();
            cursor = page.json.value(QStringLiteral("next_cursor")).toString();
        } while (!cursor.isEmpty() && n < 50);
        if (pages)
            *pages = n;
        return ids;
    }
    QJsonObject rowOf(const QString &id, const QString &user = QStringLiteral("sam"))
    {
        const ApiReply list = m_client->get(QStringLiteral("/actions?limit=200"), token(user));
        for (const QJsonValue &row : list.json.value(QStringLiteral("data")).toArray()) {
            if (row.toObject().value(QStringLiteral("id")).toString() == id)
                return row.toObject();
        }
        return {};
    }
    QList<QJsonObject> auditEvents(const QString &id, const QString &event)
    {
        QList<QJsonObject> out;
        for (const QJsonValue &row : detail(id).json.value(QStringLiteral("audit")).toArray()) {
            if (row.toObject().value(QStringLiteral("event")).toString() == event)
                out << row.toObject();
        }
        return out;
    }
    ApiReply close(const QString &id, const QString &user, const QByteArray &ifMatch, const QByteArray &body,
                   const QByteArray &key = {})
    {
        Headers headers = {{"Content-Type", "application/json"}};
        if (!ifMatch.isEmpty())
            headers.append({"If-Match", ifMatch});
        if (!key.isEmpty())
            headers.append({"Idempotency-Key", key});
        return m_client->postRaw(QStringLiteral("/actions/%1/settlement/close").arg(id), token(user), body, headers);
    }

private slots:
    void initTestCase()
    {
        // paysim must know where to deliver its webhooks before countersignd exists, and
        // countersignd needs paysim's URL: so countersignd gets a port chosen here (a later
        // --listen overrides the harness's 127.0.0.1:0).
        quint16 port = 0;
        {
            QTcpServer probe;
            QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
            port = probe.serverPort();
        }
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString secretFile = dir.filePath(QStringLiteral("webhook.secret"));
        QFile secret(secretFile);
        QVERIFY(secret.open(QIODevice::WriteOnly));
        secret.write(kSecret);
        secret.close();
        const QString configFile = dir.filePath(QStringLiteral("execution.json"));
        QFile config(configFile);
        QVERIFY(config.open(QIODevice::WriteOnly));
        config.write(QJsonDocument(QJsonObject{{QStringLiteral("workers"), 2},
                                               {QStringLiteral("request_timeout_ms"), 5000},
                                               {QStringLiteral("lease_duration_ms"), 15000},
                                               {QStringLiteral("idle_poll_ms"), 50},
                                               {QStringLiteral("backoff_base_ms"), 100},
                                               {QStringLiteral("backoff_max_ms"), 500}})
                         .toJson());
        config.close();

        ApiHarness::Options options;
        options.withPaysim = true;
        options.paysimArguments = {QStringLiteral("--webhook-url"),
                                   QStringLiteral("http://127.0.0.1:%1/api/v1/webhooks/provider").arg(port),
                                   QStringLiteral("--webhook-secret"), QString::fromLatin1(kSecret)};
        options.extraServeArguments = {QStringLiteral("--listen"), QStringLiteral("127.0.0.1:%1").arg(port),
                                       QStringLiteral("--webhook-secret-file"), secretFile,
                                       QStringLiteral("--execution-config"), configFile};
        QString error;
        QVERIFY2(m_harness.start(options, &error), qPrintable(error));
        QCOMPARE(m_harness.api().port(), int(port));
        m_client = std::make_unique<ApiClient>(m_harness.api());
    }

    void cleanupTestCase()
    {
        QVERIFY2(m_harness.countersignd().stop(), m_harness.countersignd().standardError().constData());
    }

    // Pending at the provider is COMPLETED and followed; while pending it holds the whole charge.
    void pendingRefundsCompleteAndAreFollowed()
    {
        QVERIFY(settleNextRefund(QStringLiteral("failed"), QStringLiteral("lost_or_stolen_card")));
        m_failed = proposeAndApprove(QStringLiteral("agent-7"), kFailedAmount, QStringLiteral("settle-failed"), &m_failedCharge);
        QVERIFY(!m_failed.isEmpty());
        QTRY_COMPARE_WITH_TIMEOUT(stateOf(m_failed), QStringLiteral("COMPLETED"), 20000);

        QVERIFY(settleNextRefund(QStringLiteral("canceled")));
        m_canceled = proposeAndApprove(QStringLiteral("agent-8"), kCanceledAmount, QStringLiteral("settle-canceled"), &m_canceledCharge);
        QVERIFY(!m_canceled.isEmpty());
        QTRY_COMPARE_WITH_TIMEOUT(stateOf(m_canceled), QStringLiteral("COMPLETED"), 20000);

        m_succeeded = proposeAndApprove(QStringLiteral("agent-7"), 2000, QStringLiteral("settle-succeeded"));
        QVERIFY(!m_succeeded.isEmpty());
        QTRY_COMPARE_WITH_TIMEOUT(stateOf(m_succeeded), QStringLiteral("COMPLETED"), 20000);
        QCOMPARE(settlementStatusOf(m_succeeded), QStringLiteral("succeeded"));
        QCOMPARE(settlementOf(m_succeeded).value(QStringLiteral("attention")).toString(), QStringLiteral("none"));

        for (const QString &id : {m_failed, m_canceled}) {
            const QJsonObject s = settlementOf(id);
            QCOMPARE(s.value(QStringLiteral("action_id")).toString(), id);
            QVERIFY(s.value(QStringLiteral("refund_id")).toString().startsWith(QLatin1String("re_")));
            QCOMPARE(s.value(QStringLiteral("status")).toString(), QStringLiteral("pending"));
            QCOMPARE(s.value(QStringLiteral("attention")).toString(), QStringLiteral("none"));
            QVERIFY(s.value(QStringLiteral("settled_at")).isNull());
            QVERIFY(s.value(QStringLiteral("next_check_at")).isString()); // followed until it settles
            const QJsonArray history = s.value(QStringLiteral("history")).toArray();
            QCOMPARE(history.size(), 1);
            QCOMPARE(history.first().toObject().value(QStringLiteral("to_status")).toString(), QStringLiteral("pending"));
            QCOMPARE(history.first().toObject().value(QStringLiteral("source")).toString(), QStringLiteral("attempt"));
            const QJsonObject row = rowOf(id);
            QCOMPARE(row.value(QStringLiteral("settlement_status")).toString(), QStringLiteral("pending"));
            QCOMPARE(row.value(QStringLiteral("settlement_review")).toBool(true), false);
        }
        QCOMPARE(reviewCount(QStringLiteral("sam")), 0);
        QCOMPARE(listIds(QStringLiteral("settlement=review"), QStringLiteral("sam")), QStringList());

        // The pending refund holds its amount: the charge has nothing left to propose.
        const ApiReply whole = m_client->propose(token(QStringLiteral("agent-8")),
                                                 ApiClient::proposal(QStringLiteral("settle-whole-before"), kFailedAmount, m_failedCharge));
        QCOMPARE(whole.status, 422);
        QCOMPARE(whole.code(), QStringLiteral("exceeds_refundable"));
        const ApiReply canceledWhole = m_client->propose(
            token(QStringLiteral("agent-7")), ApiClient::proposal(QStringLiteral("settle-canceled-whole-before"), kCanceledAmount, m_canceledCharge));
        QCOMPARE(canceledWhole.status, 422);
        QCOMPARE(canceledWhole.code(), QStringLiteral("exceeds_refundable"));
        // An approver refreshes the charge view while the refund is pending: the newest read of
        // the charge now says it is fully refunded.
        const ApiReply read = m_client->post(QStringLiteral("/charges/%1/lookups").arg(m_failedCharge), token(QStringLiteral("ana")), {});
        QVERIFY2(read.status == 201, read.body.constData());
        QCOMPARE(read.json.value(QStringLiteral("budget")).toObject().value(QStringLiteral("available")).toInteger(), 0);
    }

    // The simulator clock passes the settlement time: paysim settles both refunds and delivers the
    // webhooks; the actions stay COMPLETED and their settlement says what happened.
    void refundFailsAfterCompleted()
    {
        const qint64 versionBefore = detail(m_failed).stateVersion();
        const ApiReply advanced = m_harness.sim("POST", QStringLiteral("/_sim/clock"), {{QStringLiteral("advance_ms"), 61000}});
        QVERIFY2(advanced.status == 200, advanced.body.constData());
        QTRY_COMPARE_WITH_TIMEOUT(settlementStatusOf(m_failed), QStringLiteral("failed"), 20000);
        QTRY_COMPARE_WITH_TIMEOUT(settlementStatusOf(m_canceled), QStringLiteral("canceled"), 20000);

        const ApiReply failed = detail(m_failed);
        QCOMPARE(failed.json.value(QStringLiteral("state")).toString(), QStringLiteral("COMPLETED"));
        QVERIFY(failed.stateVersion() > versionBefore); // the record the API shows changed
        const QJsonObject s = failed.json.value(QStringLiteral("settlement")).toObject();
        QCOMPARE(s.value(QStringLiteral("failure_reason")).toString(), QStringLiteral("lost_or_stolen_card"));
        QCOMPARE(s.value(QStringLiteral("attention")).toString(), QStringLiteral("open"));
        QVERIFY(s.value(QStringLiteral("attention_since")).isString());
        QVERIFY(s.value(QStringLiteral("settled_at")).isString());
        QVERIFY(s.value(QStringLiteral("next_check_at")).isNull()); // settled: no more look-ups
        QCOMPARE(s.value(QStringLiteral("confirmed_by")).toString(), QStringLiteral("webhook"));
        QVERIFY(s.value(QStringLiteral("resolved_by")).isNull());
        QVERIFY(s.value(QStringLiteral("follow_up_id")).isNull());
        const QJsonArray history = s.value(QStringLiteral("history")).toArray();
        QCOMPARE(history.size(), 2); // pending, then failed: the duplicate events changed nothing
        const QJsonObject change = history.last().toObject();
        QCOMPARE(change.value(QStringLiteral("seq")).toInt(), 2);
        QCOMPARE(change.value(QStringLiteral("from_status")).toString(), QStringLiteral("pending"));
        QCOMPARE(change.value(QStringLiteral("to_status")).toString(), QStringLiteral("failed"));
        QCOMPARE(change.value(QStringLiteral("failure_reason")).toString(), QStringLiteral("lost_or_stolen_card"));
        QCOMPARE(change.value(QStringLiteral("source")).toString(), QStringLiteral("webhook"));
        // The evidence it rests on: the webhook event, recorded as a look-up of the action.
        const QString evidence = change.value(QStringLiteral("evidence")).toString();
        QVERIFY2(evidence.startsWith(QLatin1String("lookup ")), qPrintable(evidence));
        const int lookupSeq = evidence.mid(7).toInt();
        bool found = false;
        for (const QJsonValue &value : failed.json.value(QStringLiteral("lookups")).toArray()) {
            const QJsonObject lookup = value.toObject();
            if (lookup.value(QStringLiteral("seq")).toInt() != lookupSeq)
                continue;
            found = true;
            QCOMPARE(lookup.value(QStringLiteral("method")).toString(), QStringLiteral("webhook"));
            QCOMPARE(lookup.value(QStringLiteral("status")).toString(), QStringLiteral("failed"));
            QCOMPARE(lookup.value(QStringLiteral("provider_object_id")).toString(), s.value(QStringLiteral("refund_id")).toString());
            QVERIFY(lookup.value(QStringLiteral("excerpt")).toString().contains(QLatin1String("evt_")));
        }
        QVERIFY2(found, qPrintable(evidence));
        QCOMPARE(auditEvents(m_failed, QStringLiteral("settlement")).size(), 1);

        const QJsonObject c = settlementOf(m_canceled);
        QCOMPARE(c.value(QStringLiteral("attention")).toString(), QStringLiteral("open"));
        QVERIFY(c.value(QStringLiteral("failure_reason")).isNull());
        QCOMPARE(stateOf(m_canceled), QStringLiteral("COMPLETED"));
        // The one that succeeded is settled and asks nothing.
        QCOMPARE(settlementOf(m_succeeded).value(QStringLiteral("attention")).toString(), QStringLiteral("none"));
    }

    // The list row, the count of its own (an agent counts its own) and the rows of other states.
    void reviewItemsInRowsAndCounts()
    {
        const QJsonObject failedRow = rowOf(m_failed);
        QCOMPARE(failedRow.value(QStringLiteral("state")).toString(), QStringLiteral("COMPLETED"));
        QCOMPARE(failedRow.value(QStringLiteral("settlement_status")).toString(), QStringLiteral("failed"));
        QCOMPARE(failedRow.value(QStringLiteral("settlement_review")).toBool(), true);
        QCOMPARE(rowOf(m_canceled).value(QStringLiteral("settlement_status")).toString(), QStringLiteral("canceled"));
        const QJsonObject succeededRow = rowOf(m_succeeded);
        QCOMPARE(succeededRow.value(QStringLiteral("settlement_status")).toString(), QStringLiteral("succeeded"));
        QCOMPARE(succeededRow.value(QStringLiteral("settlement_review")).toBool(true), false);
        QCOMPARE(rowOf(m_failed, QStringLiteral("agent-7")).value(QStringLiteral("settlement_review")).toBool(), true);

        QCOMPARE(reviewCount(QStringLiteral("sam")), 2);
        QCOMPARE(reviewCount(QStringLiteral("aud")), 2);
        QCOMPARE(reviewCount(QStringLiteral("agent-7")), 1);
        QCOMPARE(reviewCount(QStringLiteral("agent-8")), 1);
        // Not a state: the six states still count every action once.
        const QJsonObject counts = m_client->get(QStringLiteral("/actions?limit=1"), token(QStringLiteral("sam")))
                                       .json.value(QStringLiteral("counts")).toObject();
        QCOMPARE(counts.value(QStringLiteral("COMPLETED")).toInteger(), 3);
    }

    // ?settlement=review lists exactly the open items, pages with its own cursor, and refuses a
    // cursor issued for other filters.
    void reviewFilterAndCursor()
    {
        int pages = 0;
        const QStringList all = listIds(QStringLiteral("settlement=review&limit=1"), QStringLiteral("sam"), &pages);
        QCOMPARE(pages, 2);
        QCOMPARE(QSet<QString>(all.cbegin(), all.cend()), (QSet<QString>{m_failed, m_canceled}));
        QCOMPARE(listIds(QStringLiteral("settlement=review"), QStringLiteral("agent-7")), QStringList{m_failed});
        QCOMPARE(listIds(QStringLiteral("settlement=review"), QStringLiteral("agent-8")), QStringList{m_canceled});
        QCOMPARE(listIds(QStringLiteral("settlement=review&state=PENDING"), QStringLiteral("sam")), QStringList());
        QCOMPARE(listIds(QStringLiteral("settlement=review&q=") + m_failed, QStringLiteral("sam")), QStringList{m_failed});

        const ApiReply first = m_client->get(QStringLiteral("/actions?settlement=review&limit=1"), token(QStringLiteral("sam")));
        QCOMPARE(first.status, 200);
        const QString reviewCursor = first.json.value(QStringLiteral("next_cursor")).toString();
        QVERIFY(!reviewCursor.isEmpty());
        const ApiReply foreign = m_client->get(QStringLiteral("/actions?limit=1&cursor=") + reviewCursor, token(QStringLiteral("sam")));
        QCOMPARE(foreign.status, 400);
        QCOMPARE(foreign.code(), QStringLiteral("invalid_parameter"));
        const ApiReply plain = m_client->get(QStringLiteral("/actions?limit=1"), token(QStringLiteral("sam")));
        const QString plainCursor = plain.json.value(QStringLiteral("next_cursor")).toString();
        QVERIFY(!plainCursor.isEmpty());
        const ApiReply intoReview = m_client->get(QStringLiteral("/actions?settlement=review&limit=1&cursor=") + plainCursor,
                                                  token(QStringLiteral("sam")));
        QCOMPARE(intoReview.status, 400);
        QCOMPARE(intoReview.code(), QStringLiteral("invalid_parameter"));

        const ApiReply unknown = m_client->get(QStringLiteral("/actions?settlement=open"), token(QStringLiteral("sam")));
        QCOMPARE(unknown.status, 400);
        QCOMPARE(unknown.code(), QStringLiteral("invalid_parameter"));
        QCOMPARE(unknown.json.value(QStringLiteral("errors")).toArray().first().toObject().value(QStringLiteral("field")).toString(),
                 QStringLiteral("settlement"));
    }

    // The console's advice: who may close the review item.
    void closePermissionAdvice_data()
    {
        QTest::addColumn<QString>("user");
        QTest::addColumn<QString>("action"); // "failed" or "succeeded"
        QTest::addColumn<bool>("allowed");
        QTest::newRow("supervisor, open item") << QStringLiteral("sam") << QStringLiteral("failed") << true;
        QTest::newRow("admin, open item") << QStringLiteral("root") << QStringLiteral("failed") << true;
        QTest::newRow("approver") << QStringLiteral("ana") << QStringLiteral("failed") << false;
        QTest::newRow("auditor") << QStringLiteral("aud") << QStringLiteral("failed") << false;
        QTest::newRow("agent, its own action") << QStringLiteral("agent-7") << QStringLiteral("failed") << false;
        QTest::newRow("supervisor, nothing open (succeeded)") << QStringLiteral("sam") << QStringLiteral("succeeded") << false;
    }
    void closePermissionAdvice()
    {
        QFETCH(QString, user);
        QFETCH(QString, action);
        QFETCH(bool, allowed);
        const ApiReply reply = detail(action == u"failed" ? m_failed : m_succeeded, user);
        QCOMPARE(reply.status, 200);
        const QJsonObject advice = reply.json.value(QStringLiteral("permissions")).toObject().value(QStringLiteral("close_settlement")).toObject();
        QCOMPARE(advice.value(QStringLiteral("allowed")).toBool(!allowed), allowed);
        QCOMPARE(advice.value(QStringLiteral("reason")).toString().isEmpty(), allowed); // a refusal says why
    }

    // Every refusal leaves the item open and the action's version where it was.
    void closeRefusals_data()
    {
        QTest::addColumn<QString>("user");
        QTest::addColumn<QString>("ifMatch"); // "current", "stale" or "none"
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("code");
        const QByteArray ok = R"({"note":"refunded by bank transfer"})";
        QTest::newRow("approver") << QStringLiteral("ana") << QStringLiteral("current") << ok << 403 << QStringLiteral("forbidden");
        QTest::newRow("auditor") << QStringLiteral("aud") << QStringLiteral("current") << ok << 403 << QStringLiteral("forbidden");
        QTest::newRow("agent, its own action") << QStringLiteral("agent-8") << QStringLiteral("current") << ok << 403
                                               << QStringLiteral("forbidden");
        QTest::newRow("no If-Match") << QStringLiteral("sam") << QStringLiteral("none") << ok << 428 << QStringLiteral("if_match_required");
        QTest::newRow("stale If-Match") << QStringLiteral("sam") << QStringLiteral("stale") << ok << 412
                                        << QStringLiteral("stale_state_version");
        QTest::newRow("no note") << QStringLiteral("sam") << QStringLiteral("current") << QByteArray("{}") << 422
                                 << QStringLiteral("validation_failed");
        QTest::newRow("blank note") << QStringLiteral("sam") << QStringLiteral("current") << QByteArray(R"({"note":"  \t "})") << 422
                                    << QStringLiteral("validation_failed");
        QTest::newRow("note of 2001 characters") << QStringLiteral("sam") << QStringLiteral("current")
                                                 << QByteArray(R"({"note":")" + QByteArray(2001, 'x') + R"("})") << 422
                                                 << QStringLiteral("validation_failed");
        QTest::newRow("note not a string") << QStringLiteral("sam") << QStringLiteral("current") << QByteArray(R"({"note":42})") << 422
                                           << QStringLiteral("validation_failed");
        QTest::newRow("unknown member") << QStringLiteral("sam") << QStringLiteral("current")
                                        << QByteArray(R"({"note":"x","resend":true})") << 422 << QStringLiteral("validation_failed");
        QTest::newRow("not JSON") << QStringLiteral("sam") << QStringLiteral("current") << QByteArray("note=x") << 400
                                  << QStringLiteral("malformed_json");
        QTest::newRow("not an object") << QStringLiteral("sam") << QStringLiteral("current") << QByteArray(R"(["x"])") << 400
                                       << QStringLiteral("malformed_json");
    }
    void closeRefusals()
    {
        QFETCH(QString, user);
        QFETCH(QString, ifMatch);
        QFETCH(QByteArray, body);
        QFETCH(int, status);
        QFETCH(QString, code);
        const ApiReply before = detail(m_canceled);
        QByteArray etag = before.ifMatch();
        if (ifMatch == u"none")
            etag.clear();
        else if (ifMatch == u"stale")
            etag = '"' + QByteArray::number(before.stateVersion() - 1) + '"';
        const ApiReply refused = close(m_canceled, user, etag, body);
        QVERIFY2(refused.status == status, refused.body.constData());
        QCOMPARE(refused.code(), code);
        const ApiReply after = detail(m_canceled);
        QCOMPARE(after.stateVersion(), before.stateVersion());
        QCOMPARE(after.json.value(QStringLiteral("settlement")).toObject().value(QStringLiteral("attention")).toString(),
                 QStringLiteral("open"));
        QCOMPARE(auditEvents(m_canceled, QStringLiteral("settlement_closed")).size(), 0);
    }

    void closeWithoutOpenItemIsIllegal()
    {
        const ApiReply succeeded = detail(m_succeeded);
        const ApiReply refused = close(m_succeeded, QStringLiteral("sam"), succeeded.ifMatch(), R"({"note":"nothing to close"})");
        QCOMPARE(refused.status, 409);
        QCOMPARE(refused.code(), QStringLiteral("illegal_state"));
        QCOMPARE(refused.json.value(QStringLiteral("current_state")).toString(), QStringLiteral("COMPLETED"));
        QCOMPARE(detail(m_succeeded).stateVersion(), succeeded.stateVersion());
        const ApiReply unknown = close(QStringLiteral("act_doesnotexist0000000000"), QStringLiteral("sam"), "\"1\"",
                                       R"({"note":"x"})");
        QCOMPARE(unknown.status, 404);
    }

    void closeSettlement()
    {
        const ApiReply before = detail(m_canceled);
        const QByteArray body = R"({"note":"refunded by bank transfer, ticket 5521"})";
        const ApiReply closed = close(m_canceled, QStringLiteral("sam"), before.ifMatch(), body, "close-canceled-1");
        QVERIFY2(closed.status == 200, closed.body.constData());
        const QJsonObject s = closed.json.value(QStringLiteral("settlement")).toObject();
        QCOMPARE(s.value(QStringLiteral("action_id")).toString(), m_canceled);
        QCOMPARE(s.value(QStringLiteral("status")).toString(), QStringLiteral("canceled"));
        QCOMPARE(s.value(QStringLiteral("attention")).toString(), QStringLiteral("closed"));
        QCOMPARE(s.value(QStringLiteral("resolved_by")).toString(), QStringLiteral("sam"));
        QCOMPARE(s.value(QStringLiteral("resolution_note")).toString(), QStringLiteral("refunded by bank transfer, ticket 5521"));
        QVERIFY(s.value(QStringLiteral("resolved_at")).isString());
        QVERIFY(s.value(QStringLiteral("follow_up_id")).isNull());
        const QJsonObject action = closed.json.value(QStringLiteral("action")).toObject();
        QCOMPARE(action.value(QStringLiteral("state")).toString(), QStringLiteral("COMPLETED"));
        QCOMPARE(closed.stateVersion(), before.stateVersion() + 1);
        QCOMPARE(closed.ifMatch(), QByteArray('"' + QByteArray::number(before.stateVersion() + 1) + '"'));

        // The same request again (the answer lost): the same answer, nothing written twice.
        const ApiReply replayed = close(m_canceled, QStringLiteral("sam"), before.ifMatch(), body, "close-canceled-1");
        QCOMPARE(replayed.status, 200);
        QCOMPARE(replayed.header("Idempotent-Replayed"), QByteArray("true"));
        QCOMPARE(replayed.json, closed.json);

        const QList<QJsonObject> audit = auditEvents(m_canceled, QStringLiteral("settlement_closed"));
        QCOMPARE(audit.size(), 1);
        QCOMPARE(audit.first().value(QStringLiteral("actor")).toString(), QStringLiteral("sam"));
        QCOMPARE(audit.first().value(QStringLiteral("reason")).toString(), QStringLiteral("refunded by bank transfer, ticket 5521"));

        QCOMPARE(reviewCount(QStringLiteral("sam")), 1);
        QCOMPARE(reviewCount(QStringLiteral("agent-8")), 0);
        QCOMPARE(listIds(QStringLiteral("settlement=review"), QStringLiteral("sam")), QStringList{m_failed});
        QCOMPARE(rowOf(m_canceled).value(QStringLiteral("settlement_review")).toBool(true), false);
        const QJsonObject advice = detail(m_canceled).json.value(QStringLiteral("permissions")).toObject()
                                       .value(QStringLiteral("close_settlement")).toObject();
        QCOMPARE(advice.value(QStringLiteral("allowed")).toBool(true), false);

        // Decided: a second close is refused, whoever asks.
        const ApiReply again = close(m_canceled, QStringLiteral("root"), closed.ifMatch(), R"({"note":"again"})");
        QCOMPARE(again.status, 409);
        QCOMPARE(again.code(), QStringLiteral("illegal_state"));
        QCOMPARE(detail(m_canceled).stateVersion(), closed.stateVersion());
    }

    // A refund that failed or was canceled after COMPLETED holds nothing of its charge's budget:
    // the charge view offers the whole amount again even though its newest read (taken while the
    // refund was pending) still counts it, and a proposal for the whole canceled amount fits (both
    // were 0 / 422 exceeds_refundable while the refunds were pending). Refunds that were
    // Countersign's own are no unmatched events.
    void failedRefundHoldsNothingOfTheBudget()
    {
        const ApiReply view = m_client->get(QStringLiteral("/charges/") + m_failedCharge, token(QStringLiteral("sam")));
        QCOMPARE(view.status, 200);
        QCOMPARE(view.json.value(QStringLiteral("unmatched_refund_events")).toArray().size(), 0);
        const QJsonObject budget = view.json.value(QStringLiteral("budget")).toObject();
        QVERIFY2(budget.value(QStringLiteral("available")).toInteger() == kFailedAmount,
                 QJsonDocument(budget).toJson(QJsonDocument::Compact).constData());

        const ApiReply whole = m_client->propose(token(QStringLiteral("agent-7")),
                                                 ApiClient::proposal(QStringLiteral("settle-canceled-whole-after"), kCanceledAmount, m_canceledCharge));
        QVERIFY2(whole.status == 201, whole.body.constData());
        QCOMPARE(whole.json.value(QStringLiteral("amount")).toInteger(), kCanceledAmount);
    }

    // The follow-up re-proposes the whole amount as a new operation with its own approval and key,
    // and decides the parent's review item.
    void followUpReproposesTheWholeAmount()
    {
        const ApiReply parent = detail(m_failed);
        const QString parentKey = parent.json.value(QStringLiteral("idempotency_key")).toString();
        QVERIFY(!parentKey.isEmpty());
        const ApiReply created = m_client->post(QStringLiteral("/actions/%1/follow-ups").arg(m_failed), token(QStringLiteral("sam")),
                                                {{QStringLiteral("desired_total_amount"), kFailedAmount},
                                                 {QStringLiteral("note"), QStringLiteral("card lost; customer gave a new one")}},
                                                {{"If-Match", parent.ifMatch()}, {"Idempotency-Key", "follow-up-failed-1"}});
        QVERIFY2(created.status == 201, created.body.constData());
        m_followUp = created.json.value(QStringLiteral("id")).toString();
        QVERIFY(!m_followUp.isEmpty());
        QCOMPARE(created.json.value(QStringLiteral("amount")).toInteger(), kFailedAmount); // the failed refund counts 0
        QCOMPARE(created.json.value(QStringLiteral("state")).toString(), QStringLiteral("PENDING"));
        QCOMPARE(created.json.value(QStringLiteral("parent_id")).toString(), m_failed);
        QCOMPARE(created.json.value(QStringLiteral("idempotency_key")).toString(), QString()); // not approved: no key

        const QJsonObject s = settlementOf(m_failed);
        QCOMPARE(s.value(QStringLiteral("attention")).toString(), QStringLiteral("followed_up"));
        QCOMPARE(s.value(QStringLiteral("follow_up_id")).toString(), m_followUp);
        QCOMPARE(s.value(QStringLiteral("resolved_by")).toString(), QStringLiteral("sam"));
        QCOMPARE(s.value(QStringLiteral("status")).toString(), QStringLiteral("failed")); // the evidence stays
        QCOMPARE(auditEvents(m_failed, QStringLiteral("settlement_followed_up")).size(), 1);
        QCOMPARE(reviewCount(QStringLiteral("sam")), 0);
        QCOMPARE(listIds(QStringLiteral("settlement=review"), QStringLiteral("sam")), QStringList());
        QCOMPARE(stateOf(m_failed), QStringLiteral("COMPLETED"));

        const ApiReply parentNow = detail(m_failed);
        const ApiReply closeAfter = close(m_failed, QStringLiteral("sam"), parentNow.ifMatch(), R"({"note":"x"})");
        QCOMPARE(closeAfter.status, 409);
        QCOMPARE(closeAfter.code(), QStringLiteral("illegal_state"));

        // Nothing is sent before its own approval.
        const ApiReply waiting = detail(m_followUp);
        QCOMPARE(waiting.json.value(QStringLiteral("state")).toString(), QStringLiteral("PENDING"));
        QCOMPARE(waiting.json.value(QStringLiteral("attempts")).toArray().size(), 0);
        QCOMPARE(detail(m_followUp, QStringLiteral("ana")).json.value(QStringLiteral("permissions")).toObject()
                     .value(QStringLiteral("approve")).toObject().value(QStringLiteral("allowed")).toBool(), true);

        const ApiReply approved = m_client->approve(token(QStringLiteral("ana")), m_followUp, waiting.ifMatch(), "approve-follow-up-1");
        QVERIFY2(approved.status == 200, approved.body.constData());
        const QString key = approved.json.value(QStringLiteral("approval")).toObject().value(QStringLiteral("idempotency_key")).toString();
        QVERIFY(!key.isEmpty());
        QVERIFY(key != parentKey);
        QTRY_COMPARE_WITH_TIMEOUT(stateOf(m_followUp), QStringLiteral("COMPLETED"), 20000);
        QCOMPARE(settlementStatusOf(m_followUp), QStringLiteral("succeeded"));

        // The provider's ground truth: the failed refund and a new one, each under its own key.
        const QJsonArray refunds = providerRefundsOn(m_failedCharge);
        QCOMPARE(refunds.size(), 2);
        QCOMPARE(refunds.at(0).toObject().value(QStringLiteral("status")).toString(), QStringLiteral("failed"));
        QCOMPARE(refunds.at(0).toObject().value(QStringLiteral("idempotency_key")).toString(), parentKey);
        QCOMPARE(refunds.at(1).toObject().value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
        QCOMPARE(refunds.at(1).toObject().value(QStringLiteral("idempotency_key")).toString(), key);
        QCOMPARE(refunds.at(1).toObject().value(QStringLiteral("amount")).toInteger(), kFailedAmount);
    }

    // A refund Countersign never asked for (made in the dashboard: no metadata) is listed on the
    // charge it touches, as the provider's webhook announced it.
    void unmatchedRefundEventOnTheCharge()
    {
        const QString charge = m_harness.seedCharge(2500);
        QVERIFY(!charge.isEmpty());
        QCOMPARE(m_client->get(QStringLiteral("/charges/") + charge, token(QStringLiteral("sam"))).status, 404); // nothing known yet

        const ApiReply made = m_harness.refundAtPaysim(QStringLiteral("charge=%1&amount=1000").arg(charge).toLatin1(),
                                                       "dashboard-refund-1", "sk_test_dashboard");
        QVERIFY2(made.status == 200, made.body.constData());
        const QString refund = made.json.value(QStringLiteral("id")).toString();
        QVERIFY(refund.startsWith(QLatin1String("re_")));

        QTRY_COMPARE_WITH_TIMEOUT(m_client->get(QStringLiteral("/charges/") + charge, token(QStringLiteral("sam"))).status, 200, 15000);
        const QJsonArray events = m_client->get(QStringLiteral("/charges/") + charge, token(QStringLiteral("sam")))
                                      .json.value(QStringLiteral("unmatched_refund_events")).toArray();
        QVERIFY(!events.isEmpty());
        bool created = false;
        for (const QJsonValue &value : events) {
            const QJsonObject event = value.toObject();
            QCOMPARE(event.value(QStringLiteral("refund_id")).toString(), refund);
            QVERIFY(event.value(QStringLiteral("event_id")).toString().startsWith(QLatin1String("evt_")));
            QVERIFY(event.value(QStringLiteral("received_at")).isString());
            QCOMPARE(event.value(QStringLiteral("amount")).toInteger(), 1000);
            QCOMPARE(event.value(QStringLiteral("currency")).toString(), QStringLiteral("usd"));
            QCOMPARE(event.value(QStringLiteral("named_action")).toString(), QString());
            if (event.value(QStringLiteral("type")).toString() == u"refund.created") {
                created = true;
                QCOMPARE(event.value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
            }
        }
        QVERIFY(created);
        const ApiReply agent = m_client->get(QStringLiteral("/charges/") + charge, token(QStringLiteral("agent-7")));
        QCOMPARE(agent.status, 403);
    }
};

QTEST_GUILESS_MAIN(TestApiSettlement)
#include "tst_api_settlement.moc"
