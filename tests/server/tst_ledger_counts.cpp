// The console's backend reads over a real ledger (server/api/ActionReader, migration 4; a SQLite
// file, or a PostgreSQL database under tst_ledger_counts_postgres):
// the per-state counts kept by triggers equal a GROUP BY after many random operations (also when
// migration 4 runs over existing rows), and the index-backed text search returns exactly what
// the LIKE semantics (case-insensitive substring of five columns, or the amount a number writes)
// return — also when the index is asked only for the parts of the text without near-universal
// trigrams (searchterms.h); every order pages exactly as computed from the base tables (amount:
// by currency, then minor units); awaiting=decision and the queued count leave out / count the
// PENDING actions whose key is minted.
#include "models/money.h"
#include "server/ledger/actionreader.h"
#include "server/ledger/ledger.h"
#include "server/ledger/migrations.h"
#include "server/ledger/searchterms.h"
#include "tests/server/ledgertestsupport.h"
#include "tests/support/testledger.h"

#include <QRandomGenerator>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QSqlRecord>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace cs;
using namespace cs::test;
using namespace std::chrono_literals;

class TestLedgerCounts : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void countsMatchGroupBy_data();
    void countsMatchGroupBy();
    void migrationCountsExistingRows();
    void searchMatchesLikeSemantics_data();
    void searchMatchesLikeSemantics();
    void searchLeavingOutCommonTrigrams_data();
    void searchLeavingOutCommonTrigrams();
    void trigramSampleSpansTheLedger();
    void prepareSearchReadsTheSample();
    void searchMatchesAmounts_data();
    void searchMatchesAmounts();
    void sortMatchesReference_data();
    void sortMatchesReference();
    void awaitingDecisionAndQueuedCount();
    void amountScaledFollowsMoneyExponents();
    void followUpsReadTheirIndex();
    void claimCandidatesReadTheQueueIndex();

private:
    void reopen();
    ActionRecord proposeWith(const QString &agentName, const QString &target, const QString &business,
                             const QString &clientReference, qint64 amount = 4000,
                             const QString &currency = QStringLiteral("usd"));
    void randomOperations(quint32 seed, int operations, int agents);
    void compareCounts();
    QSqlDatabase rawDb();
    // The reference: the original LIKE query, newest first, no index — or'ed with the amount the
    // text writes (Money::searchedTenThousandths), compared with amount and currency (not amount_scaled).
    QStringList likeIds(const QString &text);
    QStringList readerIds(const QString &text, int pageSize,
                          ActionReader::SortKey sort = ActionReader::SortKey::CreatedAt, bool descending = true,
                          const QList<ActionState> &states = {}, bool awaitingDecision = false);
    // The reference order for a sort, computed from the base tables (not the maintained columns).
    QStringList referenceIds(const QString &text, ActionReader::SortKey sort, bool descending,
                             const QList<ActionState> &states, bool awaitingDecision = false);

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<Ledger> m_store;
    const ActionReader *m_reader = nullptr; // the ledger's own
    ManualClock m_clock;
    QString m_path;
    QStringList m_agents;
};

void TestLedgerCounts::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_path = ledgerLocation(m_dir->filePath(QStringLiteral("ledger.db")));
    m_clock = ManualClock();
    reopen();
}

void TestLedgerCounts::reopen()
{
    m_reader = nullptr;
    m_store = std::make_unique<Ledger>();
    Ledger::Options o;
    o.clock = m_clock.clock();
    const LedgerError error = m_store->open(m_path, o);
    QVERIFY2(error.ok(), qPrintable(error.toString()));
    m_reader = &m_store->reader();
}

void TestLedgerCounts::cleanup()
{
    m_reader = nullptr;
    m_store.reset();
    const QString name = QStringLiteral("counts-raw");
    if (QSqlDatabase::contains(name))
        QSqlDatabase::removeDatabase(name);
    m_dir.reset();
}

QSqlDatabase TestLedgerCounts::rawDb()
{
    const QString name = QStringLiteral("counts-raw");
    if (QSqlDatabase::contains(name))
        return QSqlDatabase::database(name);
    QString error;
    QSqlDatabase db = openRawDatabase(m_path, name, &error);
    if (!db.isOpen())
        qWarning("counts-raw: %s", qPrintable(error));
    return db;
}

ActionRecord TestLedgerCounts::proposeWith(const QString &agentName, const QString &target, const QString &business,
                                           const QString &clientReference, qint64 amount, const QString &currency)
{
    ProposalStore::ProposalInput input = sampleInput(clientReference, amount);
    input.currency = currency;
    input.targetId = target;
    input.businessReference = business;
    const auto r = m_store->proposals().propose(input, agentName);
    m_clock.advance(1);
    if (!r.ok()) {
        qWarning() << "propose failed:" << r.error().toString();
        return {};
    }
    return r->record;
}

void TestLedgerCounts::randomOperations(quint32 seed, int operations, int agents)
{
    QRandomGenerator rng(seed);
    // Amounts from their own generator, so the operations are the same as before they varied.
    // The same nominal values in four exponents (usd 1000 = 10.00, jpy 10, bhd 10000 = 10.000,
    // clf 100000 = 10.0000: all 100000 scaled) make ties for the amount sort.
    QRandomGenerator amounts(seed ^ 0x5eedu);
    static const QList<std::pair<QString, qint64>> units = {{QStringLiteral("usd"), 100}, {QStringLiteral("eur"), 100},
                                                            {QStringLiteral("jpy"), 1}, {QStringLiteral("bhd"), 1000},
                                                            {QStringLiteral("clf"), 10000}};
    m_agents.clear();
    for (int i = 0; i < agents; ++i)
        m_agents << QStringLiteral("agent-%1").arg(i);
    QStringList ids;
    QHash<QString, int> openAttempt; // action id -> seq of its open attempt
    for (int op = 0; op < operations; ++op) {
        m_clock.advance(1);
        if (ids.isEmpty() || rng.bounded(4) == 0) {
            const auto &[currency, minorPerMajor] = units.at(amounts.bounded(int(units.size())));
            const ActionRecord r = proposeWith(m_agents.at(rng.bounded(agents)), QStringLiteral("ch_%1").arg(op),
                                               QStringLiteral("order-%1").arg(op), QStringLiteral("ref-%1").arg(op),
                                               (1 + amounts.bounded(5)) * 10 * minorPerMajor, currency);
            QVERIFY(!r.id.isEmpty());
            ids << r.id;
            continue;
        }
        const QString id = ids.at(rng.bounded(int(ids.size())));
        const ActionRecord r = m_store->reader().action(id).value();
        const int choice = rng.bounded(4);
        switch (r.state) {
        case ActionState::Pending:
            if (r.approvalVersion == 0 && choice < 2)
                m_store->approvals().approve(id, approver(), QStringLiteral("ok"), r.stateVersion);
            else if (choice == 0)
                m_store->approvals().reject(id, approver(), QStringLiteral("not_eligible"), QStringLiteral("no"), r.stateVersion);
            else if (choice == 1)
                m_store->execution().transition(id, Trigger::StopForReview, approver(), QStringLiteral("look"));
            else if (const auto c = m_store->execution().claim(id, QStringLiteral("exec-1"), 30s); c.ok())
                openAttempt.insert(id, c->attempt.seq);
            break;
        case ActionState::Executing: {
            ExecutionStore::AttemptResult result;
            const bool done = choice < 2;
            result.outcome = done ? Attempt::Outcome::Succeeded : Attempt::Outcome::Unknown;
            result.httpStatus = done ? 200 : 0;
            m_store->execution().finishAttempt(id, openAttempt.value(id), result,
                                   done ? Trigger::ProviderSucceeded : Trigger::OutcomeUnknown, QStringLiteral("test"),
                                   QStringLiteral("exec-1"));
            break;
        }
        case ActionState::ConfirmationUnknown:
            m_store->execution().transition(id, Trigger::StopForReview, approver(), QStringLiteral("look"));
            break;
        default:
            break; // terminal or review: nothing to do
        }
    }
}

void TestLedgerCounts::compareCounts()
{
    QSqlDatabase db = rawDb();
    QVERIFY(db.isOpen());
    QStringList requesters = m_agents;
    requesters << QString() << QStringLiteral("nobody");
    for (const QString &requester : std::as_const(requesters)) {
        const auto counts = m_reader->counts(requester);
        QVERIFY2(counts.ok(), qPrintable(counts.error().toString()));
        QMap<QString, qint64> expected;
        QSqlQuery q(db);
        if (requester.isEmpty()) {
            QVERIFY(q.exec(QStringLiteral("SELECT state, COUNT(*) FROM actions GROUP BY state")));
        } else {
            q.prepare(QStringLiteral("SELECT state, COUNT(*) FROM actions WHERE requested_by = ? GROUP BY state"));
            q.addBindValue(requester);
            QVERIFY(q.exec());
        }
        while (q.next())
            expected.insert(q.value(0).toString(), q.value(1).toLongLong());
        QCOMPARE(counts->size(), 6);
        for (auto it = counts->cbegin(); it != counts->cend(); ++it)
            QCOMPARE(it.value(), expected.value(toWire(it.key()), 0));
    }
}

void TestLedgerCounts::countsMatchGroupBy_data()
{
    QTest::addColumn<quint32>("seed");
    QTest::addColumn<int>("operations");
    QTest::addColumn<int>("agents");
    QTest::newRow("empty ledger") << quint32(1) << 0 << 1;
    QTest::newRow("40 operations, 1 agent") << quint32(7) << 40 << 1;
    QTest::newRow("300 operations, 3 agents") << quint32(42) << 300 << 3;
    QTest::newRow("600 operations, 5 agents") << quint32(20261130) << 600 << 5;
}

void TestLedgerCounts::countsMatchGroupBy()
{
    QFETCH(quint32, seed);
    QFETCH(int, operations);
    QFETCH(int, agents);
    randomOperations(seed, operations, agents);
    compareCounts();
    if (operations >= 300) {
        // The operations reached most states (the comparison is not vacuous).
        const auto counts = m_reader->counts(QString());
        int nonZero = 0;
        for (qint64 n : counts.value())
            nonZero += n > 0 ? 1 : 0;
        QVERIFY2(nonZero >= 5, qPrintable(QString::number(nonZero)));
    }
}

// Migrations 4 and 5 over a ledger that already has rows: the counts, the index and the sort
// columns start exact.
void TestLedgerCounts::migrationCountsExistingRows()
{
    SKIP_ON_POSTGRES("undoes SQLite's migrations 4 to 15 by hand (DROP TRIGGER, DROP COLUMN on the SQLite schema)");
    randomOperations(5, 200, 2);
    m_reader = nullptr;
    m_store.reset();
    {
        QSqlDatabase db = rawDb();
        {
            QSqlQuery q(db);
            for (const char *sql : {"DROP INDEX actions_queued", "DROP INDEX actions_by_amount_scaled",
                                    "DROP INDEX actions_by_currency_amount",
                                    "CREATE INDEX actions_by_amount ON actions (amount_scaled, created_at, id, state)",
                                    "DELETE FROM schema_version WHERE version = 17",
                                    "DROP TABLE readiness_probe", "DELETE FROM schema_version WHERE version = 16",
                                    "DROP TRIGGER discrepancies_final_only", "DROP TRIGGER discrepancies_no_delete",
                                    "DROP TABLE discrepancies", "DELETE FROM schema_version WHERE version = 15",
                                    "DROP TRIGGER settlements_completed_only", "DROP TRIGGER settlements_forward_only",
                                    "DROP TRIGGER settlements_no_delete", "DROP TRIGGER settlement_changes_no_update",
                                    "DROP TRIGGER settlement_changes_no_delete", "DROP TABLE settlement_changes",
                                    "DROP TABLE settlements", "DROP INDEX webhook_events_by_charge",
                                    "ALTER TABLE webhook_events DROP COLUMN charge_id",
                                    "ALTER TABLE webhook_events DROP COLUMN refund_id",
                                    "ALTER TABLE webhook_events DROP COLUMN summary",
                                    "ALTER TABLE lookups DROP COLUMN failure_reason",
                                    "DELETE FROM schema_version WHERE version = 14",
                                    "DROP TRIGGER actions_key_cleared_by_expiry", "DROP TABLE approval_expiries",
                                    "ALTER TABLE approvals DROP COLUMN expires_at",
                                    "DELETE FROM schema_version WHERE version = 13",
                                    "DROP TABLE execution_pauses", "DELETE FROM schema_version WHERE version = 12",
                                    "DROP TABLE approval_signatures", "DROP TABLE policy_versions",
                                    "ALTER TABLE approvals DROP COLUMN policy_version",
                                    "ALTER TABLE approvals DROP COLUMN rule_id", "ALTER TABLE approvals DROP COLUMN signers",
                                    "DELETE FROM schema_version WHERE version = 11",
                                    "DROP TRIGGER actions_reasons_frozen", "ALTER TABLE actions DROP COLUMN justification",
                                    "ALTER TABLE actions DROP COLUMN context_url", "ALTER TABLE actions DROP COLUMN facts",
                                    "ALTER TABLE approvals DROP COLUMN rejection_reason",
                                    "DELETE FROM schema_version WHERE version = 10",
                                    "DROP TABLE charge_snapshots", "DROP TABLE charges",
                                    "DELETE FROM schema_version WHERE version = 9",
                                    "ALTER TABLE users DROP COLUMN token_created_at",
                                    "ALTER TABLE users DROP COLUMN expires_at", "ALTER TABLE users DROP COLUMN last_used_at",
                                    "DELETE FROM schema_version WHERE version = 8",
                                    "DELETE FROM schema_version WHERE version = 7",
                                    "DELETE FROM schema_version WHERE version = 6", "DROP TRIGGER actions_attempt_count", "DROP TRIGGER actions_last_event",
                                    "DROP INDEX actions_by_amount", "DROP INDEX actions_by_attempts",
                                    "DROP INDEX actions_by_last_event", "ALTER TABLE actions DROP COLUMN amount_scaled",
                                    "ALTER TABLE actions DROP COLUMN attempt_count",
                                    "ALTER TABLE actions DROP COLUMN last_event_at",
                                    "DELETE FROM schema_version WHERE version = 5",
                                    "DROP TRIGGER actions_counts_insert", "DROP TRIGGER actions_counts_update",
                                    "DROP TRIGGER actions_search_insert", "DROP TRIGGER actions_search_update",
                                    "DROP TABLE action_state_counts", "DROP TABLE action_requester_state_counts",
                                    "DROP TABLE actions_search", "DELETE FROM schema_version WHERE version = 4"}) {
                QVERIFY2(q.exec(QLatin1String(sql)), qPrintable(q.lastError().text()));
            }
        }
        db.close();
        db = QSqlDatabase();
        QSqlDatabase::removeDatabase(QStringLiteral("counts-raw"));
    }
    reopen();
    QCOMPARE(m_store->schemaVersion(), Migrations::latestVersion());
    compareCounts();
    for (auto key : {ActionReader::SortKey::AttemptCount, ActionReader::SortKey::LastEventAt, ActionReader::SortKey::Amount})
        QCOMPARE(readerIds(QString(), 50, key, true), referenceIds(QString(), key, true, {}));
    // Migration 17's indexes over the existing rows: the approved PENDING ones are left out and counted.
    QCOMPARE(readerIds(QString(), 7, ActionReader::SortKey::Amount, false, {}, true),
             referenceIds(QString(), ActionReader::SortKey::Amount, false, {}, true));
    QCOMPARE(m_reader->queuedCount(QString()).value(),
             qint64(referenceIds(QString(), ActionReader::SortKey::CreatedAt, true, {ActionState::Pending}).size()
                    - referenceIds(QString(), ActionReader::SortKey::CreatedAt, true, {ActionState::Pending}, true).size()));
    randomOperations(6, 100, 2); // and stay exact afterwards
    compareCounts();
    for (auto key : {ActionReader::SortKey::AttemptCount, ActionReader::SortKey::LastEventAt})
        QCOMPARE(readerIds(QString(), 50, key, false), referenceIds(QString(), key, false, {}));
    QCOMPARE(readerIds(QStringLiteral("ORDER-1"), 7), likeIds(QStringLiteral("ORDER-1")));
}

QStringList TestLedgerCounts::likeIds(const QString &text)
{
    QString pattern = text.toLower();
    pattern.replace(QLatin1Char('\\'), QStringLiteral("\\\\"));
    pattern.replace(QLatin1Char('%'), QStringLiteral("\\%"));
    pattern.replace(QLatin1Char('_'), QStringLiteral("\\_"));
    pattern = QLatin1Char('%') + pattern + QLatin1Char('%');
    QSqlQuery q(rawDb());
    q.prepare(QStringLiteral(
        "SELECT id, amount, currency, CASE WHEN LOWER(id) LIKE ? ESCAPE '\\' OR LOWER(target_id) LIKE ? ESCAPE '\\'"
        " OR LOWER(business_reference) LIKE ? ESCAPE '\\' OR LOWER(requested_by) LIKE ? ESCAPE '\\'"
        " OR LOWER(client_reference) LIKE ? ESCAPE '\\' THEN 1 ELSE 0 END FROM actions ORDER BY created_at DESC, id DESC"));
    for (int i = 0; i < 5; ++i)
        q.addBindValue(pattern);
    QStringList ids;
    if (!q.exec()) {
        qWarning() << q.lastError().text();
        return {QStringLiteral("<query failed>")};
    }
    const std::optional<qint64> amount = Money::searchedTenThousandths(text);
    while (q.next()) {
        qint64 scale = 1;
        for (int i = Money::exponent(q.value(2).toString()); i < 4; ++i)
            scale *= 10;
        if (q.value(3).toInt() == 1 || (amount && q.value(1).toLongLong() * scale == *amount))
            ids << q.value(0).toString();
    }
    return ids;
}

QStringList TestLedgerCounts::readerIds(const QString &text, int pageSize, ActionReader::SortKey sort,
                                        bool descending, const QList<ActionState> &states, bool awaitingDecision)
{
    ActionReader::ListQuery query;
    query.text = text;
    query.limit = pageSize;
    query.sort = sort;
    query.descending = descending;
    query.states = states;
    query.awaitingDecision = awaitingDecision;
    QStringList ids;
    for (int page = 0; page < 1000; ++page) {
        const auto result = m_reader->list(query);
        if (!result.ok()) {
            qWarning() << result.error().toString();
            return {QStringLiteral("<list failed>")};
        }
        for (const ActionReader::Summary &s : result->rows)
            ids << s.record.id;
        if (!result->hasMore)
            break;
        query.continueAfter(result->rows.constLast());
    }
    return ids;
}

void TestLedgerCounts::searchMatchesLikeSemantics_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("mustMatch"); // client references that must be in the result, |-separated
    QTest::addColumn<int>("exactly");           // expected number of rows, -1: whatever LIKE says

    QTest::newRow("id, upper case") << "@ID" << "ref_one" << 1;
    QTest::newRow("target id, mixed case") << "abcDEF" << "ref_one" << 1;
    QTest::newRow("business reference, upper case") << "ORDER-1" << "ref_one" << 1;
    QTest::newRow("business reference, other row") << "order-2" << "Ref\"Quote\"" << 1;
    QTest::newRow("requested_by, lower case") << "bob.smith" << "Ref\"Quote\"" << 1;
    QTest::newRow("requested_by, shared") << "AGENT-7" << "ref_one|r3" << 2;
    QTest::newRow("client reference") << "REF_" << "ref_one" << 1;
    QTest::newRow("double quotes in the text") << "\"quote\"" << "Ref\"Quote\"" << 1;
    QTest::newRow("a lone double quote") << "f\"q" << "Ref\"Quote\"" << 1;
    QTest::newRow("single quote") << "o'b" << "o'brien" << 1;
    QTest::newRow("percent is literal") << "100%" << "ref_one" << 1;
    QTest::newRow("percent in the middle") << "0%-d" << "50%-discount" << 1;
    QTest::newRow("underscore is literal") << "r_s" << "r3" << 1;
    QTest::newRow("backslash is literal") << "a\\b" << "a\\b" << 1;
    QTest::newRow("fts syntax is literal") << "NEAR(x" << "near(x y)" << 1;
    QTest::newRow("asterisk is literal") << "x*y" << "" << 0;
    QTest::newRow("no match") << "nomatch-at-all" << "" << 0;
    QTest::newRow("2 characters: fallback") << "zZ" << "50%-discount" << -1;
    QTest::newRow("1 character: fallback") << "%" << "ref_one|50%-discount" << -1;
    QTest::newRow("common text: many rows, paged") << "bulk-" << "" << 30;
    QTest::newRow("common 2 characters, paged") << "bu" << "" << -1;
}

void TestLedgerCounts::searchMatchesLikeSemantics()
{
    QFETCH(QString, text);
    QFETCH(QString, mustMatch);
    QFETCH(int, exactly);

    const ActionRecord first = proposeWith(agent(), QStringLiteral("ch_AbcDef001"), QStringLiteral("Order-100%off"),
                                           QStringLiteral("ref_one"));
    QVERIFY(!first.id.isEmpty());
    QVERIFY(!proposeWith(QStringLiteral("Bob.Smith"), QStringLiteral("ch_xyz"), QStringLiteral("ORDER-200"),
                         QStringLiteral("Ref\"Quote\"")).id.isEmpty());
    QVERIFY(!proposeWith(agent(), QStringLiteral("pi_under_score"), QStringLiteral("ord3"), QStringLiteral("r3"))
                 .id.isEmpty());
    QVERIFY(!proposeWith(QStringLiteral("carol"), QStringLiteral("ch_zzz"), QStringLiteral("plain"),
                         QStringLiteral("50%-discount")).id.isEmpty());
    QVERIFY(!proposeWith(QStringLiteral("dave"), QStringLiteral("ch_q1"), QStringLiteral("plain"),
                         QStringLiteral("o'brien")).id.isEmpty());
    QVERIFY(!proposeWith(QStringLiteral("dave"), QStringLiteral("ch_q2"), QStringLiteral("plain"),
                         QStringLiteral("a\\b")).id.isEmpty());
    QVERIFY(!proposeWith(QStringLiteral("dave"), QStringLiteral("ch_q3"), QStringLiteral("plain"),
                         QStringLiteral("near(x y)")).id.isEmpty());
    for (int i = 0; i < 30; ++i) {
        QVERIFY(!proposeWith(QStringLiteral("erin"), QStringLiteral("ch_b%1").arg(i), QStringLiteral("bulk-%1").arg(i),
                             QStringLiteral("b%1").arg(i)).id.isEmpty());
    }
    if (text == QLatin1String("@ID"))
        text = first.id.toUpper();

    const QStringList expected = likeIds(text);
    for (int pageSize : {1, 3, 50}) {
        const QStringList got = readerIds(text, pageSize);
        QCOMPARE(got, expected);
    }
    if (exactly >= 0)
        QCOMPARE(expected.size(), exactly);
    QSqlQuery q(rawDb());
    for (const QString &reference : mustMatch.split(QLatin1Char('|'), Qt::SkipEmptyParts)) {
        q.prepare(QStringLiteral("SELECT id FROM actions WHERE client_reference = ?"));
        q.addBindValue(reference);
        QVERIFY(q.exec() && q.next());
        QVERIFY2(expected.contains(q.value(0).toString()), qPrintable(reference));
    }
}

void TestLedgerCounts::searchLeavingOutCommonTrigrams_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("expression"); // what the index is asked; empty: not checked
    QTest::addColumn<int>("exactly");        // expected number of rows, -1: whatever LIKE says

    // Every business reference reads "ord-00000NN", every client reference "cN-refund-N": "ord",
    // "rd-", "d-0", "-00", "000", "-re", "ref", "efu", "fun", "und", "nd-" are in (nearly) every
    // row, and "004" ("ord-0000040"…"ord-0000049") or "d-4" in 11 of the 81: over 5 %, common.
    QTest::newRow("one order: the decoy is a candidate, not a row") << "ord-0000042" << "\"042\"" << 1;
    QTest::newRow("upper case") << "ORD-0000042" << "\"042\"" << 1;
    QTest::newRow("the order and the decoy") << "rd-0000042" << "\"042\"" << 2;
    QTest::newRow("around common trigrams") << "42-refund-4" << "\"42-\"" << 1;
    QTest::newRow("every trigram common: the whole text") << "ORD-000" << "\"ord-000\"" << 80;
    QTest::newRow("every trigram common, other column") << "-refund-" << "\"-refund-\"" << 80;
    QTest::newRow("nine orders") << "ord-000000" << "" << 9;
    QTest::newRow("no match") << "ord-0009999" << "" << 0;
}

void TestLedgerCounts::searchLeavingOutCommonTrigrams()
{
    QFETCH(QString, text);
    QFETCH(QString, expression);
    QFETCH(int, exactly);

    for (int n = 1; n <= 80; ++n) {
        const QString order = QStringLiteral("ord-%1").arg(n, 7, 10, QLatin1Char('0'));
        QVERIFY(!proposeWith(agent(), QStringLiteral("ch_common%1").arg(n), order, QStringLiteral("c%1-refund-%1").arg(n))
                     .id.isEmpty());
    }
    // Holds "0000042" but not "ord-0000042": found by the index part "042", refused by LIKE.
    QVERIFY(!proposeWith(agent(), QStringLiteral("ch_decoy"), QStringLiteral("xrd-0000042"), QStringLiteral("decoy"))
                 .id.isEmpty());
    m_reader->refreshTrigramSample();
    const std::shared_ptr<const TrigramSample> sample = m_reader->trigramSample();
    QVERIFY(sample);
    QCOMPARE(sample->rows(), 81);
    QVERIFY(sample->isCommon(QStringLiteral("ord")));
    QVERIFY(!sample->isCommon(QStringLiteral("042")));
    if (!expression.isEmpty())
        QCOMPARE(trigramMatchExpression(text, *sample), expression);

    const QStringList expected = likeIds(text);
    for (int pageSize : {1, 7, 50}) {
        const QStringList got = readerIds(text, pageSize);
        QCOMPARE(got, expected);
    }
    if (exactly >= 0)
        QCOMPARE(expected.size(), exactly);
}

// The sample is drawn across the whole ledger, not from its newest rows: a ledger whose 120
// newest rows all read "new-…" and whose 120 older ones "old-…", sampled by 100, has both in
// its sample (by the newest 100 it had no "old-"). A ledger of at most the sample's size is read
// whole. Either way the search's rows are LIKE's.
void TestLedgerCounts::trigramSampleSpansTheLedger()
{
    for (const char *prefix : {"old", "new"}) {
        for (int n = 1; n <= 120; ++n) {
            const QString order = QStringLiteral("%1-%2").arg(QLatin1String(prefix)).arg(n, 7, 10, QLatin1Char('0'));
            QVERIFY(!proposeWith(agent(), QStringLiteral("ch_%1").arg(order), order, QStringLiteral("r-%1").arg(order))
                         .id.isEmpty());
        }
    }
    // "ld-", "ew-", "r-o" and "r-n" hold a '-', which no id has: only the references count.
    m_reader->refreshTrigramSample(100);
    std::shared_ptr<const TrigramSample> sample = m_reader->trigramSample();
    QVERIFY(sample);
    QVERIFY2(sample->rows() >= TrigramSample::kMinimumRows && sample->rows() <= 100,
             qPrintable(QString::number(sample->rows())));
    QVERIFY(sample->rowsContaining(QStringLiteral("ld-")) > 0);
    QVERIFY(sample->rowsContaining(QStringLiteral("ew-")) > 0);
    // Each sampled row once: every row holds "r-o" or "r-n" (client reference) once.
    QCOMPARE(sample->rowsContaining(QStringLiteral("r-o")) + sample->rowsContaining(QStringLiteral("r-n")),
             sample->rows());
    QCOMPARE(readerIds(QStringLiteral("OLD-0000042"), 7), likeIds(QStringLiteral("OLD-0000042")));
    QCOMPARE(likeIds(QStringLiteral("OLD-0000042")).size(), 1);

    m_reader->refreshTrigramSample(240);
    sample = m_reader->trigramSample();
    QCOMPARE(sample->rows(), 240);
    QCOMPARE(sample->rowsContaining(QStringLiteral("ld-")), 120);
    QCOMPARE(sample->rowsContaining(QStringLiteral("ew-")), 120);
}

// countersignd serve asks for the sample when it starts: without it the first search goes with
// none (the whole text asked of the index, common trigrams and all).
void TestLedgerCounts::prepareSearchReadsTheSample()
{
    for (int n = 1; n <= 30; ++n)
        QVERIFY(!proposeWith(agent(), QStringLiteral("ch_p%1").arg(n), QStringLiteral("ord-%1").arg(n),
                             QStringLiteral("p-%1").arg(n)).id.isEmpty());
    reopen(); // a reader that has not searched yet
    QVERIFY(!m_reader->trigramSample());
    m_reader->prepareSearch();
    QTRY_VERIFY_WITH_TIMEOUT(m_reader->trigramSample() != nullptr, 10000);
    QCOMPARE(m_reader->trigramSample()->rows(), 30);
}

QStringList TestLedgerCounts::referenceIds(const QString &text, ActionReader::SortKey sort, bool descending,
                                           const QList<ActionState> &states, bool awaitingDecision)
{
    struct Row
    {
        QString currency; // amount: the first key, the code's byte order
        qint64 key = 0;
        qint64 createdAt = 0;
        QString id;
    };
    QSqlDatabase db = rawDb();
    QSqlQuery q(db);
    if (!q.exec(QStringLiteral("SELECT a.id, a.created_at, a.updated_at, a.amount, a.currency, a.state,"
                               " (SELECT COUNT(*) FROM attempts t WHERE t.action_id = a.id),"
                               " (SELECT MAX(u.at) FROM audit u WHERE u.action_id = a.id), a.idempotency_key"
                               " FROM actions a"))) {
        qWarning() << q.lastError().text();
        return {QStringLiteral("<query failed>")};
    }
    const QStringList matching = text.isEmpty() ? QStringList() : likeIds(text);
    QList<Row> rows;
    while (q.next()) {
        const QString id = q.value(0).toString();
        const auto state = stateFromWire(q.value(5).toString());
        if (!states.isEmpty() && (!state || !states.contains(*state)))
            continue;
        if (!text.isEmpty() && !matching.contains(id))
            continue;
        // Approved and queued for the executor: the key is minted only by the approval that
        // completes it.
        if (awaitingDecision && state == ActionState::Pending && !q.value(8).toString().isEmpty())
            continue;
        Row row;
        row.id = id;
        row.createdAt = q.value(1).toLongLong();
        switch (sort) {
        case ActionReader::SortKey::CreatedAt:
            row.key = row.createdAt;
            break;
        case ActionReader::SortKey::Amount:
            row.currency = q.value(4).toString();
            row.key = q.value(3).toLongLong();
            break;
        case ActionReader::SortKey::AttemptCount:
            row.key = q.value(6).toLongLong();
            break;
        case ActionReader::SortKey::LastEventAt:
            row.key = q.value(7).isNull() ? q.value(2).toLongLong() : q.value(7).toLongLong();
            break;
        }
        rows.append(row);
    }
    std::sort(rows.begin(), rows.end(), [descending](const Row &a, const Row &b) {
        const auto ka = std::tie(a.currency, a.key, a.createdAt, a.id);
        const auto kb = std::tie(b.currency, b.key, b.createdAt, b.id);
        return descending ? kb < ka : ka < kb;
    });
    QStringList ids;
    for (const Row &row : std::as_const(rows))
        ids << row.id;
    return ids;
}

void TestLedgerCounts::searchMatchesAmounts_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("states");   // "" or "PENDING"
    QTest::addColumn<QStringList>("refs"); // the client references of the rows, in any order

    // The actions (searchMatchesAmounts): usd-a 199.00, jpy-a 199, bhd-a 199.000, usd-b 1,990.00,
    // eur-a 199.50, usd-c 19.90, clf-a 0.0199, jpy-b 19, jpy-c 1,990, kwd-a 0.199, usd-d 1.99,
    // and ord-text (order ord-199x, 5.00 usd).
    const QStringList oneNinetyNine = {QStringLiteral("usd-a"), QStringLiteral("jpy-a"), QStringLiteral("bhd-a")};
    QTest::newRow("199: 199.00 usd, 199 jpy, 199.000 bhd by amount, order ord-199x by text")
        << "199" << "" << oneNinetyNine + QStringList{QStringLiteral("ord-text")};
    QTest::newRow("199.00: the amount only (no text holds it)") << "199.00" << "" << oneNinetyNine;
    QTest::newRow("199.0000: four decimals") << "199.0000" << "" << oneNinetyNine;
    QTest::newRow("199 among PENDING: the approved one is PENDING too") << "199" << "PENDING"
        << oneNinetyNine + QStringList{QStringLiteral("ord-text")};
    QTest::newRow("199.5: 199.50 eur") << "199.5" << "" << QStringList{QStringLiteral("eur-a")};
    QTest::newRow("199.50") << "199.50" << "" << QStringList{QStringLiteral("eur-a")};
    QTest::newRow("19.9: 19.90 usd, not 199") << "19.9" << "" << QStringList{QStringLiteral("usd-c")};
    QTest::newRow("1990: 1,990.00 usd and 1,990 jpy") << "1990" << "" << QStringList{QStringLiteral("usd-b"), QStringLiteral("jpy-c")};
    QTest::newRow("0.0199: 0.0199 clf") << "0.0199" << "" << QStringList{QStringLiteral("clf-a")};
    QTest::newRow("0.199: 0.199 kwd") << "0.199" << "" << QStringList{QStringLiteral("kwd-a")};
    QTest::newRow("1.99: 1.99 usd") << "1.99" << "" << QStringList{QStringLiteral("usd-d")};
    QTest::newRow("19, two characters (the walk): 19 jpy by amount, ord-199x by text")
        << "19" << "" << QStringList{QStringLiteral("jpy-b"), QStringLiteral("ord-text")};
    QTest::newRow("5 decimals: not a number, text only") << "199.00000" << "" << QStringList();
    QTest::newRow("a sign: text only") << "+199" << "" << QStringList();
    QTest::newRow("a minus: text only (ord-199x holds it)") << "-199" << "" << QStringList{QStringLiteral("ord-text")};
    QTest::newRow("a comma: text only") << "199,00" << "" << QStringList();
    QTest::newRow("a trailing dot: text only") << "199." << "" << QStringList();
    QTest::newRow("no leading digit: text only") << ".5" << "" << QStringList();
    QTest::newRow("a space: text only") << " 199" << "" << QStringList();
    QTest::newRow("16 digits: text only") << "1990000000000000" << "" << QStringList();
    QTest::newRow("beyond every amount: nothing") << "999999999999999" << "" << QStringList();
}

// q that is a decimal number in canonical form also matches the actions of that many major units
// in their own currency (amount_scaled = v × 10^4), or'ed with the text: by the trigram index's
// path (3 characters or more) and by the walk, paged by 1, 3 and 50.
void TestLedgerCounts::searchMatchesAmounts()
{
    QFETCH(QString, text);
    QFETCH(QString, states);
    QFETCH(QStringList, refs);

    // No digit in a target or a reference but ord-199x's, and ids are base32 (no 0, 1, 8, 9): a
    // row is found by its amount or by ord-199x, never by chance.
    const QList<std::tuple<const char *, qint64, const char *>> actions = {
        {"usd-a", 19900, "usd"}, {"jpy-a", 199, "jpy"},   {"bhd-a", 199000, "bhd"}, {"usd-b", 199000, "usd"},
        {"eur-a", 19950, "eur"}, {"usd-c", 1990, "usd"},  {"clf-a", 199, "clf"},    {"jpy-b", 19, "jpy"},
        {"jpy-c", 1990, "jpy"},  {"kwd-a", 199, "kwd"},   {"usd-d", 199, "usd"},
    };
    for (const auto &[reference, amount, currency] : actions) {
        QVERIFY(!proposeWith(QStringLiteral("agent-x"), QStringLiteral("ch_amt-") + QLatin1String(reference),
                             QStringLiteral("order-x"), QLatin1String(reference), amount, QLatin1String(currency))
                     .id.isEmpty());
    }
    QVERIFY(!proposeWith(QStringLiteral("agent-x"), QStringLiteral("ch_text"), QStringLiteral("ord-199x"),
                         QStringLiteral("ord-text"), 500)
                 .id.isEmpty());
    // One of the 199s approved: still PENDING, still found.
    const ActionRecord approved = m_reader->action(likeIds(QStringLiteral("jpy-a")).value(0)).value();
    QVERIFY(m_store->approvals().approve(approved.id, approver(), QStringLiteral("ok"), approved.stateVersion).ok());

    const QList<ActionState> stateFilter = states.isEmpty() ? QList<ActionState>{} : QList<ActionState>{ActionState::Pending};
    const QStringList expected = referenceIds(text, ActionReader::SortKey::CreatedAt, true, stateFilter);
    for (int pageSize : {1, 3, 50})
        QCOMPARE(readerIds(text, pageSize, ActionReader::SortKey::CreatedAt, true, stateFilter), expected);
    QCOMPARE(readerIds(text, 2, ActionReader::SortKey::Amount, true, stateFilter),
             referenceIds(text, ActionReader::SortKey::Amount, true, stateFilter));
    QStringList found;
    QSqlQuery q(rawDb());
    for (const QString &id : expected) {
        q.prepare(QStringLiteral("SELECT client_reference FROM actions WHERE id = ?"));
        q.addBindValue(id);
        QVERIFY(q.exec() && q.next());
        found << q.value(0).toString();
    }
    found.sort();
    refs.sort();
    QCOMPARE(found, refs);
}

void TestLedgerCounts::sortMatchesReference_data()
{
    QTest::addColumn<int>("sort");
    QTest::addColumn<bool>("descending");
    QTest::addColumn<QString>("filter"); // "", "queue" or a search text
    using Key = ActionReader::SortKey;
    const QList<std::pair<const char *, Key>> keys = {{"created_at", Key::CreatedAt}, {"amount", Key::Amount},
                                                      {"attempt_count", Key::AttemptCount},
                                                      {"last_event_at", Key::LastEventAt}};
    for (const auto &[name, key] : keys) {
        for (bool descending : {true, false}) {
            for (const char *filter : {"", "queue", "order-1", "decisions", "10", "20.0"}) {
                QTest::addRow("%s%s, %s", descending ? "-" : "", name, *filter ? filter : "everything")
                    << int(key) << descending << QString::fromLatin1(filter);
            }
        }
    }
}

// Every order, both directions, with and without filters, paged by 1, 7 and 50: exactly the
// reference order, computed from attempts and audit directly (not from the maintained columns).
void TestLedgerCounts::sortMatchesReference()
{
    QFETCH(int, sort);
    QFETCH(bool, descending);
    QFETCH(QString, filter);
    randomOperations(99, 300, 3);
    const auto key = ActionReader::SortKey(sort);
    // "decisions": the queue without the approved PENDING actions (awaiting=decision); "10": a
    // number, so also the actions of 10 major units in any currency (randomOperations' 10.00 usd,
    // 10 jpy, 10.000 bhd, 10.0000 clf) and the text "10" (order-10, ref-103, …), by the walk (two
    // characters); "20.0": the actions of 20 major units, by the index (no text holds it).
    const bool decisions = filter == u"decisions";
    const QList<ActionState> states = filter == u"queue" || decisions
        ? QList<ActionState>{ActionState::Pending, ActionState::ConfirmationUnknown, ActionState::RequiresReview}
        : QList<ActionState>{};
    const QString text = filter == u"queue" || decisions ? QString() : filter;
    const QStringList expected = referenceIds(text, key, descending, states, decisions);
    QVERIFY2(expected.size() >= 10, qPrintable(QString::number(expected.size()))); // not vacuous
    if (decisions) // not vacuous either: approved PENDING actions were left out
        QVERIFY(expected.size() < referenceIds(text, key, descending, states).size());
    for (int pageSize : {1, 7, 50})
        QCOMPARE(readerIds(text, pageSize, key, descending, states, decisions), expected);
}

// Approved and queued for the executor (the key minted): left out by awaitingDecision in any
// order and with or without states, counted by queuedCount (overall and per requester) until
// claimed. Other states are not affected.
void TestLedgerCounts::awaitingDecisionAndQueuedCount()
{
    const ActionRecord open = proposeWith(agent(), QStringLiteral("ch_w1"), QStringLiteral("o-1"), QStringLiteral("w-1"));
    const ActionRecord approved = proposeWith(agent(), QStringLiteral("ch_w2"), QStringLiteral("o-2"), QStringLiteral("w-2"));
    const ActionRecord other = proposeWith(QStringLiteral("bot-2"), QStringLiteral("ch_w3"), QStringLiteral("o-3"),
                                           QStringLiteral("w-3"));
    const ActionRecord rejected = proposeWith(agent(), QStringLiteral("ch_w4"), QStringLiteral("o-4"), QStringLiteral("w-4"));
    QVERIFY(m_store->approvals().reject(rejected.id, approver(), QStringLiteral("not_eligible"), QStringLiteral("no"),
                                        rejected.stateVersion).ok());
    const QList<ActionState> queue = {ActionState::Pending, ActionState::ConfirmationUnknown, ActionState::RequiresReview};
    using Key = ActionReader::SortKey;
    QCOMPARE(readerIds(QString(), 50, Key::CreatedAt, true, queue, true), (QStringList{other.id, approved.id, open.id}));
    QCOMPARE(m_reader->queuedCount(QString()).value(), qint64(0));

    QVERIFY(m_store->approvals().approve(approved.id, approver(), QStringLiteral("ok"), approved.stateVersion).ok());
    for (Key key : {Key::CreatedAt, Key::Amount, Key::AttemptCount, Key::LastEventAt}) {
        QCOMPARE(readerIds(QString(), 1, key, false, queue, true), referenceIds(QString(), key, false, queue, true));
        QVERIFY(!readerIds(QString(), 50, key, true, queue, true).contains(approved.id));
        QVERIFY(readerIds(QString(), 50, key, true, queue, false).contains(approved.id));
    }
    // Without states: every action but the queued one, the REJECTED one included.
    QCOMPARE(readerIds(QString(), 50, Key::CreatedAt, true, {}, true), (QStringList{rejected.id, other.id, open.id}));
    QCOMPARE(readerIds(QStringLiteral("w-"), 50, Key::CreatedAt, true, queue, true), (QStringList{other.id, open.id}));
    QCOMPARE(m_reader->queuedCount(QString()).value(), qint64(1));
    QCOMPARE(m_reader->queuedCount(agent()).value(), qint64(1));
    QCOMPARE(m_reader->queuedCount(QStringLiteral("bot-2")).value(), qint64(0));

    // Claimed: EXECUTING, no longer queued; awaiting=decision does not leave it out.
    QVERIFY(m_store->execution().claim(approved.id, QStringLiteral("exec-1"), 30s).ok());
    QCOMPARE(m_reader->queuedCount(QString()).value(), qint64(0));
    QCOMPARE(m_reader->queuedCount(agent()).value(), qint64(0));
    QVERIFY(readerIds(QString(), 50, Key::CreatedAt, true, {ActionState::Executing}, true).contains(approved.id));
}

// migration 5's amount_scaled has an exponent for every currency Money knows, the same one.
void TestLedgerCounts::amountScaledFollowsMoneyExponents()
{
    const QStringList currencies = Money::knownCurrencies();
    QCOMPARE(currencies.size(), 165);
    for (const QString &currency : currencies)
        QVERIFY(!proposeWith(agent(), QStringLiteral("ch_") + currency, currency, currency, 7, currency).id.isEmpty());
    QSqlQuery q(rawDb());
    QVERIFY(q.exec(QStringLiteral("SELECT currency, amount_scaled FROM actions")));
    int seen = 0;
    while (q.next()) {
        QCOMPARE(q.value(1).toLongLong(), Money::tenThousandths(7, q.value(0).toString())); // the console's order
        qint64 scale = 1;
        for (int i = Money::exponent(q.value(0).toString()); i < 4; ++i)
            scale *= 10;
        QCOMPARE(q.value(1).toLongLong(), 7 * scale);
        ++seen;
    }
    QCOMPARE(seen, 165);
}

// Migration 7: an action's follow-ups (ActionReader::followUps, read with every detail) come
// from actions_by_parent even after ANALYZE saw only NULL parents. Before it SQLite walked
// actions_by_created over the whole ledger for the ORDER BY (637 ms on 10^6 actions).
void TestLedgerCounts::followUpsReadTheirIndex()
{
    SKIP_ON_POSTGRES("SQLite's query plan (PostgreSQL's statistics count NULLs apart)");
    for (int i = 0; i < 300; ++i) {
        QVERIFY(!proposeWith(agent(), QStringLiteral("ch_f"), QStringLiteral("ord-%1").arg(i), QStringLiteral("f-%1").arg(i), 100,
                             QStringLiteral("usd"))
                     .id.isEmpty());
    }
    QSqlQuery q(rawDb());
    QVERIFY(q.exec(QStringLiteral("ANALYZE")));
    QVERIFY(q.exec(QStringLiteral("EXPLAIN QUERY PLAN SELECT * FROM actions WHERE parent_id = 'act_x' ORDER BY created_at, id")));
    QString plan;
    while (q.next())
        plan += q.value(3).toString() + QLatin1Char('\n');
    QVERIFY2(plan.contains(QLatin1String("actions_by_parent")), qPrintable(plan));
}

// claimNext's candidates are read from actions_by_state_created whatever the statistics say. The
// statistics here are the worst case for it: taken while every action was PENDING, then most of
// them claimed. With `state = 'PENDING' ORDER BY created_at, id` PostgreSQL walked
// actions_by_created from the oldest action (past every claimed one, ~0.7 ms per claim after
// 1,500) under exactly these statistics.
void TestLedgerCounts::claimCandidatesReadTheQueueIndex()
{
    const int n = 200;
    QStringList ids;
    for (int i = 0; i < n; ++i) {
        const ActionRecord r = proposeWith(agent(), QStringLiteral("ch_q"), QStringLiteral("ord-%1").arg(i),
                                           QStringLiteral("q-%1").arg(i), 100 + i, QStringLiteral("usd"));
        QVERIFY(!r.id.isEmpty());
        ids << r.id;
        QVERIFY(m_store->approvals().approve(r.id, approver(), QStringLiteral("ok"), r.stateVersion).ok());
    }
    QSqlQuery q(rawDb());
    QVERIFY2(q.exec(QStringLiteral("ANALYZE")), qPrintable(q.lastError().text()));
    for (int i = 0; i < n - 10; ++i) {
        const auto claimed = m_store->execution().claimNext(QStringLiteral("exec-q"), 60s);
        QVERIFY(claimed.ok() && *claimed);
    }
    const bool postgres = onPostgres();
    const QString sql = ExecutionStore::candidateSql(postgres, 1);
    QVERIFY2(q.exec((postgres ? QStringLiteral("EXPLAIN ") : QStringLiteral("EXPLAIN QUERY PLAN ")) + sql
                    + (postgres ? QStringLiteral(" FOR UPDATE OF a SKIP LOCKED") : QString())),
             qPrintable(q.lastError().text()));
    QString plan;
    while (q.next())
        plan += q.value(postgres ? 0 : 3).toString() + QLatin1Char('\n');
    QVERIFY2(plan.contains(QLatin1String("actions_by_state_created")), qPrintable(plan));
    QVERIFY2(!plan.contains(QLatin1String("actions_by_created")), qPrintable(plan));
    // The candidate is the oldest action not claimed yet, with no attempt (the count is its last
    // column).
    QVERIFY(q.exec(sql));
    QVERIFY(q.next());
    QCOMPARE(q.value(0).toString(), ids.at(n - 10));
    QCOMPARE(q.value(q.record().count() - 1).toInt(), 0);
    QVERIFY(!q.next());
}

QTEST_GUILESS_MAIN(TestLedgerCounts)
#include "tst_ledger_counts.moc"
