// Two refunds for one business need (issue 14): an action whose charge or business reference
// already has another action that is not REJECTED is a possible duplicate — computed when read
// (ActionReader::possibleDuplicates, list rows' counts), and approving it needs a note
// (ApprovalStore's checkSignable: note_required, nothing written). On a real ledger: a SQLite
// file, or a PostgreSQL database under tst_duplicates_postgres.
#include "server/ledger/ledger.h"
#include "tests/server/ledgertestsupport.h"
#include "tests/support/testledger.h"

#include <QJsonArray>
#include <QRegularExpression>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace cs;
using namespace cs::test;

class TestDuplicates : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void sameChargeIsFlaggedBothWays();
    void sameBusinessReferenceIsFlagged();
    void paymentIntentAndItsChargeShareACharge();
    void rejectedIsNotCounted();
    void followUpChainIsNotADuplicate();
    void listRowsCarryTheCount();
    void approvalNeedsANote();
    void queryReadsOnlyIndexes();

private:
    ActionRecord propose(const QString &ref, const QString &target, const QString &order,
                         const QString &by = agent(), TargetType type = TargetType::Charge);
    QStringList duplicatesOf(const QString &id);

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<Ledger> m_ledger;
    ManualClock m_clock;
    QString m_path;
};

void TestDuplicates::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_path = ledgerLocation(m_dir->filePath(QStringLiteral("ledger.db")));
    const QString &path = m_path;
    QVERIFY(!path.isEmpty());
    m_clock = ManualClock();
    m_ledger = std::make_unique<Ledger>();
    Ledger::Options o;
    o.clock = m_clock.clock();
    const LedgerError e = m_ledger->open(path, o);
    QVERIFY2(e.ok(), qPrintable(e.toString()));
}

void TestDuplicates::cleanup()
{
    m_ledger.reset();
    if (QSqlDatabase::contains(QStringLiteral("dup-plan")))
        QSqlDatabase::removeDatabase(QStringLiteral("dup-plan"));
    m_dir.reset();
}

ActionRecord TestDuplicates::propose(const QString &ref, const QString &target, const QString &order,
                                     const QString &by, TargetType type)
{
    ProposalStore::ProposalInput input = sampleInput(ref, 4000);
    input.targetId = target;
    input.targetType = type;
    input.businessReference = order;
    const auto r = m_ledger->proposals().propose(input, by);
    m_clock.advance(1000);
    if (!r.ok()) {
        qWarning() << "propose failed:" << r.error().toString();
        return {};
    }
    return r->record;
}

QStringList TestDuplicates::duplicatesOf(const QString &id)
{
    const auto d = m_ledger->reader().possibleDuplicates(id);
    if (!d.ok()) {
        qWarning() << "possibleDuplicates failed:" << d.error().toString();
        return {QStringLiteral("<error>")};
    }
    QStringList ids;
    for (const ActionReader::PossibleDuplicate &p : *d)
        ids << p.other.record.id;
    return ids;
}

void TestDuplicates::sameChargeIsFlaggedBothWays()
{
    const ActionRecord a = propose(QStringLiteral("a"), QStringLiteral("ch_dup1"), QStringLiteral("order-1"));
    const ActionRecord b = propose(QStringLiteral("b"), QStringLiteral("ch_dup1"), QStringLiteral("order-2"),
                                   QStringLiteral("agent-8"));
    const ActionRecord other = propose(QStringLiteral("c"), QStringLiteral("ch_other"), QStringLiteral("order-3"));
    QCOMPARE(duplicatesOf(b.id), QStringList{a.id});
    QCOMPARE(duplicatesOf(a.id), QStringList{b.id});
    QCOMPARE(duplicatesOf(other.id), QStringList());
    const auto d = m_ledger->reader().possibleDuplicates(b.id);
    QVERIFY(d.ok());
    QCOMPARE(d->first().of, b.id);
    QVERIFY(!d->first().sameBusinessReference);
    QCOMPARE(d->first().other.record.requestedBy, agent());
}

void TestDuplicates::sameBusinessReferenceIsFlagged()
{
    const ActionRecord a = propose(QStringLiteral("a"), QStringLiteral("ch_r1"), QStringLiteral("order-4821"));
    const ActionRecord b = propose(QStringLiteral("b"), QStringLiteral("ch_r2"), QStringLiteral("order-4821"),
                                   QStringLiteral("returns-agent"));
    const ActionRecord blank1 = propose(QStringLiteral("c"), QStringLiteral("ch_r3"), QString());
    const ActionRecord blank2 = propose(QStringLiteral("d"), QStringLiteral("ch_r4"), QString());
    QCOMPARE(duplicatesOf(a.id), QStringList{b.id});
    const auto d = m_ledger->reader().possibleDuplicates(a.id);
    QVERIFY(d.ok());
    QVERIFY(d->first().sameBusinessReference);
    // An empty business reference is no reference: nothing shared.
    QCOMPARE(duplicatesOf(blank1.id), QStringList());
    QCOMPARE(duplicatesOf(blank2.id), QStringList());
}

void TestDuplicates::paymentIntentAndItsChargeShareACharge()
{
    const ActionRecord onCharge = propose(QStringLiteral("a"), QStringLiteral("ch_pi1"), QStringLiteral("order-a"));
    const ActionRecord onIntent = propose(QStringLiteral("b"), QStringLiteral("pi_pi1"), QStringLiteral("order-b"),
                                          agent(), TargetType::PaymentIntent);
    // Not known to share a charge until the provider said so.
    QCOMPARE(duplicatesOf(onIntent.id), QStringList());
    ChargeSnapshot s;
    s.targetType = TargetType::PaymentIntent;
    s.targetId = QStringLiteral("pi_pi1");
    s.chargeId = QStringLiteral("ch_pi1");
    s.paymentIntentId = QStringLiteral("pi_pi1");
    s.askedBy = QStringLiteral("proposal");
    s.result = ChargeSnapshot::Result::Found;
    s.amount = s.amountCaptured = 9900;
    s.currency = QStringLiteral("usd");
    s.readAt = m_clock.now();
    const auto recorded = m_ledger->charges().record(s);
    QVERIFY2(recorded.ok(), qPrintable(recorded.error().toString()));
    QCOMPARE(duplicatesOf(onIntent.id), QStringList{onCharge.id});
    QCOMPARE(duplicatesOf(onCharge.id), QStringList{onIntent.id});
}

void TestDuplicates::rejectedIsNotCounted()
{
    const ActionRecord a = propose(QStringLiteral("a"), QStringLiteral("ch_rej"), QStringLiteral("order-r"));
    const ActionRecord b = propose(QStringLiteral("b"), QStringLiteral("ch_rej"), QStringLiteral("order-r"));
    QCOMPARE(duplicatesOf(b.id), QStringList{a.id});
    const auto rejected = m_ledger->approvals().reject(a.id, approver(), QStringLiteral("duplicate"), QString(),
                                                       a.stateVersion);
    QVERIFY2(rejected.ok(), qPrintable(rejected.error().toString()));
    QCOMPARE(duplicatesOf(b.id), QStringList());
}

void TestDuplicates::followUpChainIsNotADuplicate()
{
    const ActionRecord parent = propose(QStringLiteral("p"), QStringLiteral("ch_fu"), QStringLiteral("order-f"));
    ProposalStore::ProposalInput input = sampleInput(QStringLiteral("f1"), 500);
    input.targetId = QStringLiteral("ch_fu");
    input.businessReference = QStringLiteral("order-f");
    input.parentId = parent.id;
    const auto f1 = m_ledger->proposals().propose(input, agent());
    QVERIFY2(f1.ok(), qPrintable(f1.error().toString()));
    input.clientReference = QStringLiteral("f2");
    const auto f2 = m_ledger->proposals().propose(input, agent());
    QVERIFY2(f2.ok(), qPrintable(f2.error().toString()));
    QCOMPARE(duplicatesOf(parent.id), QStringList());
    QCOMPARE(duplicatesOf(f1->record.id), QStringList());
    // Another agent's refund of the same order is still flagged for each of them.
    const ActionRecord stranger = propose(QStringLiteral("s"), QStringLiteral("ch_x"), QStringLiteral("order-f"),
                                          QStringLiteral("agent-9"));
    QCOMPARE(duplicatesOf(f2->record.id), QStringList{stranger.id});
    QCOMPARE(duplicatesOf(stranger.id).size(), 3);
}

void TestDuplicates::listRowsCarryTheCount()
{
    const ActionRecord a = propose(QStringLiteral("a"), QStringLiteral("ch_l"), QStringLiteral("order-l"));
    const ActionRecord b = propose(QStringLiteral("b"), QStringLiteral("ch_l"), QStringLiteral("order-m"));
    const ActionRecord c = propose(QStringLiteral("c"), QStringLiteral("ch_n"), QStringLiteral("order-m"));
    const ActionRecord alone = propose(QStringLiteral("d"), QStringLiteral("ch_z"), QStringLiteral("order-z"));
    const auto page = m_ledger->reader().list({});
    QVERIFY2(page.ok(), qPrintable(page.error().toString()));
    QHash<QString, int> counts;
    for (const ActionReader::Summary &s : page->rows)
        counts.insert(s.record.id, s.possibleDuplicates);
    QCOMPARE(counts.value(a.id), 1);
    QCOMPARE(counts.value(b.id), 2); // a by charge, c by reference
    QCOMPARE(counts.value(c.id), 1);
    QCOMPARE(counts.value(alone.id, -1), 0);
    const auto one = m_ledger->reader().summary(b.id);
    QVERIFY(one.ok());
    QCOMPARE(one->possibleDuplicates, 2);
}

void TestDuplicates::approvalNeedsANote()
{
    const ActionRecord a = propose(QStringLiteral("a"), QStringLiteral("ch_n1"), QStringLiteral("order-n"));
    const ActionRecord b = propose(QStringLiteral("b"), QStringLiteral("ch_n1"), QStringLiteral("order-o"),
                                   QStringLiteral("agent-8"));
    for (const QString &blank : {QString(), QStringLiteral("   ")}) {
        const auto refused = m_ledger->approvals().approve(b.id, approver(), blank, b.stateVersion);
        QVERIFY(!refused.ok());
        QCOMPARE(refused.code(), LedgerError::Code::Invalid);
        QCOMPARE(refused.error().detail().value(QStringLiteral("problem")).toString(), QStringLiteral("note_required"));
        const QJsonArray listed = refused.error().detail().value(QStringLiteral("possible_duplicates")).toArray();
        QCOMPARE(listed.size(), 1);
        QCOMPARE(listed.first().toObject().value(QStringLiteral("id")).toString(), a.id);
        QCOMPARE(listed.first().toObject().value(QStringLiteral("requested_by")).toString(), agent());
    }
    // Nothing written.
    const auto unchanged = m_ledger->reader().action(b.id);
    QVERIFY(unchanged.ok());
    QCOMPARE(unchanged->stateVersion, b.stateVersion);
    QCOMPARE(unchanged->approvalVersion, 0);
    const auto none = m_ledger->reader().approvals(b.id);
    QVERIFY(none.ok());
    QVERIFY(none->isEmpty());

    const QString why = QStringLiteral("two items returned: both refunds intended");
    const auto approved = m_ledger->approvals().approve(b.id, approver(), why, b.stateVersion);
    QVERIFY2(approved.ok(), qPrintable(approved.error().toString()));
    QVERIFY(!approved->idempotencyKey.isEmpty());
    const auto stored = m_ledger->reader().approvals(b.id);
    QVERIFY(stored.ok());
    QCOMPARE(stored->size(), 1);
    QCOMPARE(stored->first().note, why);

    // An action with no possible duplicate needs none.
    const ActionRecord alone = propose(QStringLiteral("c"), QStringLiteral("ch_alone"), QStringLiteral("order-alone"));
    const auto plain = m_ledger->approvals().approve(alone.id, approver(), QString(), alone.stateVersion);
    QVERIFY2(plain.ok(), qPrintable(plain.error().toString()));
}

void TestDuplicates::queryReadsOnlyIndexes()
{
    // A few rows of every kind the statement reads, then its plan for a page of ids: each table is
    // reached through an index (SQLite: no SCAN of actions or charge_snapshots; PostgreSQL, with
    // sequential scans priced out: no Seq Scan on them — there is an index path).
    QStringList ids;
    for (int i = 0; i < 20; ++i)
        ids << propose(QStringLiteral("p%1").arg(i), QStringLiteral("ch_plan%1").arg(i % 5),
                       QStringLiteral("order-%1").arg(i % 7)).id;
    QVariantList values;
    const QString sql = ActionReader::possibleDuplicateCountsSql(ids, &values);
    QString error;
    {
        QSqlDatabase db = openRawDatabase(m_path, QStringLiteral("dup-plan"), &error);
        QVERIFY2(db.isValid(), qPrintable(error));
        QSqlQuery q(db);
        const bool postgres = onPostgres();
        if (postgres)
            QVERIFY2(q.exec(QStringLiteral("SET enable_seqscan = off")), qPrintable(q.lastError().text()));
        // EXPLAIN is not a statement PostgreSQL prepares: the ids (act_ and base32) inlined.
        QString inlined = sql;
        for (const QVariant &v : std::as_const(values)) {
            const QString id = v.toString();
            QVERIFY(id.startsWith(QStringLiteral("act_")) && !id.contains(QLatin1Char('\'')));
            inlined.replace(inlined.indexOf(QLatin1Char('?')), 1, QLatin1Char('\'') + id + QLatin1Char('\''));
        }
        QVERIFY(!inlined.contains(QLatin1Char('?')));
        const QString explain = (postgres ? QStringLiteral("EXPLAIN ") : QStringLiteral("EXPLAIN QUERY PLAN ")) + inlined;
        QVERIFY2(q.exec(explain), qPrintable(q.lastError().text()));
        QStringList plan;
        while (q.next())
            plan << q.value(postgres ? 0 : 3).toString();
        const QRegularExpression full(postgres
                                          ? QStringLiteral("Seq Scan on (actions|charge_snapshots)")
                                          : QStringLiteral("^SCAN (a|b|s|actions|charge_snapshots)\\b"));
        for (const QString &line : std::as_const(plan))
            QVERIFY2(!full.match(line).hasMatch(), qPrintable(plan.join(QLatin1Char('\n'))));
        QVERIFY(!plan.isEmpty());
    }
}

QTEST_GUILESS_MAIN(TestDuplicates)
#include "tst_duplicates.moc"
