// Issue 12: no input the API accepts can make `countersignd audit verify` fail, and what is read
// back is what was accepted. Generated inputs (seeded, bounded: a few seconds) through the real
// ledger write path: every text field of a proposal, an approval note, a rejection reason.
//
// - acceptedTextRoundTrips: text the API's rules accept (BodyReader::textProblem): random
//   Unicode with astral characters, combining marks, RTL letters, quotes and backslashes, \n and
//   \t in notes, up to the length limits. verifyAudit() is ok after every write; the record,
//   approvals and audit events read back equal what went in; every row's AuditEvent::chainHash
//   equals its stored hash; approving works (the fingerprint survives storage).
// - anyTextKeepsTheChain: any UTF-16 at all, lone surrogates and every control included, straight
//   into the ledger (below the API's checks): the chain still verifies (the audit hash is over
//   the bytes stored), whatever the text reads back as.

#include "server/api/bodyreader.h"
#include "server/ledger/ledger.h"
#include "tests/server/ledgertestsupport.h"
#include "tests/server/randomtext.h"
#include "tests/support/testledger.h"

#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace cs;
using namespace cs::test;

constexpr quint32 Seed = 20261201;

class TestAuditProperty : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void acceptedTextRoundTrips();
    void anyTextKeepsTheChain();

private:
    void checkChain(const char *where, int round);

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<Ledger> m_ledger;
    ManualClock m_clock;
};

void TestAuditProperty::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_ledger = std::make_unique<Ledger>();
    Ledger::Options options;
    options.clock = m_clock.clock();
    QVERIFY(m_ledger->open(ledgerLocation(m_dir->filePath(QStringLiteral("ledger.db"))), options).ok());
}

void TestAuditProperty::cleanup()
{
    m_ledger.reset();
    m_dir.reset();
}

void TestAuditProperty::checkChain(const char *where, int round)
{
    const auto v = m_ledger->reader().verifyAudit();
    QVERIFY(v.ok());
    QVERIFY2(v->ok, qPrintable(QStringLiteral("%1, round %2: broken at seq %3: %4")
                                   .arg(QLatin1String(where)).arg(round).arg(v->firstBrokenSeq).arg(v->reason)));
}

void TestAuditProperty::acceptedTextRoundTrips()
{
    QRandomGenerator random(Seed);
    constexpr int Rounds = 60;
    for (int round = 0; round < Rounds; ++round) {
        ProposalStore::ProposalInput input = sampleInput(cs::test::randomText(random, 255, false, false));
        input.businessReference = random.bounded(5) == 0 ? QString() : cs::test::randomText(random, 255, false, false);
        input.note = cs::test::randomText(random, 2000, true, false);
        m_clock.advance(1 + random.bounded(1000));
        const auto proposed = m_ledger->proposals().propose(input, agent());
        QVERIFY2(proposed.ok(), qPrintable(proposed.error().toString()));
        const ActionRecord record = proposed->record;
        checkChain("proposed", round);

        const auto stored = m_ledger->reader().action(record.id);
        QVERIFY(stored.ok());
        QCOMPARE(stored->clientReference, input.clientReference);
        QCOMPARE(stored->businessReference, input.businessReference);

        const QString note = cs::test::randomText(random, 2000, true, false);
        const bool approve = random.bounded(2) == 0;
        const auto decided = approve ? m_ledger->approvals().approve(record.id, approver(), note, record.stateVersion)
                                     : m_ledger->approvals().reject(record.id, approver(), QStringLiteral("not_eligible"), note, record.stateVersion);
        QVERIFY2(decided.ok(), qPrintable(decided.error().toString())); // the fingerprint survived storage
        checkChain(approve ? "approved" : "rejected", round);
        const auto approvals = m_ledger->reader().approvals(record.id);
        QVERIFY(approvals.ok());
        QCOMPARE(approvals->size(), 1);
        QCOMPARE(approvals->constFirst().note, note);

        const auto events = m_ledger->reader().audit(record.id);
        QVERIFY(events.ok());
        QVERIFY(!events->isEmpty());
        QCOMPARE(events->constFirst().reason,
                 QStringLiteral("proposed under client_reference \"%1\": %2").arg(input.clientReference, input.note));
        for (const AuditEvent &e : *events)
            QCOMPARE(e.chainHash(e.prevHash), e.hash);
    }
    const auto v = m_ledger->reader().verifyAudit();
    QVERIFY(v->rowsChecked >= 2 * Rounds);
}

void TestAuditProperty::anyTextKeepsTheChain()
{
    QRandomGenerator random(Seed + 1);
    constexpr int Rounds = 40;
    int loneSurrogates = 0;
    for (int round = 0; round < Rounds; ++round) {
        ProposalStore::ProposalInput input = sampleInput(QStringLiteral("any-%1-").arg(round) + cs::test::randomText(random, 200, true, true));
        input.businessReference = cs::test::randomText(random, 255, true, true);
        input.note = cs::test::randomText(random, 500, true, true);
        loneSurrogates += QString(input.businessReference + input.note).isValidUtf16() ? 0 : 1;
        m_clock.advance(1 + random.bounded(1000));
        const auto proposed = m_ledger->proposals().propose(input, agent());
        if (!proposed.ok()) // the ledger may refuse some text; it must never break the chain
            continue;
        checkChain("proposed", round);
        if (QTest::currentTestFailed())
            return;
        const ActionRecord record = proposed->record;
        const QString note = cs::test::randomText(random, 500, true, true);
        (void)(random.bounded(2) == 0 ? m_ledger->approvals().approve(record.id, approver(), note, record.stateVersion)
                                      : m_ledger->approvals().reject(record.id, approver(), QStringLiteral("not_eligible"), note, record.stateVersion));
        checkChain("decided", round);
        if (QTest::currentTestFailed())
            return;
    }
    QVERIFY(loneSurrogates > Rounds / 2); // the generator did produce the hostile case
    QVERIFY(m_ledger->reader().verifyAudit()->rowsChecked > Rounds);
}

QTEST_GUILESS_MAIN(TestAuditProperty)
#include "tst_audit_property.moc"
