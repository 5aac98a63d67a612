#include "models/refundstatus.h"

#include <QTest>

using namespace cs;

Q_DECLARE_METATYPE(cs::RefundStatus)
Q_DECLARE_METATYPE(cs::RefundEvidence)

// The one table of what a provider refund status proves (models/refundstatus.h). Every place
// that decides "committed or not" asks this rule; a row here changing is a behaviour change.
class TestRefundStatus : public QObject
{
    Q_OBJECT
private slots:
    void rule_data();
    void rule();
};

void TestRefundStatus::rule_data()
{
    QTest::addColumn<QString>("wire");
    QTest::addColumn<RefundStatus>("status");
    QTest::addColumn<RefundEvidence>("evidence");
    QTest::addColumn<bool>("committed");
    QTest::addColumn<bool>("notCommitted");
    using S = RefundStatus;
    using E = RefundEvidence;
    QTest::newRow("pending") << "pending" << S::Pending << E::Committed << true << false;
    QTest::newRow("succeeded") << "succeeded" << S::Succeeded << E::Committed << true << false;
    QTest::newRow("requires_action") << "requires_action" << S::RequiresAction << E::Unsettled << false << false;
    QTest::newRow("failed") << "failed" << S::Failed << E::NotCommitted << false << true;
    QTest::newRow("canceled") << "canceled" << S::Canceled << E::NotCommitted << false << true;
    QTest::newRow("cancelled (British)") << "cancelled" << S::Unrecognised << E::Unrecognised << false << false;
    QTest::newRow("SUCCEEDED (case)") << "SUCCEEDED" << S::Unrecognised << E::Unrecognised << false << false;
    QTest::newRow("empty") << "" << S::Unrecognised << E::Unrecognised << false << false;
    QTest::newRow("unknown string") << "processing" << S::Unrecognised << E::Unrecognised << false << false;
}

void TestRefundStatus::rule()
{
    QFETCH(QString, wire);
    QFETCH(RefundStatus, status);
    QFETCH(RefundEvidence, evidence);
    QFETCH(bool, committed);
    QFETCH(bool, notCommitted);
    QCOMPARE(refundStatusFromWire(wire), status);
    QCOMPARE(evidenceOf(status), evidence);
    QCOMPARE(refundEvidence(wire), evidence);
    QCOMPARE(provesCommitted(wire), committed);
    QCOMPARE(provesNotCommitted(wire), notCommitted);
    if (status != RefundStatus::Unrecognised)
        QCOMPARE(toWire(status), wire);
    else
        QVERIFY(toWire(status).isEmpty());
}

QTEST_APPLESS_MAIN(TestRefundStatus)
#include "tst_models_refundstatus.moc"
