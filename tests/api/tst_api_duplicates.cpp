// Two refunds for one business need through the API (issue 14), with a real countersignd on
// 127.0.0.1 (no provider: no charge is read, the executor is off, nothing is sent): list rows carry
// possible_duplicate / possible_duplicates, the detail's related.possible_duplicates lists the
// other action with its sentence, approving a flagged action without a note is 422 note_required
// with the duplicates listed and nothing written, and with a note it is approved and the note
// stored.
#include "tests/api/apitestsupport.h"

#include <QJsonArray>
#include <QTest>

class TestApiDuplicates : public QObject
{
    Q_OBJECT

private:
    ApiHarness m_harness;
    std::unique_ptr<ApiClient> m_client;

    QString token(const QString &user) const { return m_harness.token(user); }
    ApiReply propose(const QString &agent, const QString &reference, const QString &charge, const QString &order)
    {
        QJsonObject body = ApiClient::proposal(reference, 4000, charge);
        body.insert(QStringLiteral("business_reference"), order);
        return m_client->propose(token(agent), body);
    }
    QJsonObject row(const QString &id)
    {
        const ApiReply list = m_client->get(QStringLiteral("/actions?limit=200"), token(QStringLiteral("ana")));
        for (const QJsonValue &v : list.json.value(QStringLiteral("data")).toArray()) {
            if (v.toObject().value(QStringLiteral("id")).toString() == id)
                return v.toObject();
        }
        return {};
    }
    ApiReply approve(const QString &id, const QByteArray &etag, const QJsonObject &body, const QByteArray &key)
    {
        return m_client->post(QStringLiteral("/actions/%1/approvals").arg(id), token(QStringLiteral("ana")), body,
                              {{"If-Match", etag}, {"Idempotency-Key", key}});
    }

private slots:
    void initTestCase()
    {
        QString error;
        ApiHarness::Options options;
        options.extraServeArguments = {QStringLiteral("--no-executor")};
        QVERIFY2(m_harness.start(options, &error), qPrintable(error));
        m_client = std::make_unique<ApiClient>(m_harness.api());
    }

    void cleanupTestCase()
    {
        QVERIFY2(m_harness.countersignd().stop(), m_harness.countersignd().standardError().constData());
    }

    void flagInListAndDetail()
    {
        const ApiReply first = propose(QStringLiteral("agent-7"), QStringLiteral("dup-a"), QStringLiteral("ch_dupapi1"),
                                       QStringLiteral("order-4821"));
        QCOMPARE(first.status, 201);
        const ApiReply second = propose(QStringLiteral("agent-8"), QStringLiteral("dup-b"), QStringLiteral("ch_dupapi2"),
                                        QStringLiteral("order-4821"));
        QCOMPARE(second.status, 201);
        const ApiReply alone = propose(QStringLiteral("agent-7"), QStringLiteral("dup-c"), QStringLiteral("ch_dupapi3"),
                                       QStringLiteral("order-9999"));
        QCOMPARE(alone.status, 201);
        const QString a = first.json.value(QStringLiteral("id")).toString();
        const QString b = second.json.value(QStringLiteral("id")).toString();
        const QString c = alone.json.value(QStringLiteral("id")).toString();

        QCOMPARE(row(b).value(QStringLiteral("possible_duplicate")).toBool(), true);
        QCOMPARE(row(b).value(QStringLiteral("possible_duplicates")).toInt(), 1);
        QCOMPARE(row(a).value(QStringLiteral("possible_duplicates")).toInt(), 1);
        QCOMPARE(row(c).value(QStringLiteral("possible_duplicate")).toBool(), false);
        QCOMPARE(row(c).value(QStringLiteral("possible_duplicates")).toInt(), 0);

        const ApiReply detail = m_client->get(QStringLiteral("/actions/") + b, token(QStringLiteral("ana")));
        QCOMPARE(detail.status, 200);
        const QJsonArray related = detail.json.value(QStringLiteral("related")).toObject()
                                       .value(QStringLiteral("possible_duplicates")).toArray();
        QCOMPARE(related.size(), 1);
        const QJsonObject other = related.first().toObject();
        QCOMPARE(other.value(QStringLiteral("relation")).toString(), QStringLiteral("possible_duplicate"));
        QCOMPARE(other.value(QStringLiteral("id")).toString(), a);
        QCOMPARE(other.value(QStringLiteral("state")).toString(), QStringLiteral("PENDING"));
        QCOMPARE(other.value(QStringLiteral("amount")).toInt(), 4000);
        QCOMPARE(other.value(QStringLiteral("currency")).toString(), QStringLiteral("usd"));
        QCOMPARE(other.value(QStringLiteral("requested_by")).toString(), QStringLiteral("agent-7"));
        QVERIFY(!other.value(QStringLiteral("created_at")).toString().isEmpty());
        QCOMPARE(other.value(QStringLiteral("same")).toString(), QStringLiteral("business_reference"));
        const QString sentence = other.value(QStringLiteral("sentence")).toString();
        QVERIFY2(sentence.startsWith(QStringLiteral("order order-4821 already has 40.00 USD PENDING by agent-7, ")),
                 qPrintable(sentence));
        QVERIFY2(sentence.endsWith(QStringLiteral(" ago")) || sentence.endsWith(QStringLiteral("just now")),
                 qPrintable(sentence));
        // The one without duplicates has an empty list.
        const ApiReply plain = m_client->get(QStringLiteral("/actions/") + c, token(QStringLiteral("ana")));
        QCOMPARE(plain.json.value(QStringLiteral("related")).toObject().value(QStringLiteral("possible_duplicates")).toArray().size(), 0);
    }

    void approvalNeedsANote()
    {
        const ApiReply first = propose(QStringLiteral("agent-7"), QStringLiteral("note-a"), QStringLiteral("ch_noteapi"),
                                       QStringLiteral("order-n1"));
        const ApiReply second = propose(QStringLiteral("agent-8"), QStringLiteral("note-b"), QStringLiteral("ch_noteapi"),
                                        QStringLiteral("order-n2"));
        QCOMPARE(second.status, 201);
        const QString a = first.json.value(QStringLiteral("id")).toString();
        const QString b = second.json.value(QStringLiteral("id")).toString();
        const QByteArray etag = second.ifMatch();
        const LedgerCounts before = ledgerCounts(m_harness.ledger());

        for (const QJsonObject &body : {QJsonObject{}, QJsonObject{{QStringLiteral("note"), QStringLiteral("  ")}}}) {
            const ApiReply refused = approve(b, etag, body, QByteArrayLiteral("dup-note-") + QByteArray::number(body.size()));
            QCOMPARE(refused.status, 422);
            QCOMPARE(refused.code(), QStringLiteral("note_required"));
            QCOMPARE(refused.json.value(QStringLiteral("errors")).toArray().first().toObject()
                         .value(QStringLiteral("field")).toString(), QStringLiteral("note"));
            const QJsonArray listed = refused.json.value(QStringLiteral("possible_duplicates")).toArray();
            QCOMPARE(listed.size(), 1);
            QCOMPARE(listed.first().toObject().value(QStringLiteral("id")).toString(), a);
            QCOMPARE(listed.first().toObject().value(QStringLiteral("same")).toString(), QStringLiteral("charge"));
        }
        QCOMPARE(ledgerCounts(m_harness.ledger()), before);
        const ApiReply still = m_client->get(QStringLiteral("/actions/") + b, token(QStringLiteral("ana")));
        QCOMPARE(still.ifMatch(), etag);
        QCOMPARE(still.json.value(QStringLiteral("approval_version")).toInt(), 0);

        const QString why = QStringLiteral("two parcels returned separately: both refunds intended");
        const ApiReply approved = approve(b, etag, {{QStringLiteral("note"), why}}, QByteArrayLiteral("dup-note-ok"));
        QCOMPARE(approved.status, 200);
        const ApiReply after = m_client->get(QStringLiteral("/actions/") + b, token(QStringLiteral("ana")));
        const QJsonArray approvals = after.json.value(QStringLiteral("approvals")).toArray();
        QCOMPARE(approvals.size(), 1);
        QCOMPARE(approvals.first().toObject().value(QStringLiteral("note")).toString(), why);
        QCOMPARE(approvals.first().toObject().value(QStringLiteral("decided_by")).toString(), QStringLiteral("ana"));
    }
};

QTEST_GUILESS_MAIN(TestApiDuplicates)
#include "tst_api_duplicates.moc"
