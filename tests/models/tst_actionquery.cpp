// The console's mirror of GET /actions (models/actionquery.h): the query parameters it sends, the
// order it keeps live rows in (amount: currency, then minor units, then created_at, then id, all
// in one direction, as the backend's keyset) and which live rows belong in the list (the search's
// text and amount, awaiting=decision) — row by row, as the server decides them
// (tst_ledger_counts checks the server's side against the same rules).
#include "models/actionquery.h"

#include <QTest>

using namespace cs;

Q_DECLARE_METATYPE(cs::ActionState)

namespace {

ActionSummary row(const char *id, qint64 amount, const char *currency, qint64 createdAtMs = 1000,
                  ActionState state = ActionState::Pending)
{
    ActionSummary s;
    s.record.id = QLatin1String(id);
    s.record.amount = amount;
    s.record.currency = QLatin1String(currency);
    s.record.state = state;
    s.record.createdAt = QDateTime::fromMSecsSinceEpoch(createdAtMs, Qt::UTC);
    s.record.targetId = QStringLiteral("ch_abc");
    s.record.businessReference = QStringLiteral("order-x");
    s.record.requestedBy = QStringLiteral("agent-x");
    return s;
}

} // namespace

class TestActionQuery : public QObject
{
    Q_OBJECT

private slots:
    void parameters();
    void amountOrder_data();
    void amountOrder();
    void otherOrdersUnchanged();
    void matchesSearch_data();
    void matchesSearch();
    void matchesAwaitingDecision_data();
    void matchesAwaitingDecision();
    void listRowSaysQueued();
    void equality();
};

void TestActionQuery::parameters()
{
    ActionQuery query = ActionQuery::queue();
    QCOMPARE(query.awaitingParameter(), QString());
    query.awaitingDecision = true;
    QCOMPARE(query.awaitingParameter(), QStringLiteral("decision"));
    QCOMPARE(query.stateParameter(), QStringLiteral("PENDING,CONFIRMATION_UNKNOWN,REQUIRES_REVIEW"));
    query.sort = ActionQuery::SortKey::Amount;
    QCOMPARE(query.sortParameter(), QStringLiteral("-amount"));
    query.descending = false;
    QCOMPARE(query.sortParameter(), QStringLiteral("amount"));
}

void TestActionQuery::amountOrder_data()
{
    QTest::addColumn<ActionSummary>("a");
    QTest::addColumn<ActionSummary>("b");
    QTest::addColumn<bool>("ascendingBefore");  // a before b in sort=amount
    QTest::addColumn<bool>("descendingBefore"); // a before b in sort=-amount

    // ¥5,000 is nominally above $49.99, but jpy sorts before usd: the currency comes first.
    QTest::newRow("jpy before usd, whatever the amounts") << row("act_a", 5000, "jpy") << row("act_b", 4999, "usd") << true << false;
    QTest::newRow("bhd before eur: currency codes in byte order")
        << row("act_a", 1, "eur") << row("act_b", 999999, "bhd") << false << true;
    QTest::newRow("one currency: minor units") << row("act_a", 4000, "usd") << row("act_b", 4001, "usd") << true << false;
    QTest::newRow("10.000 kwd and 10.00 usd: not equal, kwd first")
        << row("act_a", 10000, "kwd") << row("act_b", 1000, "usd") << true << false;
    QTest::newRow("equal amounts: the older first ascending")
        << row("act_a", 4000, "usd", 1000) << row("act_b", 4000, "usd", 2000) << true << false;
    QTest::newRow("equal amounts and times: the id")
        << row("act_a", 4000, "usd", 1000) << row("act_b", 4000, "usd", 1000) << true << false;
    QTest::newRow("the same row: neither") << row("act_a", 4000, "usd") << row("act_a", 4000, "usd") << false << false;
}

// The backend's order for sort=amount: (currency, amount, created_at, id), all in one direction.
void TestActionQuery::amountOrder()
{
    QFETCH(ActionSummary, a);
    QFETCH(ActionSummary, b);
    QFETCH(bool, ascendingBefore);
    QFETCH(bool, descendingBefore);

    ActionQuery query;
    query.sort = ActionQuery::SortKey::Amount;
    query.descending = false;
    QCOMPARE(query.before(a, b), ascendingBefore);
    query.descending = true;
    QCOMPARE(query.before(a, b), descendingBefore);
}

// The currency is part of the amount's key only.
void TestActionQuery::otherOrdersUnchanged()
{
    ActionQuery query;
    query.descending = false;
    const ActionSummary older = row("act_b", 1, "usd", 1000);
    const ActionSummary newer = row("act_a", 1, "jpy", 2000);
    QVERIFY(query.before(older, newer));
    query.sort = ActionQuery::SortKey::AttemptCount;
    QVERIFY(query.before(older, newer));
}

void TestActionQuery::matchesSearch_data()
{
    QTest::addColumn<QString>("search");
    QTest::addColumn<ActionSummary>("row");
    QTest::addColumn<bool>("matches");

    const ActionSummary dollars = row("act_a", 19900, "usd");     // 199.00 usd
    const ActionSummary yen = row("act_b", 199, "jpy");           // 199 jpy
    const ActionSummary moreDollars = row("act_c", 199000, "usd"); // 1,990.00 usd
    const ActionSummary euros = row("act_d", 19950, "eur");       // 199.50 eur
    ActionSummary order = row("act_e", 500, "usd");
    order.record.businessReference = QStringLiteral("ord-199x");

    QTest::newRow("199: 199.00 usd") << "199" << dollars << true;
    QTest::newRow("199: 199 jpy") << "199" << yen << true;
    QTest::newRow("199: not 1,990.00 usd") << "199" << moreDollars << false;
    QTest::newRow("199: order ord-199x by its text") << "199" << order << true;
    QTest::newRow("199.00: 199.00 usd") << "199.00" << dollars << true;
    QTest::newRow("199.00: 199 jpy") << "199.00" << yen << true;
    QTest::newRow("199.00: not the order (no such text)") << "199.00" << order << false;
    QTest::newRow("199.5: 199.50 eur") << "199.5" << euros << true;
    QTest::newRow("199.5: not 199.00 usd") << "199.5" << dollars << false;
    QTest::newRow("1990: 1,990.00 usd") << "1990" << moreDollars << true;
    QTest::newRow("surrounding spaces are trimmed") << " 199 " << yen << true;
    QTest::newRow("a comma is text, not a number") << "199,00" << dollars << false;
    QTest::newRow("a sign is text") << "+199" << dollars << false;
    QTest::newRow("five decimals are text") << "199.00000" << dollars << false;
    QTest::newRow("a trailing dot is text") << "199." << dollars << false;
    QTest::newRow("text still matches") << "ORDER-X" << dollars << true;
}

// The search as the server applies it: a substring of five texts, or the amount a canonical
// number writes, in the row's own currency (Money::searchedTenThousandths).
void TestActionQuery::matchesSearch()
{
    QFETCH(QString, search);
    QFETCH(ActionSummary, row);
    QFETCH(bool, matches);

    ActionQuery query;
    query.search = search;
    QCOMPARE(query.matches(row), matches);
    QCOMPARE(query.matches(row.record), matches);
}

void TestActionQuery::matchesAwaitingDecision_data()
{
    QTest::addColumn<ActionState>("state");
    QTest::addColumn<QString>("key");
    QTest::addColumn<bool>("matches"); // with awaitingDecision

    const QString key = QStringLiteral("csk_act_a_v1_abc");
    QTest::newRow("PENDING, not approved (or 1 of 2 signed): awaits a decision") << ActionState::Pending << QString() << true;
    QTest::newRow("PENDING, approved (key minted): queued, left out") << ActionState::Pending << key << false;
    QTest::newRow("EXECUTING: not affected") << ActionState::Executing << key << true;
    QTest::newRow("CONFIRMATION_UNKNOWN: not affected") << ActionState::ConfirmationUnknown << key << true;
    QTest::newRow("REQUIRES_REVIEW: not affected") << ActionState::RequiresReview << key << true;
    QTest::newRow("COMPLETED: not affected") << ActionState::Completed << key << true;
    QTest::newRow("REJECTED: not affected") << ActionState::Rejected << QString() << true;
}

void TestActionQuery::matchesAwaitingDecision()
{
    QFETCH(ActionState, state);
    QFETCH(QString, key);
    QFETCH(bool, matches);

    ActionSummary summary = row("act_a", 4000, "usd", 1000, state);
    summary.record.idempotencyKey = key;
    ActionQuery query;
    QVERIFY(query.matches(summary)); // without the filter, every row
    query.awaitingDecision = true;
    QCOMPARE(query.matches(summary), matches);
    QCOMPARE(query.matches(summary.record), matches);
    // Combined with the queue's states.
    ActionQuery queue = ActionQuery::queue();
    queue.awaitingDecision = true;
    const bool inQueue = state == ActionState::Pending || state == ActionState::ConfirmationUnknown
        || state == ActionState::RequiresReview;
    QCOMPARE(queue.matches(summary), matches && inQueue);
}

// A list row carries no key: its `queued` says it is approved and waiting for the executor.
void TestActionQuery::listRowSaysQueued()
{
    ActionSummary summary = row("act_a", 4000, "usd");
    ActionQuery query;
    query.awaitingDecision = true;
    QVERIFY(query.matches(summary));
    summary.queued = true;
    QVERIFY(!query.matches(summary));
    query.awaitingDecision = false;
    QVERIFY(query.matches(summary));
    // ActionRecord::isQueued, the rule the ledger's partial index and the row's flag share.
    ActionRecord record = summary.record;
    QVERIFY(!record.isQueued());
    record.idempotencyKey = QStringLiteral("csk_act_a_v1_abc");
    QVERIFY(record.isQueued());
    record.state = ActionState::Executing;
    QVERIFY(!record.isQueued());
}

// A query that only differs by awaitingDecision is another query (the list reloads for it).
void TestActionQuery::equality()
{
    ActionQuery a = ActionQuery::queue();
    ActionQuery b = ActionQuery::queue();
    QVERIFY(a == b);
    b.awaitingDecision = true;
    QVERIFY(!(a == b));
    a.awaitingDecision = true;
    QVERIFY(a == b);
}

QTEST_GUILESS_MAIN(TestActionQuery)
#include "tst_actionquery.moc"
