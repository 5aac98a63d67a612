// The charge view's data (issue 17) without a backend: the wire format of GET /charges/{id}
// (ChargeOverview, ChargeBudget::fromJson), the actions' and refunds' table models under
// QAbstractItemModelTester, and the proxy that sorts them and hides rejected actions.

#include "models/actionqueuemodel.h"
#include "models/chargeactionmodel.h"
#include "models/chargeoverview.h"
#include "models/chargerefundmodel.h"
#include "models/chargesortfiltermodel.h"

#include <QAbstractItemModelTester>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTest>

using namespace cs;

namespace {

QJsonObject parse(const QByteArray &text)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(text, &error);
    if (error.error != QJsonParseError::NoError)
        qFatal("bad test JSON: %s", qPrintable(error.errorString()));
    return doc.object();
}

QJsonObject row(const char *id, const char *state, qint64 amount, const char *by, const char *created)
{
    return QJsonObject{
        {QStringLiteral("id"), QLatin1String(id)}, {QStringLiteral("state"), QLatin1String(state)}, {QStringLiteral("state_version"), 2},
        {QStringLiteral("target"), QJsonObject{{QStringLiteral("charge"), QStringLiteral("ch_1")}}},
        {QStringLiteral("amount"), amount}, {QStringLiteral("currency"), QStringLiteral("usd")},
        {QStringLiteral("business_reference"), QStringLiteral("order-7")}, {QStringLiteral("requested_by"), QLatin1String(by)},
        {QStringLiteral("review_reason"), QString()}, {QStringLiteral("attempt_count"), 0},
        {QStringLiteral("created_at"), QLatin1String(created)}, {QStringLiteral("updated_at"), QLatin1String(created)},
        {QStringLiteral("last_event_at"), QLatin1String(created)}, {QStringLiteral("possible_duplicate"), false},
        {QStringLiteral("possible_duplicates"), 0},
    };
}

// A charge of 150.00 USD: 20.00 refunded outside Countersign, 50.00 by act_done (COMPLETED, in the
// read), 30.00 reserved by act_wait (PENDING), act_no REJECTED.
QJsonObject overviewJson()
{
    QJsonObject json = parse(R"({
      "id": "ch_1", "target_type": "charge", "charge_id": "ch_1", "payment_intent_id": "pi_1", "actions_truncated": false,
      "snapshot": {"seq": 3, "target_type": "charge", "target_id": "ch_1", "charge_id": "ch_1", "payment_intent_id": "pi_1",
        "asked_by": "sam", "read_at": "2026-12-01T10:00:00.000Z", "result": "FOUND", "http_status": 200, "excerpt": "",
        "amount": 15000, "amount_captured": 15000, "amount_refunded": 7000, "currency": "usd",
        "created": "2026-11-20T09:00:00.000Z", "payment_method_brand": "visa", "payment_method_last4": "4242", "disputed": false,
        "refunds": [
          {"id": "re_done", "amount": 5000, "status": "succeeded", "created": "2026-12-01T09:00:00.000Z", "action_id": "act_done"},
          {"id": "re_dash", "amount": 2000, "status": "succeeded", "created": "2026-11-25T09:00:00.000Z", "action_id": ""}]},
      "budget": {"stage": "proposal", "known": true, "charge_id": "ch_1", "payment_intent_id": "pi_1", "currency": "usd",
        "snapshot_seq": 3, "read_at": "2026-12-01T10:00:00.000Z", "captured": 15000, "refunded_at_provider": 7000,
        "reserved": 3000, "available": 5000,
        "reservations": [{"action_id": "act_wait", "state": "PENDING", "approved": false, "amount": 3000, "currency": "usd",
                          "requested_by": "agent-8", "created_at": "2026-12-01T09:30:00.000Z"}]}
    })");
    json.insert(QStringLiteral("actions"),
                QJsonArray{row("act_done", "COMPLETED", 5000, "agent-7", "2026-12-01T08:00:00.000Z"),
                           row("act_wait", "PENDING", 3000, "agent-8", "2026-12-01T09:30:00.000Z"),
                           row("act_no", "REJECTED", 500, "agent-8", "2026-12-01T09:40:00.000Z")});
    return json;
}

// A refund event from the provider's webhooks that matched no action (issue 18), as
// unmatched_refund_events lists it.
QJsonObject refundEvent(const char *id, const char *type, const char *refund, const char *status, const char *received,
                        const char *failureReason = nullptr, qint64 amount = 2000)
{
    QJsonObject e{{QStringLiteral("event_id"), QLatin1String(id)}, {QStringLiteral("type"), QLatin1String(type)},
                  {QStringLiteral("refund_id"), QLatin1String(refund)}, {QStringLiteral("received_at"), QLatin1String(received)},
                  {QStringLiteral("status"), QLatin1String(status)}, {QStringLiteral("amount"), amount},
                  {QStringLiteral("currency"), QStringLiteral("usd")}, {QStringLiteral("payment_intent"), QStringLiteral("pi_1")},
                  {QStringLiteral("event_created"), 1795000000}, {QStringLiteral("named_action"), QString()}};
    e.insert(QStringLiteral("failure_reason"), failureReason ? QJsonValue(QLatin1String(failureReason)) : QJsonValue());
    return e;
}

ChargeOverview overview(const QJsonObject &json = overviewJson())
{
    QString error;
    const std::optional<ChargeOverview> o = ChargeOverview::fromJson(json, &error);
    if (!o)
        qFatal("overview: %s", qPrintable(error));
    return *o;
}

QStringList column(const QAbstractItemModel &model, int column, int role = Qt::DisplayRole)
{
    QStringList values;
    for (int r = 0; r < model.rowCount(); ++r)
        values << model.index(r, column).data(role).toString();
    return values;
}

} // namespace

class TestChargeModels : public QObject
{
    Q_OBJECT

private slots:
    void readsTheWire()
    {
        const ChargeOverview o = overview();
        QCOMPARE(o.id, QStringLiteral("ch_1"));
        QCOMPARE(o.paymentIntentId, QStringLiteral("pi_1"));
        QVERIFY(o.snapshot);
        QCOMPARE(o.snapshotSeq, 3);
        QCOMPARE(o.snapshot->refunds.size(), 2);
        QCOMPARE(o.budget.stage, ChargeBudget::Stage::Proposal);
        QCOMPARE(o.budget.available(), 5000);
        QCOMPARE(o.budget.reservations.size(), 1);
        QCOMPARE(o.actions.size(), 3);
        QCOMPARE(o.actions.at(2).record.state, ActionState::Rejected);
        QCOMPARE(o.refundsMadeOutside().size(), 1);
        QCOMPARE(o.refundsMadeOutside().first().id, QStringLiteral("re_dash"));
        QVERIFY(o.actionOf(o.snapshot->refunds.first()));
        QCOMPARE(o.actionOf(o.snapshot->refunds.first())->id(), QStringLiteral("act_done"));
        QVERIFY(!o.actionOf(o.snapshot->refunds.last()));
        QVERIFY(o.unmatchedRefundEvents.isEmpty()); // absent, as from a backend older than issue 18
    }

    void readsUnmatchedRefundEvents()
    {
        QJsonObject json = overviewJson();
        json.insert(QStringLiteral("unmatched_refund_events"),
                    QJsonArray{refundEvent("evt_2", "refund.failed", "re_web", "failed", "2026-12-02T10:00:00.000Z", "lost_or_stolen_card"),
                               refundEvent("evt_1", "refund.created", "re_web", "pending", "2026-12-02T09:00:00.000Z")});
        const ChargeOverview o = overview(json);
        QCOMPARE(o.unmatchedRefundEvents.size(), 2);
        const UnmatchedRefundEvent &e = o.unmatchedRefundEvents.first();
        QCOMPARE(e.eventId, QStringLiteral("evt_2"));
        QCOMPARE(e.type, QStringLiteral("refund.failed"));
        QCOMPARE(e.refundId, QStringLiteral("re_web"));
        QCOMPARE(e.receivedAt, QDateTime(QDate(2026, 12, 2), QTime(10, 0), Qt::UTC));
        QCOMPARE(e.status, QStringLiteral("failed"));
        QCOMPARE(e.amount, 2000);
        QCOMPARE(e.currency, QStringLiteral("usd"));
        QCOMPARE(e.failureReason, QStringLiteral("lost_or_stolen_card"));
        QCOMPARE(e.paymentIntent, QStringLiteral("pi_1"));
        QCOMPARE(e.eventCreated, QDateTime::fromSecsSinceEpoch(1795000000, Qt::UTC));
        QVERIFY(o.unmatchedRefundEvents.last().failureReason.isEmpty()); // null on the wire
        json.insert(QStringLiteral("unmatched_refund_events"), QJsonValue::Null);
        QVERIFY(overview(json).unmatchedRefundEvents.isEmpty());
    }

    void neverRead()
    {
        QJsonObject json = overviewJson();
        json.insert(QStringLiteral("snapshot"), QJsonValue::Null);
        json.insert(QStringLiteral("budget"), QJsonObject{{QStringLiteral("stage"), QStringLiteral("proposal")}, {QStringLiteral("known"), false}});
        const ChargeOverview o = overview(json);
        QVERIFY(!o.snapshot);
        QVERIFY(!o.budget.known);
        QVERIFY(o.refundsMadeOutside().isEmpty());
    }

    void budgetRoundTrip()
    {
        const ChargeBudget b = overview().budget;
        const std::optional<ChargeBudget> again = ChargeBudget::fromJson(b.toJson());
        QVERIFY(again);
        QCOMPARE(*again, b);
    }

    void badWire_data()
    {
        QTest::addColumn<QString>("member"); // a member to replace ("budget.captured": inside budget); null: absent
        QTest::addColumn<QJsonValue>("value");
        QTest::addColumn<QString>("error");
        QTest::newRow("no id") << QStringLiteral("id") << QJsonValue() << QStringLiteral("id: is required");
        QTest::newRow("unknown target type") << QStringLiteral("target_type") << QJsonValue(QStringLiteral("refund"))
                                             << QStringLiteral("target_type: \"refund\" is not one of the known values");
        QTest::newRow("no budget") << QStringLiteral("budget") << QJsonValue() << QStringLiteral("budget: is required");
        QTest::newRow("a budget figure as text") << QStringLiteral("budget.captured") << QJsonValue(QStringLiteral("99"))
                                                 << QStringLiteral("budget.captured: must be an integer");
        QTest::newRow("an unknown stage") << QStringLiteral("budget.stage") << QJsonValue(QStringLiteral("later"))
                                          << QStringLiteral("budget.stage: \"later\" is not one of the known values");
        QTest::newRow("a reservation without its action")
            << QStringLiteral("budget.reservations") << QJsonValue(QJsonArray{QJsonObject{{QStringLiteral("amount"), 1}}})
            << QStringLiteral("budget.reservations[0].action_id: is required");
        QTest::newRow("snapshot not an object") << QStringLiteral("snapshot") << QJsonValue(7)
                                                << QStringLiteral("snapshot: must be an object or null");
        QTest::newRow("no actions") << QStringLiteral("actions") << QJsonValue() << QStringLiteral("actions: is required");
        QTest::newRow("actions not a list") << QStringLiteral("actions") << QJsonValue(QJsonObject())
                                            << QStringLiteral("actions: must be an array");
        QTest::newRow("an action that is not one") << QStringLiteral("actions") << QJsonValue(QJsonArray{1})
                                                   << QStringLiteral("actions[0]: must be an object");
        QTest::newRow("unmatched refund events not a list") << QStringLiteral("unmatched_refund_events") << QJsonValue(QJsonObject())
                                                            << QStringLiteral("unmatched_refund_events: must be an array");
        QTest::newRow("an unmatched refund event that is not one") << QStringLiteral("unmatched_refund_events") << QJsonValue(QJsonArray{7})
                                                                   << QStringLiteral("unmatched_refund_events[0]: must be an object");
        QJsonObject noRefund = refundEvent("evt_1", "refund.created", "re_web", "pending", "2026-12-02T09:00:00.000Z");
        noRefund.remove(QStringLiteral("refund_id"));
        QTest::newRow("an unmatched refund event without its refund")
            << QStringLiteral("unmatched_refund_events") << QJsonValue(QJsonArray{noRefund})
            << QStringLiteral("unmatched_refund_events[0].refund_id: is required");
        QJsonObject textAmount = refundEvent("evt_1", "refund.created", "re_web", "pending", "2026-12-02T09:00:00.000Z");
        textAmount.insert(QStringLiteral("amount"), QStringLiteral("20.00"));
        QTest::newRow("an unmatched refund event's amount as text")
            << QStringLiteral("unmatched_refund_events") << QJsonValue(QJsonArray{textAmount})
            << QStringLiteral("unmatched_refund_events[0].amount: must be an integer");
    }

    void badWire()
    {
        QFETCH(QString, member);
        QFETCH(QJsonValue, value);
        QFETCH(QString, error);
        QJsonObject json = overviewJson();
        const QStringList path = member.split(u'.');
        if (path.size() == 2) {
            QJsonObject inner = json.value(path.first()).toObject();
            inner.insert(path.last(), value);
            json.insert(path.first(), inner);
        } else if (value.isNull()) {
            json.remove(member);
        } else {
            json.insert(member, value);
        }
        QString problem;
        QVERIFY(!ChargeOverview::fromJson(json, &problem));
        QCOMPARE(problem, error);
    }

    // The queue's delegate reads these roles by the queue's numbers.
    void actionRolesAreTheQueues()
    {
        QCOMPARE(int(ChargeActionModel::StateRole), int(ActionQueueModel::StateRole));
        QCOMPARE(int(ChargeActionModel::ActionIdRole), int(ActionQueueModel::ActionIdRole));
        QCOMPARE(int(ChargeActionModel::QuorumRole), int(ActionQueueModel::QuorumRole));
    }

    void actionBudgetColumn_data()
    {
        QTest::addColumn<bool>("known");
        QTest::addColumn<bool>("approved");
        QTest::addColumn<QStringList>("texts"); // act_done, act_wait, act_no
        QTest::newRow("known: refunded, reserved, not counted")
            << true << false << QStringList{QStringLiteral("refunded at the provider"), QStringLiteral("reserved"), QStringLiteral("not counted")};
        QTest::newRow("an approved reservation")
            << true << true << QStringList{QStringLiteral("refunded at the provider"), QStringLiteral("reserved, approved"), QStringLiteral("not counted")};
        QTest::newRow("budget not known")
            << false << false << QStringList{QStringLiteral("budget not known"), QStringLiteral("budget not known"), QStringLiteral("not counted")};
    }

    void actionBudgetColumn()
    {
        QFETCH(bool, known);
        QFETCH(bool, approved);
        QFETCH(QStringList, texts);
        ChargeOverview o = overview();
        o.budget.known = known;
        if (!known)
            o.budget.reservations.clear();
        else
            o.budget.reservations[0].approved = approved;
        ChargeActionModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setOverview(o);
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(column(model, ChargeActionModel::BudgetColumn), texts);
        QCOMPARE(column(model, ChargeActionModel::StateColumn),
                 (QStringList{QStringLiteral("Completed"), QStringLiteral("Pending"), QStringLiteral("Rejected")}));
        QCOMPARE(model.index(1, 0).data(ChargeActionModel::StateRole).toInt(), int(ActionState::Pending));
        QCOMPARE(model.index(1, 0).data(ChargeActionModel::ActionIdRole).toString(), QStringLiteral("act_wait"));
        QCOMPARE(model.index(1, ChargeActionModel::AmountColumn).data().toString(), QStringLiteral("30.00 USD"));
    }

    // A new read that changes only the budget (the COMPLETED refund now listed) updates that
    // column in place: no reset, the selection survives.
    void budgetChangeIsAnnounced()
    {
        ChargeOverview o = overview();
        ChargeActionModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setOverview(o);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        QVERIFY(changed.isValid() && reset.isValid() && inserted.isValid());
        model.setOverview(o); // nothing new
        QCOMPARE(changed.count(), 0);
        o.budget.reservations[0].approved = true;
        model.setOverview(o);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.first().at(0).toModelIndex().column(), int(ChargeActionModel::BudgetColumn));
        QCOMPARE(changed.first().at(1).toModelIndex().row(), 2);
        QCOMPARE(model.index(1, ChargeActionModel::BudgetColumn).data().toString(), QStringLiteral("reserved, approved"));
        // A new action on the charge: one row inserted at the end.
        QJsonObject json = overviewJson();
        QJsonArray actions = json.value(QStringLiteral("actions")).toArray();
        actions.append(row("act_new", "PENDING", 1000, "agent-7", "2026-12-01T11:00:00.000Z"));
        json.insert(QStringLiteral("actions"), actions);
        model.setOverview(overview(json));
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(reset.count(), 0);
        QCOMPARE(model.rowCount(), 4);
    }

    void refunds()
    {
        ChargeRefundModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setOverview(overview());
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(column(model, ChargeRefundModel::MadeByColumn), (QStringList{QStringLiteral("act_done"), QStringLiteral("made outside Countersign")}));
        QCOMPARE(column(model, ChargeRefundModel::AmountColumn), (QStringList{QStringLiteral("50.00 USD"), QStringLiteral("20.00 USD")}));
        QCOMPARE(model.index(0, 0).data(ChargeRefundModel::MadeOutsideRole).toBool(), false);
        QCOMPARE(model.index(1, 0).data(ChargeRefundModel::MadeOutsideRole).toBool(), true);
        QCOMPARE(model.index(0, 0).data(ChargeRefundModel::ActionIdRole).toString(), QStringLiteral("act_done"));
        QVERIFY(model.index(1, ChargeRefundModel::MadeByColumn).data(Qt::ToolTipRole).toString().contains(QStringLiteral("dashboard")));
        // Without a read: no refunds are known.
        ChargeOverview never = overview();
        never.snapshot.reset();
        model.setOverview(never);
        QCOMPARE(model.rowCount(), 0);
    }

    // One row per refund id: the read's refunds and the webhook events that matched no action,
    // an event's status replacing the read's only when it is newer news.
    void refundsFromWebhooks_data()
    {
        QTest::addColumn<QJsonArray>("events"); // newest first, as the backend lists them
        QTest::addColumn<QStringList>("ids");
        QTest::addColumn<QStringList>("statuses");
        QTest::addColumn<QStringList>("madeBy");
        QTest::addColumn<QString>("readStatus"); // of re_dash, "" when no event changed it
        const QString outside = QStringLiteral("made outside Countersign");
        const QString webhook = QStringLiteral("not through Countersign \u2014 from a webhook");
        QTest::newRow("no events: the read's refunds")
            << QJsonArray{} << QStringList{QStringLiteral("re_done"), QStringLiteral("re_dash")}
            << QStringList{QStringLiteral("succeeded"), QStringLiteral("succeeded")} << QStringList{QStringLiteral("act_done"), outside}
            << QString();
        QTest::newRow("a refund only the webhooks announced comes first, once for its two events")
            << QJsonArray{refundEvent("evt_2", "refund.failed", "re_web", "failed", "2026-12-02T10:00:00.000Z", "lost_or_stolen_card"),
                          refundEvent("evt_1", "refund.created", "re_web", "pending", "2026-12-02T09:00:00.000Z")}
            << QStringList{QStringLiteral("re_web"), QStringLiteral("re_done"), QStringLiteral("re_dash")}
            << QStringList{QStringLiteral("failed: lost_or_stolen_card"), QStringLiteral("succeeded"), QStringLiteral("succeeded")}
            << QStringList{webhook, QStringLiteral("act_done"), outside} << QString();
        QTest::newRow("events out of order: a late refund.created does not undo refund.failed")
            << QJsonArray{refundEvent("evt_1", "refund.created", "re_web", "pending", "2026-12-02T10:00:00.000Z"),
                          refundEvent("evt_2", "refund.failed", "re_web", "failed", "2026-12-02T09:00:00.000Z", "declined")}
            << QStringList{QStringLiteral("re_web"), QStringLiteral("re_done"), QStringLiteral("re_dash")}
            << QStringList{QStringLiteral("failed: declined"), QStringLiteral("succeeded"), QStringLiteral("succeeded")}
            << QStringList{webhook, QStringLiteral("act_done"), outside} << QString();
        QTest::newRow("a refund the read lists is not shown twice: the event adds its newer status")
            << QJsonArray{refundEvent("evt_3", "refund.failed", "re_dash", "failed", "2026-12-02T10:00:00.000Z", "expired_or_canceled_card")}
            << QStringList{QStringLiteral("re_done"), QStringLiteral("re_dash")}
            << QStringList{QStringLiteral("succeeded"), QStringLiteral("failed: expired_or_canceled_card")}
            << QStringList{QStringLiteral("act_done"), webhook} << QStringLiteral("succeeded");
        QTest::newRow("an older event on a refund the read lists changes nothing")
            << QJsonArray{refundEvent("evt_0", "refund.created", "re_dash", "pending", "2026-11-25T09:00:01.000Z")}
            << QStringList{QStringLiteral("re_done"), QStringLiteral("re_dash")}
            << QStringList{QStringLiteral("succeeded"), QStringLiteral("succeeded")}
            << QStringList{QStringLiteral("act_done"), webhook} << QString();
    }

    void refundsFromWebhooks()
    {
        QFETCH(QJsonArray, events);
        QFETCH(QStringList, ids);
        QFETCH(QStringList, statuses);
        QFETCH(QStringList, madeBy);
        QFETCH(QString, readStatus);
        QJsonObject json = overviewJson();
        json.insert(QStringLiteral("unmatched_refund_events"), events);
        const ChargeOverview o = overview(json);
        ChargeRefundModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setOverview(overview()); // first without the events, as from an older read
        model.setOverview(o);
        QCOMPARE(column(model, ChargeRefundModel::IdColumn), ids);
        QCOMPARE(column(model, ChargeRefundModel::StatusColumn), statuses);
        QCOMPARE(column(model, ChargeRefundModel::MadeByColumn), madeBy);
        const QList<ProviderRefund> refunds = o.providerRefunds();
        const auto dash = std::find_if(refunds.cbegin(), refunds.cend(), [](const ProviderRefund &p) { return p.refund.id == u"re_dash"; });
        QVERIFY(dash != refunds.cend());
        QCOMPARE(dash->readStatus, readStatus);
        for (int r = 0; r < model.rowCount(); ++r) {
            const bool fromWebhook = madeBy.at(r) == QStringLiteral("not through Countersign \u2014 from a webhook");
            QCOMPARE(model.index(r, 0).data(ChargeRefundModel::FromWebhookRole).toBool(), fromWebhook);
            QCOMPARE(model.index(r, 0).data(ChargeRefundModel::MadeOutsideRole).toBool(), madeBy.at(r) != u"act_done");
        }
        if (ids.first() == u"re_web") {
            QCOMPARE(model.index(0, ChargeRefundModel::AmountColumn).data().toString(), QStringLiteral("20.00 USD"));
            QVERIFY(model.index(0, ChargeRefundModel::CreatedColumn).data().toString().size() > 0);
            QVERIFY2(model.index(0, 0).data(Qt::ToolTipRole).toString().contains(QStringLiteral("no read of the charge has listed it")),
                     qPrintable(model.index(0, 0).data(Qt::ToolTipRole).toString()));
        }
        if (!readStatus.isEmpty()) {
            const QString tip = model.index(ids.indexOf(QStringLiteral("re_dash")), 0).data(Qt::ToolTipRole).toString();
            QVERIFY2(tip.contains(QStringLiteral("The read listed it as succeeded; a webhook event since (refund.failed")), qPrintable(tip));
        }
        // A charge known only from such events (no read): its refunds still listed, in the event's currency.
        QJsonObject never = json;
        never.insert(QStringLiteral("snapshot"), QJsonValue::Null);
        model.setOverview(overview(never));
        QCOMPARE(model.rowCount(), ids.contains(QStringLiteral("re_web")) ? 1 : (events.isEmpty() ? 0 : 1));
    }

    void sortAndFilter_data()
    {
        QTest::addColumn<int>("sortColumn");
        QTest::addColumn<int>("order");
        QTest::addColumn<bool>("hideRejected");
        QTest::addColumn<QStringList>("ids");
        QTest::newRow("the backend's order (oldest first)") << -1 << int(Qt::AscendingOrder) << false
                                                            << QStringList{QStringLiteral("act_done"), QStringLiteral("act_wait"), QStringLiteral("act_no")};
        QTest::newRow("amount ascending, as numbers") << int(ChargeActionModel::AmountColumn) << int(Qt::AscendingOrder) << false
                                                      << QStringList{QStringLiteral("act_no"), QStringLiteral("act_wait"), QStringLiteral("act_done")};
        QTest::newRow("amount descending") << int(ChargeActionModel::AmountColumn) << int(Qt::DescendingOrder) << false
                                           << QStringList{QStringLiteral("act_done"), QStringLiteral("act_wait"), QStringLiteral("act_no")};
        QTest::newRow("requester: ties keep the backend's order") << int(ChargeActionModel::RequestedByColumn) << int(Qt::AscendingOrder) << false
                                                                  << QStringList{QStringLiteral("act_done"), QStringLiteral("act_wait"), QStringLiteral("act_no")};
        QTest::newRow("rejected hidden") << -1 << int(Qt::AscendingOrder) << true
                                         << QStringList{QStringLiteral("act_done"), QStringLiteral("act_wait")};
        QTest::newRow("newest first, rejected hidden") << int(ChargeActionModel::CreatedColumn) << int(Qt::DescendingOrder) << true
                                                       << QStringList{QStringLiteral("act_wait"), QStringLiteral("act_done")};
    }

    void sortAndFilter()
    {
        QFETCH(int, sortColumn);
        QFETCH(int, order);
        QFETCH(bool, hideRejected);
        QFETCH(QStringList, ids);
        ChargeActionModel model;
        ChargeSortFilterModel proxy;
        proxy.setSourceModel(&model);
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setOverview(overview());
        proxy.setHideRejected(hideRejected);
        proxy.sort(sortColumn, Qt::SortOrder(order));
        QCOMPARE(column(proxy, ChargeActionModel::IdColumn), ids);
        // Live: a new read keeps the order and the filter.
        model.setOverview(overview());
        QCOMPARE(column(proxy, ChargeActionModel::IdColumn), ids);
    }

    // The proxy's filter reads the actions' state role; on the refunds it hides nothing.
    void refundsAreNeverHidden()
    {
        ChargeRefundModel model;
        ChargeSortFilterModel proxy;
        proxy.setSourceModel(&model);
        QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setOverview(overview());
        proxy.setHideRejected(true);
        QCOMPARE(proxy.rowCount(), 2);
        proxy.sort(ChargeRefundModel::AmountColumn, Qt::AscendingOrder);
        QCOMPARE(column(proxy, ChargeRefundModel::IdColumn), (QStringList{QStringLiteral("re_dash"), QStringLiteral("re_done")}));
        proxy.sort(ChargeRefundModel::MadeByColumn, Qt::AscendingOrder); // outside ("") first
        QCOMPARE(column(proxy, ChargeRefundModel::IdColumn), (QStringList{QStringLiteral("re_dash"), QStringLiteral("re_done")}));
    }
};

QTEST_GUILESS_MAIN(TestChargeModels)
#include "tst_chargemodels.moc"
