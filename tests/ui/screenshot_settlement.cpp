// Takes docs/screenshot-settlement-review.png (issue 18): the console's queue under "Refund
// failed" beside the detail pane of a COMPLETED refund that the provider accepted and then
// failed — the banner with its two decisions, the settlement section and the timeline. Built from
// the wire format (GET /actions/{id}) with the console's own widgets; no backend. The permissions are
// the ones the backend gives a supervisor (server/api/actionpolicy.cpp): a look-up is allowed in
// every state (on a COMPLETED action it moves the settlement), follow-up and close are allowed.
// Run under Xvfb:
//   xvfb-run -a -s "-screen 0 1600x1000x24 -dpi 96" screenshot_settlement OUT.png
#include "models/actiondetail.h"
#include "models/actionqueuemodel.h"
#include "tests/ui/fakepagesource.h"
#include "ui/actiondetailpane.h"
#include "ui/queueview.h"

#include <QAction>
#include <QApplication>
#include <QHBoxLayout>
#include <QJsonDocument>
#include <QSplitter>
#include <QTabWidget>
#include <QTextStream>
#include <QTimer>

static void initResources()
{
    Q_INIT_RESOURCE(countersign);
}

namespace {

const char *Detail = R"json({
  "id": "act_7hq2m4k9x1c8v5b3n6z0p2r4", "kind": "refund", "state": "COMPLETED", "state_version": 9,
  "target": {"charge": "ch_3QeThursday0Kx8"}, "amount": 12900, "currency": "eur", "reason": "requested_by_customer",
  "business_reference": "order-88412", "provider": "paysim", "provider_account": "acct_eu",
  "idempotency_key": "csk_7hq2m4k9_v1", "request_fingerprint": "5f0c1e9a2b7d4c3e8f6a1b0c9d2e7f4a3b8c1d6e0f9a2b5c4d7e8f1a0b3c6d9e",
  "approval_version": 1, "requested_by": "returns-bot", "client_reference": "order-88412-return",
  "parent_id": "", "review_reason": "", "key_window_ends_at": "2026-12-04T08:41:00.000Z",
  "created_at": "2026-12-03T08:39:12.000Z", "updated_at": "2026-12-03T08:41:05.000Z",
  "justification": "Customer returned both items; the warehouse confirmed receipt.",
  "attempts": [{"action_id": "act_7hq2m4k9x1c8v5b3n6z0p2r4", "seq": 1, "idempotency_key": "csk_7hq2m4k9_v1",
    "request_fingerprint": "5f0c1e9a2b7d4c3e8f6a1b0c9d2e7f4a3b8c1d6e0f9a2b5c4d7e8f1a0b3c6d9e",
    "executor": "exec-1", "started_at": "2026-12-03T08:41:04.000Z", "finished_at": "2026-12-03T08:41:05.000Z",
    "outcome": "succeeded", "http_status": 200, "error_code": "", "provider_request_id": "req_88412",
    "provider_object_id": "re_3QeThursday2Lm9", "replayed": false, "error_excerpt": ""}],
  "lookups": [{"action_id": "act_7hq2m4k9x1c8v5b3n6z0p2r4", "seq": 1, "method": "retrieve_refund", "asked_by": "settlement",
    "at": "2026-12-04T08:41:30.000Z", "result": "FOUND", "provider_object_id": "re_3QeThursday2Lm9", "status": "pending",
    "amount": 12900, "currency": "eur", "http_status": 200, "excerpt": ""}],
  "approvals": [{"action_id": "act_7hq2m4k9x1c8v5b3n6z0p2r4", "version": 1, "decided_by": "ana", "decision": "approved",
    "note": "matches the return", "idempotency_key": "csk_7hq2m4k9_v1",
    "approved_fingerprint": "5f0c1e9a2b7d4c3e8f6a1b0c9d2e7f4a3b8c1d6e0f9a2b5c4d7e8f1a0b3c6d9e",
    "decided_at": "2026-12-03T08:41:00.000Z"}],
  "reconciliations": [],
  "audit": [
    {"seq": 1, "action_id": "act_7hq2m4k9x1c8v5b3n6z0p2r4", "at": "2026-12-03T08:39:12.000Z", "actor": "returns-bot",
     "event": "proposed", "reason": "", "before": {}, "after": {"state": "PENDING"}, "prev_hash": "", "hash": ""},
    {"seq": 2, "action_id": "act_7hq2m4k9x1c8v5b3n6z0p2r4", "at": "2026-12-03T08:41:04.000Z", "actor": "exec-1",
     "event": "state_changed", "reason": "claimed", "before": {"state": "PENDING"}, "after": {"state": "EXECUTING"}, "prev_hash": "", "hash": ""},
    {"seq": 3, "action_id": "act_7hq2m4k9x1c8v5b3n6z0p2r4", "at": "2026-12-03T08:41:05.000Z", "actor": "exec-1",
     "event": "state_changed", "reason": "provider answered 200 (pending)", "before": {"state": "EXECUTING"}, "after": {"state": "COMPLETED"}, "prev_hash": "", "hash": ""}],
  "conflicts": [],
  "related": {"parent": null, "follow_ups": []},
  "settlement": {"action_id": "act_7hq2m4k9x1c8v5b3n6z0p2r4", "refund_id": "re_3QeThursday2Lm9", "status": "failed",
    "failure_reason": "expired_or_canceled_card", "started_at": "2026-12-03T08:41:05.000Z",
    "confirmed_at": "2026-12-04T09:12:44.000Z", "confirmed_by": "webhook", "settled_at": "2026-12-04T09:12:44.000Z",
    "next_check_at": null, "checks": 3, "attention": "open", "attention_since": "2026-12-04T09:12:44.000Z",
    "resolved_by": null, "resolved_at": null, "resolution_note": null, "follow_up_id": null,
    "history": [
      {"seq": 1, "at": "2026-12-03T08:41:05.000Z", "from_status": null, "to_status": "pending", "failure_reason": null,
       "source": "attempt", "evidence": "attempt 1"},
      {"seq": 2, "at": "2026-12-04T09:12:44.000Z", "from_status": "pending", "to_status": "failed",
       "failure_reason": "expired_or_canceled_card", "source": "webhook", "evidence": "event evt_1Qf8Thursday"}]},
  "permissions": {"approve": {"allowed": false, "reason": "the action is COMPLETED; only a PENDING action can be approved"},
    "reject": {"allowed": false, "reason": "the action is COMPLETED; only a PENDING action can be rejected"},
    "lookup": {"allowed": true, "reason": ""},
    "reconcile": {"allowed": false, "reason": "the action is COMPLETED; only a REQUIRES_REVIEW action is reconciled"},
    "follow_up": {"allowed": true, "reason": ""}, "close_settlement": {"allowed": true, "reason": ""}}
})json";

cs::ActionSummary row(int n, const char *id, qint64 amount, const char *currency, const char *order, const char *agent,
                      const char *status, bool review, int minutesAgo)
{
    cs::ActionSummary s = FakePageSource::make(n, cs::ActionState::Completed, amount, QString::fromLatin1(currency));
    s.record.id = QString::fromLatin1(id);
    s.record.businessReference = QString::fromLatin1(order);
    s.record.requestedBy = QString::fromLatin1(agent);
    s.record.createdAt = QDateTime::currentDateTimeUtc().addSecs(-60 * minutesAgo);
    s.lastEventAt = QDateTime::currentDateTimeUtc().addSecs(-60 * (minutesAgo / 3));
    s.attemptCount = 1;
    s.settlementStatus = QString::fromLatin1(status);
    s.settlementReview = review;
    return s;
}

} // namespace

int main(int argc, char *argv[])
{
    QApplication app(argc, argv);
    initResources();
    const QStringList args = app.arguments();
    if (args.size() != 2) {
        QTextStream(stderr) << "usage: screenshot_settlement OUT.png" << Qt::endl;
        return 2;
    }
    QString error;
    const std::optional<cs::ActionDetail> detail
        = cs::ActionDetail::fromJson(QJsonDocument::fromJson(QByteArray(Detail)).object(), &error);
    if (!detail) {
        QTextStream(stderr) << "detail: " << error << Qt::endl;
        return 1;
    }

    FakePageSource source;
    source.ledger = {
        row(3, "act_7hq2m4k9x1c8v5b3n6z0p2r4", 12900, "eur", "order-88412", "returns-bot", "failed", true, 1530),
        row(2, "act_2kd8w1q5m9x3c7v0b4n6z1p8", 4500, "usd", "order-88107", "refund-bot", "canceled", true, 2890),
    };
    for (int n = 4; n < 12; ++n)
        source.ledger.append(row(n + 10, qPrintable(QStringLiteral("act_%1").arg(n, 24, 10, QLatin1Char('q'))), 1000 + 350 * n,
                                 "usd", qPrintable(QStringLiteral("order-8%1").arg(7000 + n * 13)), "refund-bot",
                                 n % 4 == 0 ? "pending" : "succeeded", false, 200 + n * 40));
    cs::ActionQueueModel model(&source);

    QWidget window;
    window.setWindowTitle(QStringLiteral("Countersign"));
    auto *layout = new QHBoxLayout(&window);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *splitter = new QSplitter(&window);
    auto *queueBox = new QWidget(splitter);
    auto *queueLayout = new QVBoxLayout(queueBox);
    queueLayout->setContentsMargins(10, 8, 4, 6);
    auto *queue = new cs::QueueView(&model, queueBox);
    queueLayout->addWidget(queue);
    auto *pane = new cs::ActionDetailPane(splitter);
    splitter->addWidget(queueBox);
    splitter->addWidget(pane);
    layout->addWidget(splitter);

    // The pane's decision buttons as the main window makes them (allowed: look up and follow-up).
    const struct { const char *name; const char *text; const char *icon; const char *key; } decisions[] = {
        { "approveAction", "Approve", "approve", "approve" }, { "rejectAction", "Reject", "reject", "reject" },
        { "lookupAction", "Look up", "lookup", "lookup" }, { "reconcileAction", "Reconcile", "reconcile", "reconcile" },
        { "followUpAction", "Follow-up", "followup", "follow_up" },
    };
    QList<QPair<QAction *, QString>> actions;
    QAction *followUp = nullptr;
    for (const auto &d : decisions) {
        auto *action = new QAction(QIcon(QStringLiteral(":/icons/%1.svg").arg(QLatin1String(d.icon))), QString::fromLatin1(d.text), &window);
        action->setObjectName(QString::fromLatin1(d.name));
        action->setIconText(QString::fromLatin1(d.text));
        const QString key = QString::fromLatin1(d.key);
        action->setEnabled(detail->permissions.entry(key)->allowed);
        actions.append({ action, key });
        if (key == QLatin1String("follow_up"))
            followUp = action;
    }
    auto *close = new QAction(QIcon(QStringLiteral(":/icons/reconcile.svg")), QStringLiteral("Close failed refund"), &window);
    close->setToolTip(QStringLiteral("Close the review of a refund that failed after it was accepted, with a note (Ctrl+Shift+X)"));
    pane->setDecisionActions(actions);
    pane->setSettlementActions(followUp, close);

    window.resize(1440, 900);
    splitter->setSizes({ 620, 820 });
    window.show();
    queue->apply(cs::QueueView::Filter::RefundFailed, QString());
    QObject::connect(&model, &cs::ActionQueueModel::pageLoaded, &window, [&] {
        queue->selectAction(detail->record.id);
        pane->setDetail(*detail);
        pane->tabs()->setCurrentIndex(cs::ActionDetailPane::OverviewTab);
    });
    int code = 1;
    QTimer::singleShot(800, &window, [&] {
        code = window.grab().save(args.at(1)) ? 0 : 1;
        app.quit();
    });
    app.exec();
    return code;
}
