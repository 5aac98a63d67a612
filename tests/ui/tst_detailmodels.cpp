// The detail pane's models (attempts, lookups, approvals, reconciliations, audit, related,
// payload diff) under QAbstractItemModelTester, the ActionDetail wire format and the follow-up
// remainder.

#include "models/actiondetail.h"
#include "models/actionqueuemodel.h"
#include "models/approvaltablemodel.h"
#include "models/attempttablemodel.h"
#include "models/audittablemodel.h"
#include "models/followupplan.h"
#include "models/lookuptablemodel.h"
#include "models/payloaddiffmodel.h"
#include "models/reconciliationtablemodel.h"
#include "models/relatedactionmodel.h"

#include "tests/ui/fakepagesource.h"

#include <QAbstractItemModelTester>
#include <QItemSelectionModel>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTest>

using namespace cs;

namespace {

const QString Fingerprint = QString(64, QLatin1Char('a'));

QJsonObject detailJson(const char *state = "REQUIRES_REVIEW")
{
    const QByteArray json = R"({
      "id": "act_aaaaaaaaaaaaaaaaaaaaaaaa", "kind": "refund", "state": "%STATE%", "state_version": 6,
      "target": {"charge": "ch_1"}, "amount": 4000, "currency": "usd", "reason": "requested_by_customer",
      "business_reference": "order-1042", "provider": "paysim", "provider_account": "",
      "idempotency_key": "csk_x_v1", "request_fingerprint": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
      "approval_version": 1, "requested_by": "agent-7", "client_reference": "order-1042-refund",
      "parent_id": "", "review_reason": "key window passed", "key_window_ends_at": "2026-11-30T22:00:00.000Z",
      "created_at": "2026-11-29T22:00:00.000Z", "updated_at": "2026-11-29T22:05:00.000Z",
      "attempts": [{"action_id": "act_aaaaaaaaaaaaaaaaaaaaaaaa", "seq": 1, "idempotency_key": "csk_x_v1",
        "request_fingerprint": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        "executor": "w1", "started_at": "2026-11-29T22:01:00.000Z", "finished_at": "2026-11-29T22:01:10.000Z",
        "outcome": "unknown", "http_status": 0, "error_code": "", "provider_request_id": "", "provider_object_id": "",
        "replayed": false, "error_excerpt": "timeout"}],
      "lookups": [
        {"action_id": "act_aaaaaaaaaaaaaaaaaaaaaaaa", "seq": 1, "method": "list_by_metadata", "asked_by": "reconciler",
         "at": "2026-11-29T22:02:00.000Z", "result": "NOT_FOUND", "provider_object_id": "", "status": "", "amount": 0,
         "currency": "", "http_status": 200, "excerpt": ""},
        {"action_id": "act_aaaaaaaaaaaaaaaaaaaaaaaa", "seq": 2, "method": "list_by_metadata", "asked_by": "sue",
         "at": "2026-11-29T22:04:00.000Z", "result": "FOUND", "provider_object_id": "re_1", "status": "succeeded", "amount": 4000,
         "currency": "usd", "http_status": 200, "excerpt": ""}],
      "approvals": [{"action_id": "act_aaaaaaaaaaaaaaaaaaaaaaaa", "version": 1, "decided_by": "ana", "decision": "approved",
        "note": "ok", "idempotency_key": "csk_x_v1", "approved_fingerprint": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        "decided_at": "2026-11-29T22:00:30.000Z"}],
      "reconciliations": [],
      "audit": [{"seq": 10, "action_id": "act_aaaaaaaaaaaaaaaaaaaaaaaa", "at": "2026-11-29T22:05:00.000Z", "actor": "reconciler",
        "event": "state_changed", "reason": "window", "before": {"state": "CONFIRMATION_UNKNOWN"}, "after": {"state": "REQUIRES_REVIEW"},
        "prev_hash": "", "hash": ""}],
      "conflicts": [{"seq": 1, "submitted_by": "agent-7", "at": "2026-11-29T22:03:00.000Z",
        "stored_payload": {"kind": "refund", "target": {"charge": "ch_1"}, "amount": 4000, "currency": "usd", "reason": "", "business_reference": "order-1042"},
        "conflicting_payload": {"kind": "refund", "target": {"charge": "ch_1"}, "amount": 4500, "currency": "usd", "reason": "", "business_reference": "order-1042"}}],
      "related": {"parent": null, "follow_ups": []},
      "permissions": {"approve": {"allowed": false, "reason": "not PENDING"}, "reject": {"allowed": false, "reason": "not PENDING"},
        "lookup": {"allowed": true, "reason": ""}, "reconcile": {"allowed": true, "reason": ""},
        "follow_up": {"allowed": false, "reason": "outcome unknown"}}
    })";
    QByteArray text = json;
    text.replace("%STATE%", state);
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(text, &error);
    Q_ASSERT_X(error.error == QJsonParseError::NoError, "detailJson", qPrintable(error.errorString()));
    return doc.object();
}

ActionDetail detail(const char *state = "REQUIRES_REVIEW")
{
    QString error;
    const std::optional<ActionDetail> d = ActionDetail::fromJson(detailJson(state), &error);
    if (!d)
        qFatal("detail: %s", qPrintable(error));
    return *d;
}

} // namespace

class TestDetailModels : public QObject
{
    Q_OBJECT

private slots:
    void detailWireFormat()
    {
        const ActionDetail d = detail();
        QCOMPARE(d.record.state, ActionState::RequiresReview);
        QCOMPARE(d.record.stateVersion, 6);
        QCOMPARE(d.attempts.size(), 1);
        QCOMPARE(d.lookups.size(), 2);
        QCOMPARE(d.approvals.size(), 1);
        QCOMPARE(d.audit.size(), 1);
        QCOMPARE(d.conflicts.size(), 1);
        QVERIFY(!d.parent);
        QVERIFY(d.keyWindowEndsAt.isValid());
        QVERIFY(!d.permissions.approve.allowed);
        QCOMPARE(d.permissions.approve.reason, QStringLiteral("not PENDING"));
        QVERIFY(d.permissions.reconcile.allowed);
        const ActionSummary summary = d.summary();
        QCOMPARE(summary.attemptCount, 1);
        QCOMPARE(summary.lastEventAt, d.audit.last().at);
        QCOMPARE(d.lookup(2)->providerObjectId, QStringLiteral("re_1"));
        QVERIFY(!d.lookup(3));
    }

    void attemptModel()
    {
        AttemptTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const ActionDetail d = detail();
        model.setRecords(d.attempts);
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.index(0, AttemptTableModel::OutcomeColumn).data().toString(), QStringLiteral("unknown"));
        QCOMPARE(model.index(0, AttemptTableModel::HttpStatusColumn).data().toString(), QStringLiteral("none"));
        QCOMPARE(model.index(0, AttemptTableModel::LatencyColumn).data().toString(), QStringLiteral("10.0 s"));
        QCOMPARE(model.index(0, AttemptTableModel::KeyColumn).data().toString(), QStringLiteral("csk_x_v1"));
        QCOMPARE(model.index(0, AttemptTableModel::FingerprintColumn).data(Qt::ToolTipRole).toString(), Fingerprint);

        // A live refresh that appends an attempt inserts one row; nothing is reset.
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        QVERIFY(inserted.isValid() && reset.isValid() && changed.isValid());
        QList<Attempt> more = d.attempts;
        Attempt second = more.first();
        second.seq = 2;
        second.outcome = Attempt::Outcome::Succeeded;
        second.httpStatus = 200;
        second.replayed = true;
        more.append(second);
        model.setRecords(more);
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(changed.count(), 0);
        QCOMPARE(reset.count(), 0);
        QCOMPARE(model.index(1, AttemptTableModel::ReplayedColumn).data().toString(), QStringLiteral("yes"));

        // A changed row is announced as changed.
        more[0].finishedAt = more[0].finishedAt.addSecs(1);
        model.setRecords(more);
        QCOMPARE(changed.count(), 1);
        model.setRecords({});
        QCOMPARE(model.rowCount(), 0);
    }

    void lookupModel()
    {
        LookupTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setLookups(detail().lookups);
        QCOMPARE(model.rowCount(), 2);
        // Newest first: the FOUND look-up (#2) above the NOT_FOUND one (#1).
        QCOMPARE(model.index(0, LookupTableModel::ResultColumn).data().toString(), QStringLiteral("FOUND"));
        QCOMPARE(model.index(0, LookupTableModel::AmountColumn).data().toString(), QStringLiteral("40.00 USD"));
        QCOMPARE(model.index(1, LookupTableModel::AmountColumn).data().toString(), QString());
        QCOMPARE(model.index(0, 0).data(LookupTableModel::SeqRole).toInt(), 2);
        QVERIFY(LookupTableModel::describe(model.record(0).lookup).startsWith(QStringLiteral("#2 FOUND re_1 succeeded 40.00 USD")));
    }

    // Failures fold under the deciding look-ups; live refreshes insert, fold and move rows, and a
    // selection stays on its look-up.
    void lookupModelFoldsFailures()
    {
        LookupTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const QDateTime t0 = QDateTime(QDate(2026, 11, 29), QTime(13, 18, 22), Qt::UTC);
        const auto lookup = [&](int seq, ProviderLookup::Result result, int http) {
            ProviderLookup l;
            l.actionId = QStringLiteral("act_1");
            l.seq = seq;
            l.at = t0.addSecs(seq * 6);
            l.askedBy = QStringLiteral("reconciler");
            l.result = result;
            l.httpStatus = http;
            if (result == ProviderLookup::Result::Found) {
                l.providerObjectId = QStringLiteral("re_1");
                l.status = QStringLiteral("succeeded");
                l.amount = 4000;
                l.currency = QStringLiteral("usd");
            }
            return l;
        };
        QList<ProviderLookup> lookups { lookup(1, ProviderLookup::Result::NotFound, 200),
                                        lookup(2, ProviderLookup::Result::Error, 503) };
        model.setLookups(lookups);
        QCOMPARE(model.rowCount(), 2);
        QItemSelectionModel selection(&model);
        selection.select(model.index(0, 0), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);

        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        QVERIFY(reset.isValid());
        lookups << lookup(3, ProviderLookup::Result::Error, 503) << lookup(4, ProviderLookup::Result::Found, 200);
        model.setLookups(lookups);
        QCOMPARE(reset.count(), 0);
        QCOMPARE(model.rowCount(), 3); // #4, #1, and #2–#3 folded
        QCOMPARE(model.index(0, 0).data(LookupTableModel::SeqRole).toInt(), 4);
        QCOMPARE(model.index(1, 0).data(LookupTableModel::SeqRole).toInt(), 1);
        QCOMPARE(model.index(2, 0).data(LookupTableModel::SeqRole).toInt(), 0);
        QCOMPARE(model.index(2, 0).data(LookupTableModel::FoldCountRole).toInt(), 2);
        QCOMPARE(model.index(2, LookupTableModel::ResultColumn).data().toString(), QStringLiteral("2 look-ups failed (HTTP 503)"));
        QVERIFY(!(model.flags(model.index(2, 0)) & Qt::ItemIsSelectable));
        QVERIFY(model.flags(model.index(1, 0)) & Qt::ItemIsSelectable);
        const QString tip = model.index(2, LookupTableModel::ResultColumn).data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(QStringLiteral("#2  ")) && tip.contains(QStringLiteral("#3  ")), qPrintable(tip));
        // The selection followed #1 to its new row.
        QCOMPARE(selection.selectedRows().size(), 1);
        QCOMPARE(selection.selectedRows().first().data(LookupTableModel::SeqRole).toInt(), 1);
        QCOMPARE(model.rowOfSeq(1), 1);
        QCOMPARE(model.rowOfSeq(2), -1); // folded

        // A failure of another kind, then one more of the folded kind: the fold moves above it
        // (the newest failure first) and what pointed at the other row still does.
        lookups << lookup(5, ProviderLookup::Result::Error, 500);
        model.setLookups(lookups);
        QCOMPARE(model.index(2, 0).data(LookupTableModel::SeqRole).toInt(), 5);
        const QPersistentModelIndex five = model.index(2, LookupTableModel::ResultColumn);
        QSignalSpy moved(&model, &QAbstractItemModel::layoutChanged);
        QVERIFY(moved.isValid());
        lookups << lookup(6, ProviderLookup::Result::Error, 503);
        model.setLookups(lookups);
        QCOMPARE(moved.count(), 1);
        QCOMPARE(model.rowCount(), 4);
        QCOMPARE(model.index(2, 0).data(LookupTableModel::FoldCountRole).toInt(), 3);
        QCOMPARE(five.row(), 3);
        QCOMPARE(five.data(LookupTableModel::SeqRole).toInt(), 5);
        QCOMPARE(reset.count(), 0);
    }

    void approvalReconciliationAuditModels()
    {
        const ActionDetail d = detail();
        ApprovalTableModel approvals;
        QAbstractItemModelTester t1(&approvals, QAbstractItemModelTester::FailureReportingMode::QtTest);
        approvals.setRecords(d.approvals);
        QCOMPARE(approvals.index(0, ApprovalTableModel::DecisionColumn).data().toString(), QStringLiteral("approved"));
        // A rejection shows its reason (issue 19); one recorded before reasons existed, none.
        Approval rejected = d.approvals.first();
        rejected.decision = Approval::Decision::Rejected;
        rejected.rejectionReason = QStringLiteral("needs_information");
        Approval older = rejected;
        older.rejectionReason.clear();
        approvals.setRecords({rejected, older});
        // In the reject dialog's words, not the wire code; the note follows it in the tooltip.
        rejected.note = QStringLiteral("which order?");
        approvals.setRecords({rejected, older});
        QCOMPARE(approvals.index(0, ApprovalTableModel::DecisionColumn).data().toString(),
                 QStringLiteral("rejected: Needs information"));
        QCOMPARE(approvals.index(0, ApprovalTableModel::DecisionColumn).data(Qt::ToolTipRole).toString(),
                 QStringLiteral("Needs information: which order?"));
        QCOMPARE(approvals.index(0, ApprovalTableModel::NoteColumn).data().toString(), QStringLiteral("which order?"));
        QCOMPARE(approvals.index(1, ApprovalTableModel::DecisionColumn).data().toString(), QStringLiteral("rejected"));
        // The policy's own approval names its rule and version (auto-approval); one that expired
        // unsent says so (approval expiry, docs/POLICY.md).
        Approval byPolicy = d.approvals.first();
        byPolicy.decidedBy = Approval::policyApprover();
        byPolicy.ruleId = QStringLiteral("returns-small");
        byPolicy.policyVersion = 3;
        byPolicy.expiredAt = byPolicy.decidedAt.addSecs(3600);
        approvals.setRecords({byPolicy, d.approvals.first()});
        QCOMPARE(approvals.index(0, ApprovalTableModel::DecidedByColumn).data().toString(),
                 QStringLiteral("the policy (rule returns-small, v3)"));
        QCOMPARE(approvals.index(0, ApprovalTableModel::DecisionColumn).data().toString(),
                 QStringLiteral("approved, expired unsent"));
        QCOMPARE(approvals.index(1, ApprovalTableModel::DecidedByColumn).data().toString(), d.approvals.first().decidedBy);
        QCOMPARE(approvals.index(1, ApprovalTableModel::DecisionColumn).data().toString(), QStringLiteral("approved"));
        approvals.setRecords(d.approvals);

        ReconciliationTableModel reconciliations;
        QAbstractItemModelTester t2(&reconciliations, QAbstractItemModelTester::FailureReportingMode::QtTest);
        Reconciliation r;
        r.actionId = d.record.id;
        r.seq = 1;
        r.outcome = Reconciliation::Outcome::NotCommitted;
        r.evidenceLookupSeq = 1;
        reconciliations.setRecords({ r });
        QCOMPARE(reconciliations.index(0, ReconciliationTableModel::OutcomeColumn).data().toString(), QStringLiteral("not committed"));
        QCOMPARE(reconciliations.index(0, ReconciliationTableModel::EvidenceColumn).data().toString(), QStringLiteral("lookup #1"));

        AuditTableModel audit;
        QAbstractItemModelTester t3(&audit, QAbstractItemModelTester::FailureReportingMode::QtTest);
        audit.setRecords(d.audit);
        QCOMPARE(audit.index(0, AuditTableModel::ChangeColumn).data().toString(),
                 QStringLiteral("state: CONFIRMATION_UNKNOWN \u2192 REQUIRES_REVIEW"));
    }

    void relatedModel()
    {
        ActionDetail d = detail("COMPLETED");
        ActionSummary followUp = d.summary();
        followUp.record.id = QStringLiteral("act_bbbbbbbbbbbbbbbbbbbbbbbb");
        followUp.record.amount = 500;
        followUp.record.state = ActionState::Pending;
        d.followUps = { followUp };
        RelatedActionModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setDetail(d);
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.index(0, RelatedActionModel::RelationColumn).data().toString(), QStringLiteral("follow-up"));
        QCOMPARE(model.index(0, RelatedActionModel::AmountColumn).data().toString(), QStringLiteral("5.00 USD"));
        QCOMPARE(model.index(0, 0).data(RelatedActionModel::ActionIdRole).toString(), followUp.record.id);
    }

    void payloadDiff()
    {
        const ActionDetail d = detail();
        PayloadDiffModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setPayloads(d.conflicts.first().storedPayload, d.conflicts.first().conflictingPayload);
        QCOMPARE(model.changedCount(), 1);
        QStringList fields;
        for (const PayloadDiffModel::Row &row : model.rows())
            fields << row.field;
        // Reading order; "reason" is empty on both sides and says nothing, so it is left out.
        QCOMPARE(fields, (QStringList{ QStringLiteral("kind"), QStringLiteral("target.charge"), QStringLiteral("amount"),
                                       QStringLiteral("currency"), QStringLiteral("business_reference") }));
        const int amountRow = int(fields.indexOf(QStringLiteral("amount")));
        QVERIFY(model.index(amountRow, 0).data(PayloadDiffModel::ChangedRole).toBool());
        QCOMPARE(model.index(amountRow, PayloadDiffModel::StoredColumn).data().toString(), QStringLiteral("4000  (40.00 USD)"));
        QCOMPARE(model.index(amountRow, PayloadDiffModel::ConflictingColumn).data().toString(), QStringLiteral("4500  (45.00 USD)"));
        QVERIFY(!model.index(0, 0).data(PayloadDiffModel::ChangedRole).toBool());
    }

    void payloadDiffFieldOnOneSideOnly()
    {
        PayloadDiffModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QJsonObject stored{ { QStringLiteral("target"), QJsonObject{ { QStringLiteral("charge"), QStringLiteral("ch_1") } } } };
        QJsonObject conflicting{ { QStringLiteral("target"), QJsonObject{ { QStringLiteral("payment_intent"), QStringLiteral("pi_1") } } } };
        model.setPayloads(stored, conflicting);
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.changedCount(), 2);
        QCOMPARE(model.index(0, PayloadDiffModel::ConflictingColumn).data().toString(), QStringLiteral("(absent)"));
    }

    void followUpRemainder_data()
    {
        QTest::addColumn<QByteArray>("state");
        QTest::addColumn<bool>("foundLookup");
        QTest::addColumn<qint64>("desired");
        QTest::addColumn<bool>("possible");
        QTest::addColumn<qint64>("remainder");
        QTest::newRow("completed, provider found 40.00: 45.00 leaves 5.00") << QByteArray("COMPLETED") << true << qint64(4500) << true << qint64(500);
        QTest::newRow("completed, nothing remains") << QByteArray("COMPLETED") << true << qint64(4000) << true << qint64(0);
        QTest::newRow("rejected: the whole total remains") << QByteArray("REJECTED") << false << qint64(4500) << true << qint64(4500);
        QTest::newRow("requires review: refused") << QByteArray("REQUIRES_REVIEW") << true << qint64(4500) << false << qint64(0);
        QTest::newRow("confirmation unknown: refused") << QByteArray("CONFIRMATION_UNKNOWN") << false << qint64(4500) << false << qint64(0);
        QTest::newRow("pending: refused") << QByteArray("PENDING") << false << qint64(4500) << false << qint64(0);
    }

    void followUpRemainder()
    {
        QFETCH(QByteArray, state);
        QFETCH(bool, foundLookup);
        QFETCH(qint64, desired);
        QFETCH(bool, possible);
        QFETCH(qint64, remainder);
        ActionDetail d = detail(state.constData());
        if (!foundLookup)
            d.lookups.removeLast();
        const FollowUpPlan plan = FollowUpPlan::compute(d);
        QCOMPARE(plan.possible, possible);
        QCOMPARE(plan.remainder(desired).has_value(), possible);
        if (possible)
            QCOMPARE(*plan.remainder(desired), remainder);
        else
            QVERIFY(!plan.blockedReason.isEmpty());
    }

    void followUpCountsEarlierFollowUps()
    {
        ActionDetail d = detail("COMPLETED");
        ActionSummary earlier = d.summary();
        earlier.record.id = QStringLiteral("act_bbbbbbbbbbbbbbbbbbbbbbbb");
        earlier.record.parentId = d.record.id;
        earlier.record.amount = 300;
        earlier.record.state = ActionState::Completed;
        d.followUps = { earlier };
        FollowUpPlan plan = FollowUpPlan::compute(d);
        QVERIFY(plan.possible);
        QCOMPARE(plan.committed, 4300);
        QCOMPARE(*plan.remainder(4500), 200);
        d.followUps[0].record.state = ActionState::Executing;
        plan = FollowUpPlan::compute(d);
        QVERIFY(!plan.possible);
        QVERIFY(plan.blockedReason.contains(earlier.record.id));
    }
    // Every column of every table model has its title, in the order of the model's Column enum,
    // and a section past the last column has none.
    void columnTitles_data()
    {
        QTest::addColumn<QSharedPointer<QAbstractItemModel>>("model");
        QTest::addColumn<QStringList>("titles");
        auto row = [](const char *name, QAbstractItemModel *model, const QStringList &titles) {
            QTest::newRow(name) << QSharedPointer<QAbstractItemModel>(model) << titles;
        };
        auto *source = new FakePageSource;
        auto *queue = new ActionQueueModel(source);
        source->setParent(queue);
        row("queue", queue, { u"State"_qs, u"Amount"_qs, u"Charge"_qs, u"Order"_qs,
            u"Agent"_qs, u"Age"_qs, u"Attempts"_qs, u"Last event"_qs, u"Action"_qs });
        row("attempts", new AttemptTableModel, { u"#"_qs, u"Time"_qs, u"Idempotency key"_qs,
            u"Fingerprint"_qs, u"Outcome"_qs, u"HTTP"_qs, u"Latency"_qs, u"Replayed"_qs,
            u"Provider object"_qs, u"Error"_qs });
        row("lookups", new LookupTableModel, { u"#"_qs, u"Time"_qs, u"Method"_qs, u"Asked by"_qs,
            u"Result"_qs, u"Provider object"_qs, u"Status"_qs, u"Amount"_qs, u"HTTP"_qs });
        row("approvals", new ApprovalTableModel, { u"Version"_qs, u"Time"_qs, u"Decided by"_qs,
            u"Decision"_qs, u"Note"_qs, u"Key minted"_qs, u"Signed fingerprint"_qs });
        row("reconciliations", new ReconciliationTableModel, { u"#"_qs, u"Time"_qs, u"Decided by"_qs,
            u"Outcome"_qs, u"Evidence"_qs, u"Note"_qs });
        row("audit", new AuditTableModel, { u"Seq"_qs, u"Time"_qs, u"Actor"_qs, u"Event"_qs,
            u"Reason"_qs, u"Change"_qs });
        row("related", new RelatedActionModel, { u"Relation"_qs, u"Action"_qs, u"State"_qs,
            u"Amount"_qs, u"Proposed"_qs });
        row("payload diff", new PayloadDiffModel, { u"Field"_qs, u"Stored (what was proposed first)"_qs,
            u"Conflicting resubmission"_qs });
    }

    void columnTitles()
    {
        QFETCH(QSharedPointer<QAbstractItemModel>, model);
        QFETCH(QStringList, titles);
        QCOMPARE(model->columnCount(), titles.size());
        for (int section = 0; section < titles.size(); ++section)
            QCOMPARE(model->headerData(section, Qt::Horizontal).toString(), titles.at(section));
        QVERIFY(!model->headerData(int(titles.size()), Qt::Horizontal).isValid());
        QVERIFY(!model->headerData(-1, Qt::Horizontal).isValid());
        QVERIFY(!model->headerData(0, Qt::Horizontal, Qt::EditRole).isValid());
    }

    // The approver's context as the server writes it (docs/API.md "The charge and the
    // requester's record", "Approval rules: dual control"), read back; and bad input named by
    // the member it is in.
    void decisionContextFromTheWire()
    {
        const QJsonObject charge = QJsonDocument::fromJson(R"({
          "snapshot": {"seq": 3, "target_type": "charge", "target_id": "ch_1", "charge_id": "ch_1", "asked_by": "ana",
                       "read_at": "2026-12-02T06:00:00.000Z", "result": "FOUND", "http_status": 200,
                       "amount": 9900, "amount_captured": 9900, "amount_refunded": 1000, "currency": "usd",
                       "created": "2026-11-01T10:00:00.000Z", "payment_method_brand": "visa",
                       "payment_method_last4": "4242", "disputed": true,
                       "refunds": [{"id": "re_1", "amount": 1000, "status": "succeeded",
                                    "created": "2026-11-02T10:00:00.000Z", "action_id": ""}]},
          "budget": {"stage": "approval", "known": true, "charge_id": "ch_1", "payment_intent_id": "", "currency": "usd",
                     "snapshot_seq": 3, "read_at": "2026-12-02T06:00:00.000Z", "captured": 9900,
                     "refunded_at_provider": 1000, "reserved": 2000, "available": 6900,
                     "reservations": [{"action_id": "act_2", "state": "EXECUTING", "approved": false, "amount": 2000,
                                       "currency": "usd", "requested_by": "agent-2", "created_at": "2026-12-02T05:00:00.000Z"}],
                     "requested": 5000, "requested_currency": "usd", "fits": true},
          "warnings": [{"code": "disputed", "text": "The customer disputed this charge."},
                       {"code": "over_half", "text": "50.00 USD is over half."}]})")
                                         .object();
        QString error;
        const std::optional<ChargeView> view = ChargeView::fromJson(charge, &error);
        QVERIFY2(view, qPrintable(error));
        QCOMPARE(view->snapshotSeq, 3);
        QCOMPARE(view->snapshot.paymentMethodLast4, QStringLiteral("4242"));
        QVERIFY(view->snapshot.disputed);
        QCOMPARE(view->snapshot.refunds.size(), 1);
        QVERIFY(view->budget.known);
        QCOMPARE(view->budget.available(), 6900);
        QCOMPARE(view->budget.reservations.size(), 1);
        QCOMPARE(view->budget.reservations.first().state, ActionState::Executing);
        QCOMPARE(view->requested, 5000);
        QVERIFY(view->fits);
        QCOMPARE(view->warnings.size(), 2);
        QCOMPARE(view->warnings.at(1).code, QStringLiteral("over_half"));

        const QJsonObject record = QJsonDocument::fromJson(R"({"requested_by": "agent-7",
          "today": {"since": "2026-12-02T00:00:00.000Z", "count": 3, "totals": [{"currency": "usd", "count": 2, "amount": 4000},
                    {"currency": "eur", "count": 1, "amount": 500}], "rejected": 1, "rejected_share": 0.3333333,
                    "sent_to_review": 0, "sent_to_review_share": 0},
          "week": {"since": "2026-11-25T06:00:00.000Z", "count": 0, "totals": [], "rejected": 0, "rejected_share": null,
                   "sent_to_review": 0, "sent_to_review_share": null}})")
                                         .object();
        const std::optional<RequesterRecord> rec = RequesterRecord::fromJson(record, &error);
        QVERIFY2(rec, qPrintable(error));
        QCOMPARE(RequesterRecord::describe(rec->today),
                 QStringLiteral("3 refunds, 40.00 USD + 5.00 EUR \u00b7 33% rejected \u00b7 0% sent to review"));
        QVERIFY(!rec->week.rejectedShare);
        QCOMPARE(RequesterRecord::describe(rec->week), QStringLiteral("no proposals"));

        const QJsonObject quorumJson = QJsonDocument::fromJson(R"({"approvals_required": 2,
          "approvals_given": [{"approver": "ann", "signed_at": "2026-12-02T06:01:00.000Z"}],
          "approval_rule": {"policy_version": 4, "rule_id": "usd-large"}})")
                                             .object();
        const std::optional<Quorum> quorum = Quorum::fromJson(quorumJson, &error);
        QVERIFY2(quorum, qPrintable(error));
        QCOMPARE(quorum->describe(), QStringLiteral("1 of 2 approvals \u2014 approved by ann"));
        QCOMPARE(quorum->policyVersion, 4);
        // Without a policy (or an older server): one approver, nothing to say.
        const std::optional<Quorum> single = Quorum::fromJson(QJsonObject(), &error);
        QVERIFY(single && !single->isDualControl());
        QCOMPARE(single->describe(), QString());
    }

    void decisionContextBadInput_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("error");
        const QByteArray snapshot = R"("snapshot": {"target_type": "charge", "target_id": "ch_1", "result": "NOT_FOUND"})";
        QTest::newRow("no snapshot") << QByteArray(R"({"budget": {}})") << QStringLiteral("charge.snapshot: must be an object");
        QTest::newRow("a budget figure not an integer")
            << QByteArray("{" + snapshot + R"(, "budget": {"captured": "99"}})") << QStringLiteral("charge.budget.captured: must be an integer");
        QTest::newRow("a reservation without its action")
            << QByteArray("{" + snapshot + R"(, "budget": {"reservations": [{"amount": 1}]}})")
            << QStringLiteral("charge.budget.reservations[0].action_id: is required");
        QTest::newRow("a warning without its code")
            << QByteArray("{" + snapshot + R"(, "budget": {}, "warnings": [{"text": "x"}]})") << QStringLiteral("charge.warnings[0].code: is required");
        QTest::newRow("a share above 1")
            << QByteArray(R"({"requester_record": {"requested_by": "a", "today": {"count": 1, "rejected_share": 2}, "week": {"count": 0}}})")
            << QStringLiteral("requester_record.today.rejected_share: must be a number from 0 to 1, or null");
        QTest::newRow("a signature without its approver")
            << QByteArray(R"({"approvals_required": 2, "approvals_given": [{"signed_at": null}]})")
            << QStringLiteral("approvals_given[0].approver: is required");
        QTest::newRow("no approvers required") << QByteArray(R"({"approvals_required": 0})")
                                                << QStringLiteral("approvals_required: must be between 1 and 1000");
    }

    // A detail whose context is malformed is refused with the member named, not half-read.
    void decisionContextBadInput()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, error);
        QJsonObject detail = QJsonDocument::fromJson(R"({"id": "act_1", "kind": "refund", "state": "PENDING", "state_version": 1,
            "target": {"charge": "ch_1"}, "amount": 100, "currency": "usd", "requested_by": "agent-7",
            "client_reference": "r", "request_fingerprint": "ab", "created_at": "2026-12-02T06:00:00.000Z",
            "updated_at": "2026-12-02T06:00:00.000Z"})")
                                 .object();
        QString problem;
        QVERIFY2(ActionDetail::fromJson(detail, &problem), qPrintable(problem)); // the base is well-formed
        const QJsonObject extra = QJsonDocument::fromJson(json).object();
        QVERIFY(!extra.isEmpty());
        for (auto it = extra.begin(); it != extra.end(); ++it)
            detail.insert(it.key(), it.value());
        if (extra.contains(QStringLiteral("snapshot")) || extra.contains(QStringLiteral("budget"))) {
            detail.remove(QStringLiteral("snapshot"));
            detail.remove(QStringLiteral("budget"));
            detail.remove(QStringLiteral("warnings"));
            detail.insert(QStringLiteral("charge"), extra);
        }
        QVERIFY(!ActionDetail::fromJson(detail, &problem));
        QCOMPARE(problem, error);
    }
};

QTEST_GUILESS_MAIN(TestDetailModels)
#include "tst_detailmodels.moc"
