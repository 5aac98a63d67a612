// Issue 33 through the HTTP API only: countersignd's own executor completes a refund at a real
// paysim; paysim then holds a second refund carrying the same action's id (what a resend the
// provider took as new leaves behind). A supervisor's look-up shows both: the action stays
// COMPLETED and carries an open discrepancy — in its detail, its list row, counts.discrepancies and
// ?discrepancy=open (with its own cursor) — that a supervisor closes with a note (every refusal
// first); the close is idempotent, audited, and a second one is refused.
#include "tests/api/apitestsupport.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

class TestApiDiscrepancy : public QObject
{
    Q_OBJECT

private:
    ApiHarness m_harness;
    std::unique_ptr<ApiClient> m_client;
    QString m_twice, m_once; // agent-7's action with two refunds at paysim; agent-8's with one

    QString token(const QString &user) const { return m_harness.token(user); }
    ApiReply detail(const QString &id, const QString &user = QStringLiteral("sam"))
    {
        return m_client->get(QStringLiteral("/actions/") + id, token(user));
    }
    QJsonObject discrepancyOf(const QString &id) { return detail(id).json.value(QStringLiteral("discrepancy")).toObject(); }
    qint64 discrepancyCount(const QString &user)
    {
        const ApiReply list = m_client->get(QStringLiteral("/actions?limit=1"), token(user));
        return list.json.value(QStringLiteral("counts")).toObject().value(QStringLiteral("discrepancies")).toInteger(-1);
    }
    QStringList listIds(const QString &query, const QString &user)
    {
        const ApiReply page = m_client->get(QStringLiteral("/actions?") + query, token(user));
        QStringList ids;
        for (const QJsonValue &row : page.json.value(QStringLiteral("data")).toArray())
            ids << row.toObject().value(QStringLiteral("id")).toString();
        return ids;
    }
    // Proposed on a fresh charge by `agent`, approved by ana, COMPLETED by countersignd's executor.
    QString completed(const QString &agent, qint64 amount, const QString &reference, QString *charge)
    {
        *charge = m_harness.seedCharge(amount * 3);
        const ApiReply proposed = m_client->propose(token(agent), ApiClient::proposal(reference, amount, *charge));
        if (proposed.status != 201)
            return QString();
        const QString id = proposed.json.value(QStringLiteral("id")).toString();
        if (m_client->approve(token(QStringLiteral("ana")), id, proposed.ifMatch(), "approve-" + reference.toLatin1()).status != 200)
            return QString();
        QElapsedTimer waited;
        waited.start();
        while (detail(id).json.value(QStringLiteral("state")).toString() != u"COMPLETED" && waited.elapsed() < 15000)
            QTest::qWait(50);
        return id;
    }
    ApiReply close(const QString &id, const QString &user, const QByteArray &ifMatch, const QByteArray &body,
                   const QByteArray &key = {})
    {
        Headers headers = {{"Content-Type", "application/json"}};
        if (!ifMatch.isEmpty())
            headers.append({"If-Match", ifMatch});
        if (!key.isEmpty())
            headers.append({"Idempotency-Key", key});
        return m_client->postRaw(QStringLiteral("/actions/%1/discrepancy/close").arg(id), token(user), body, headers);
    }
    int auditEvents(const QString &id, const QString &event)
    {
        int n = 0;
        for (const QJsonValue &row : detail(id).json.value(QStringLiteral("audit")).toArray())
            n += row.toObject().value(QStringLiteral("event")).toString() == event ? 1 : 0;
        return n;
    }

private slots:
    void initTestCase()
    {
        ApiHarness::Options options;
        options.withPaysim = true;
        QString error;
        QVERIFY2(m_harness.start(options, &error), qPrintable(error));
        m_client = std::make_unique<ApiClient>(m_harness.api());

        QString twiceCharge, onceCharge;
        m_twice = completed(QStringLiteral("agent-7"), 2000, QStringLiteral("twice"), &twiceCharge);
        m_once = completed(QStringLiteral("agent-8"), 2000, QStringLiteral("once"), &onceCharge);
        QVERIFY(!m_twice.isEmpty() && !m_once.isEmpty());
        QCOMPARE(detail(m_twice).json.value(QStringLiteral("state")).toString(), QStringLiteral("COMPLETED"));
        QVERIFY(detail(m_twice).json.value(QStringLiteral("discrepancy")).isNull());
        QCOMPARE(discrepancyCount(QStringLiteral("sam")), 0);

        // The same refund again at paysim under another key, naming the action: two refunds.
        const QByteArray form = "charge=" + twiceCharge.toLatin1() + "&amount=2000&metadata[countersign_action_id]="
            + m_twice.toLatin1();
        QCOMPARE(m_harness.refundAtPaysim(form, "a-key-countersign-never-minted").status, 200);
        const ApiReply before = detail(m_twice);
        const ApiReply looked = m_client->post(QStringLiteral("/actions/%1/lookups").arg(m_twice), token(QStringLiteral("sam")),
                                               QJsonObject(), {{"If-Match", before.ifMatch()}});
        QVERIFY2(looked.status == 200, looked.body.constData());
    }

    void cleanupTestCase()
    {
        QVERIFY2(m_harness.countersignd().stop(), m_harness.countersignd().standardError().constData());
    }

    void shownInTheDetailRowsAndCounts()
    {
        const QJsonObject d = discrepancyOf(m_twice);
        QCOMPARE(d.value(QStringLiteral("kind")).toString(), QStringLiteral("duplicate_refund"));
        QCOMPARE(d.value(QStringLiteral("attention")).toString(), QStringLiteral("open"));
        QCOMPARE(d.value(QStringLiteral("refund_ids")).toArray().size(), 2);
        QCOMPARE(d.value(QStringLiteral("found_by")).toString(), QStringLiteral("sam"));
        QCOMPARE(detail(m_twice).json.value(QStringLiteral("state")).toString(), QStringLiteral("COMPLETED"));
        QCOMPARE(auditEvents(m_twice, QStringLiteral("discrepancy")), 1);
        QVERIFY(discrepancyOf(m_once).isEmpty());

        QCOMPARE(discrepancyCount(QStringLiteral("sam")), 1);
        QCOMPARE(discrepancyCount(QStringLiteral("agent-7")), 1); // an agent counts its own
        QCOMPARE(discrepancyCount(QStringLiteral("agent-8")), 0);
        QCOMPARE(listIds(QStringLiteral("discrepancy=open"), QStringLiteral("sam")), QStringList{m_twice});
        QCOMPARE(listIds(QStringLiteral("discrepancy=open"), QStringLiteral("agent-8")), QStringList());
        QCOMPARE(listIds(QStringLiteral("discrepancy=open&state=PENDING"), QStringLiteral("sam")), QStringList());
        for (const QJsonValue &row : m_client->get(QStringLiteral("/actions?limit=200"), token(QStringLiteral("sam")))
                                         .json.value(QStringLiteral("data")).toArray()) {
            const QJsonObject r = row.toObject();
            QCOMPARE(r.value(QStringLiteral("discrepancy")).toBool(), r.value(QStringLiteral("id")).toString() == m_twice);
        }

        const ApiReply unknown = m_client->get(QStringLiteral("/actions?discrepancy=closed"), token(QStringLiteral("sam")));
        QCOMPARE(unknown.status, 400);
        QCOMPARE(unknown.code(), QStringLiteral("invalid_parameter"));
        // A cursor is bound to the filter it was issued for.
        const ApiReply plain = m_client->get(QStringLiteral("/actions?limit=1"), token(QStringLiteral("sam")));
        const QString cursor = plain.json.value(QStringLiteral("next_cursor")).toString();
        QVERIFY(!cursor.isEmpty());
        const ApiReply mixed = m_client->get(QStringLiteral("/actions?discrepancy=open&limit=1&cursor=") + cursor,
                                             token(QStringLiteral("sam")));
        QCOMPARE(mixed.status, 400);
    }

    void closePermissionAdvice()
    {
        const auto advice = [this](const QString &id, const QString &user) {
            return detail(id, user).json.value(QStringLiteral("permissions")).toObject().value(QStringLiteral("close_discrepancy")).toObject();
        };
        QCOMPARE(advice(m_twice, QStringLiteral("sam")).value(QStringLiteral("allowed")).toBool(), true);
        QCOMPARE(advice(m_twice, QStringLiteral("root")).value(QStringLiteral("allowed")).toBool(), true);
        QCOMPARE(advice(m_twice, QStringLiteral("ana")).value(QStringLiteral("allowed")).toBool(true), false);
        QCOMPARE(advice(m_once, QStringLiteral("sam")).value(QStringLiteral("allowed")).toBool(true), false);
        QVERIFY(!advice(m_once, QStringLiteral("sam")).value(QStringLiteral("reason")).toString().isEmpty());
    }

    void closeRefusals_data()
    {
        QTest::addColumn<QString>("user");
        QTest::addColumn<QString>("ifMatch");
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<int>("status");
        const QByteArray ok = R"({"note":"second refund confirmed with the customer"})";
        QTest::newRow("approver") << "ana" << "current" << ok << 403;
        QTest::newRow("its own agent") << "agent-7" << "current" << ok << 403;
        QTest::newRow("no If-Match") << "sam" << "none" << ok << 428;
        QTest::newRow("stale If-Match") << "sam" << "stale" << ok << 412;
        QTest::newRow("no note") << "sam" << "current" << QByteArray("{}") << 422;
        QTest::newRow("blank note") << "sam" << "current" << QByteArray(R"({"note":"   "})") << 422;
        QTest::newRow("note of 2001 characters") << "sam" << "current" << QByteArray(R"({"note":")" + QByteArray(2001, 'x') + R"("})") << 422;
        QTest::newRow("not JSON") << "sam" << "current" << QByteArray("note=x") << 400;
    }
    void closeRefusals()
    {
        QFETCH(QString, user);
        QFETCH(QString, ifMatch);
        QFETCH(QByteArray, body);
        QFETCH(int, status);
        const ApiReply before = detail(m_twice);
        QByteArray etag = before.ifMatch();
        if (ifMatch == u"none")
            etag.clear();
        else if (ifMatch == u"stale")
            etag = '"' + QByteArray::number(before.stateVersion() - 1) + '"';
        const ApiReply refused = close(m_twice, user, etag, body);
        QVERIFY2(refused.status == status, refused.body.constData());
        QCOMPARE(detail(m_twice).stateVersion(), before.stateVersion());
        QCOMPARE(discrepancyOf(m_twice).value(QStringLiteral("attention")).toString(), QStringLiteral("open"));
    }

    void closeWithoutOneOpenIsIllegal()
    {
        const ApiReply once = detail(m_once);
        const ApiReply refused = close(m_once, QStringLiteral("sam"), once.ifMatch(), R"({"note":"nothing to close"})");
        QCOMPARE(refused.status, 409);
        QCOMPARE(refused.code(), QStringLiteral("illegal_state"));
    }

    void closeDiscrepancy()
    {
        const ApiReply before = detail(m_twice);
        const QByteArray body = R"({"note":"second refund kept as goodwill, ticket 77"})";
        const ApiReply closed = close(m_twice, QStringLiteral("sam"), before.ifMatch(), body, "close-twice-1");
        QVERIFY2(closed.status == 200, closed.body.constData());
        const QJsonObject d = closed.json.value(QStringLiteral("discrepancy")).toObject();
        QCOMPARE(d.value(QStringLiteral("attention")).toString(), QStringLiteral("closed"));
        QCOMPARE(d.value(QStringLiteral("resolved_by")).toString(), QStringLiteral("sam"));
        QCOMPARE(d.value(QStringLiteral("resolution_note")).toString(), QStringLiteral("second refund kept as goodwill, ticket 77"));
        QCOMPARE(closed.json.value(QStringLiteral("action")).toObject().value(QStringLiteral("state")).toString(),
                 QStringLiteral("COMPLETED"));
        QCOMPARE(closed.stateVersion(), before.stateVersion() + 1);

        const ApiReply replayed = close(m_twice, QStringLiteral("sam"), before.ifMatch(), body, "close-twice-1");
        QCOMPARE(replayed.status, 200);
        QCOMPARE(replayed.header("Idempotent-Replayed"), QByteArray("true"));
        QCOMPARE(replayed.json, closed.json);
        QCOMPARE(auditEvents(m_twice, QStringLiteral("discrepancy_closed")), 1);
        QCOMPARE(discrepancyCount(QStringLiteral("sam")), 0);
        QCOMPARE(listIds(QStringLiteral("discrepancy=open"), QStringLiteral("sam")), QStringList());

        const ApiReply again = close(m_twice, QStringLiteral("root"), closed.ifMatch(), R"({"note":"again"})");
        QCOMPARE(again.status, 409);
        QCOMPARE(again.code(), QStringLiteral("illegal_state"));
    }
};

QTEST_GUILESS_MAIN(TestApiDiscrepancy)
#include "tst_api_discrepancy.moc"
