// Issue 18 in the console, without a backend (offscreen): a COMPLETED action's refund that settles
// later or fails after it was accepted. The settlement's history model under
// QAbstractItemModelTester; the list query's settlement=review on the wire; the queue's "Refund
// failed" filter, its count, its key and the row's marker; the detail pane's banner with its two
// decisions, the settlement section and the timeline; the close dialog (a required note, kept
// while the backend is away) and the follow-up dialog re-proposing the whole amount; and the
// sentence a reviewer whose view was overtaken reads.

#include "client/apiclient.h"
#include "models/actiondetail.h"
#include "models/actionqueuemodel.h"
#include "models/displayformat.h"
#include "models/followupplan.h"
#include "models/lookuppurpose.h"
#include "models/settlementhistorymodel.h"
#include "tests/ui/fakepagesource.h"
#include "tests/ui/settlementtestdata.h"
#include "ui/actiondetailpane.h"
#include "ui/decisioncontroller.h"
#include "ui/draftstore.h"
#include "ui/followupdialog.h"
#include "ui/lookupdialog.h"
#include "ui/queueitemdelegate.h"
#include "ui/queueview.h"
#include "ui/settlementclosedialog.h"
#include "ui/settlementview.h"
#include "ui/timelinewidget.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QFrame>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

using namespace cs;

namespace {

const QString ActionId = QStringLiteral("act_settle000000000000000001");

QJsonObject change(int seq, const char *at, const char *from, const char *to, const char *reason, const char *source,
                   const char *evidence)
{
    return QJsonObject{
        { QStringLiteral("seq"), seq },
        { QStringLiteral("at"), QString::fromLatin1(at) },
        { QStringLiteral("from_status"), *from ? QJsonValue(QString::fromLatin1(from)) : QJsonValue(QJsonValue::Null) },
        { QStringLiteral("to_status"), QString::fromLatin1(to) },
        { QStringLiteral("failure_reason"), *reason ? QJsonValue(QString::fromLatin1(reason)) : QJsonValue(QJsonValue::Null) },
        { QStringLiteral("source"), QString::fromLatin1(source) },
        { QStringLiteral("evidence"), QString::fromLatin1(evidence) },
    };
}

// A COMPLETED refund of 40.00 USD whose settlement is in `attention` ("open": failed on Thursday,
// "pending": still settling, "closed", "followed_up").
QJsonObject detailJson(const QString &attention)
{
    QJsonObject settlement{
        { QStringLiteral("action_id"), ActionId },
        { QStringLiteral("refund_id"), QStringLiteral("re_thursday") },
        { QStringLiteral("started_at"), QStringLiteral("2026-12-01T09:00:05.000Z") },
        { QStringLiteral("checks"), 2 },
    };
    QJsonArray history{ change(1, "2026-12-01T09:00:05.000Z", "", "pending", "", "attempt", "attempt 1") };
    if (attention == QLatin1String("pending")) {
        settlement.insert(QStringLiteral("status"), QStringLiteral("pending"));
        settlement.insert(QStringLiteral("confirmed_at"), QStringLiteral("2026-12-01T09:30:00.000Z"));
        settlement.insert(QStringLiteral("confirmed_by"), QStringLiteral("schedule"));
        settlement.insert(QStringLiteral("next_check_at"), QStringLiteral("2026-12-01T10:30:00.000Z"));
        settlement.insert(QStringLiteral("attention"), QStringLiteral("none"));
    } else {
        history.append(change(2, "2026-12-03T14:12:00.000Z", "pending", "failed", "declined", "webhook", "event evt_77"));
        settlement.insert(QStringLiteral("status"), QStringLiteral("failed"));
        settlement.insert(QStringLiteral("failure_reason"), QStringLiteral("declined"));
        settlement.insert(QStringLiteral("confirmed_at"), QStringLiteral("2026-12-03T14:12:00.000Z"));
        settlement.insert(QStringLiteral("confirmed_by"), QStringLiteral("webhook"));
        settlement.insert(QStringLiteral("settled_at"), QStringLiteral("2026-12-03T14:12:00.000Z"));
        settlement.insert(QStringLiteral("attention"), attention);
        settlement.insert(QStringLiteral("attention_since"), QStringLiteral("2026-12-03T14:12:00.000Z"));
        if (attention != QLatin1String("open")) {
            settlement.insert(QStringLiteral("resolved_by"), QStringLiteral("sue"));
            settlement.insert(QStringLiteral("resolved_at"), QStringLiteral("2026-12-03T15:00:00.000Z"));
        }
        if (attention == QLatin1String("closed"))
            settlement.insert(QStringLiteral("resolution_note"), QStringLiteral("refunded by bank transfer"));
        if (attention == QLatin1String("followed_up"))
            settlement.insert(QStringLiteral("follow_up_id"), QStringLiteral("act_followup0000000000000001"));
    }
    settlement.insert(QStringLiteral("history"), history);
    const bool open = attention == QLatin1String("open");
    const auto permission = [](bool allowed, const char *reason) {
        return QJsonObject{ { QStringLiteral("allowed"), allowed }, { QStringLiteral("reason"), QString::fromLatin1(reason) } };
    };
    QJsonObject detail = cs::test::completedRefundDetail(ActionId, settlement, QStringLiteral("2026-12-01T09:00:05.000Z"));
    const QJsonObject more{
        { QStringLiteral("related"), QJsonObject{ { QStringLiteral("parent"), QJsonValue::Null },
                                                  { QStringLiteral("follow_ups"), QJsonArray() } } },
        { QStringLiteral("permissions"),
          QJsonObject{ { QStringLiteral("approve"), permission(false, "not PENDING") },
                       { QStringLiteral("reject"), permission(false, "not PENDING") },
                       { QStringLiteral("lookup"), permission(true, "") }, // the backend allows it in every state
                       { QStringLiteral("reconcile"), permission(false, "not REQUIRES_REVIEW") },
                       { QStringLiteral("follow_up"), permission(true, "") },
                       { QStringLiteral("close_settlement"), permission(open, open ? "" : "no open review item") } } },
    };
    for (auto it = more.constBegin(); it != more.constEnd(); ++it)
        detail.insert(it.key(), it.value());
    return detail;
}

ActionDetail detail(const QString &attention)
{
    QString error;
    const std::optional<ActionDetail> d = ActionDetail::fromJson(detailJson(attention), &error);
    if (!d)
        qFatal("detail: %s", qPrintable(error));
    return *d;
}

ActionSummary completedRow(int n, const QString &settlementStatus, bool review)
{
    ActionSummary row = FakePageSource::make(n, ActionState::Completed);
    row.settlementStatus = settlementStatus;
    row.settlementReview = review;
    return row;
}

QString text(QWidget *parent, const char *name)
{
    auto *label = parent->findChild<QLabel *>(QString::fromLatin1(name));
    return label ? label->text() : QStringLiteral("<no %1>").arg(QString::fromLatin1(name));
}

} // namespace

class TestSettlement : public QObject
{
    Q_OBJECT

private slots:
    void historyModel()
    {
        SettlementHistoryModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        QVERIFY(inserted.isValid());
        const ActionDetail pending = detail(QStringLiteral("pending"));
        model.setRecords(pending.settlement->history);
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.columnCount(), int(SettlementHistoryModel::ColumnCount));
        QCOMPARE(model.index(0, SettlementHistoryModel::ChangeColumn).data().toString(), QStringLiteral("pending"));
        QCOMPARE(model.index(0, SettlementHistoryModel::SourceColumn).data().toString(), QStringLiteral("the attempt's answer"));
        // A live refresh that learned the failure appends one row: the first is untouched.
        const ActionDetail failed = detail(QStringLiteral("open"));
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        QVERIFY(changed.isValid());
        model.setRecords(failed.settlement->history);
        QCOMPARE(inserted.count(), 2);
        QCOMPARE(changed.count(), 0);
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.index(1, SettlementHistoryModel::ChangeColumn).data().toString(), QStringLiteral("pending \u2192 failed"));
        QCOMPARE(model.index(1, SettlementHistoryModel::FailureReasonColumn).data().toString(), QStringLiteral("declined"));
        QCOMPARE(model.index(1, SettlementHistoryModel::SourceColumn).data().toString(), QStringLiteral("a webhook event"));
        QCOMPARE(model.index(1, SettlementHistoryModel::EvidenceColumn).data().toString(), QStringLiteral("event evt_77"));
        QCOMPARE(model.index(1, 0).data(SettlementHistoryModel::ToStatusRole).toString(), QStringLiteral("failed"));
        QCOMPARE(model.headerData(SettlementHistoryModel::SourceColumn, Qt::Horizontal).toString(), QStringLiteral("Learned from"));
        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }

    // The list query's filter reaches the wire as settlement=review, beside the other parameters.
    void listQueryAsksForTheReviewItems()
    {
        QTcpServer server;
        QVERIFY(server.listen(QHostAddress::LocalHost));
        ApiClient client;
        client.setBaseUrl(QUrl(QStringLiteral("http://127.0.0.1:%1").arg(server.serverPort())));
        client.setToken(QStringLiteral("t"));
        ActionQuery query = QueueView::queryFor(QueueView::Filter::RefundFailed, QStringLiteral("order-4711"));
        QVERIFY(query.settlementReview);
        QVERIFY(query.states.isEmpty());
        QCOMPARE(query.settlementParameter(), QStringLiteral("review"));
        QCOMPARE(ActionQuery::queue().settlementParameter(), QString());
        client.listActions(query, QString(), 10);
        QVERIFY(server.waitForNewConnection(5000));
        QTcpSocket *socket = server.nextPendingConnection();
        QTRY_VERIFY(socket->canReadLine());
        const QByteArray requestLine = socket->readLine();
        QVERIFY2(requestLine.contains("settlement=review"), requestLine.constData());
        QVERIFY2(requestLine.contains("q=order-4711"), requestLine.constData());
        QVERIFY2(!requestLine.contains("state="), requestLine.constData());

        // A row arriving live belongs to the filter only with its review item open.
        QVERIFY(query.matches(completedRow(4711, QStringLiteral("failed"), true)));
        QVERIFY(!query.matches(completedRow(12, QStringLiteral("failed"), true))); // another order
        query.search.clear();
        QVERIFY(query.matches(completedRow(1, QStringLiteral("failed"), true)));
        QVERIFY(!query.matches(completedRow(2, QStringLiteral("failed"), false)));
        QVERIFY(!query.matches(completedRow(3, QStringLiteral("pending"), false)));
    }

    // The queue's own filter: its count from the counts, Ctrl+6, only the open review items, and
    // remembered under its name like the others.
    void refundFailedFilter()
    {
        FakePageSource source;
        source.ledger = { completedRow(6, QStringLiteral("failed"), true), completedRow(5, QStringLiteral("pending"), false),
                          completedRow(4, QStringLiteral("canceled"), true), completedRow(3, QStringLiteral("failed"), false),
                          FakePageSource::make(2, ActionState::Pending), FakePageSource::make(1, ActionState::RequiresReview) };
        ActionQueueModel model(&source);
        QueueView view(&model);
        view.resize(1100, 500);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QSignalSpy loaded(&model, &ActionQueueModel::pageLoaded);
        QVERIFY(loaded.isValid());
        QSignalSpy filterChanged(&view, &QueueView::filterChanged);
        QVERIFY(filterChanged.isValid());
        view.apply(QueueView::Filter::Queue, QString());
        QVERIFY(loaded.wait(2000));
        QCOMPARE(model.rowCount(), 2);
        auto *button = view.findChild<QToolButton *>(QStringLiteral("filterRefundFailed"));
        QVERIFY(button);
        QCOMPARE(button->text(), QStringLiteral("Refund failed  2"));
        QVERIFY(button->toolTip().contains(QLatin1String("failed or were canceled")));
        QVERIFY(button->toolTip().contains(QLatin1String("Ctrl+6")));
        QVERIFY(!button->isChecked());

        view.table()->setFocus();
        QTest::keyClick(view.table(), Qt::Key_6, Qt::ControlModifier);
        QVERIFY(loaded.wait(2000));
        QVERIFY(button->isChecked());
        QCOMPARE(view.filter(), QueueView::Filter::RefundFailed);
        QVERIFY(source.queries.last().settlementReview);
        QCOMPARE(model.rowCount(), 2);
        for (int row = 0; row < model.rowCount(); ++row)
            QVERIFY(model.summary(row).settlementReview);
        QCOMPARE(filterChanged.last().at(0).value<QueueView::Filter>(), QueueView::Filter::RefundFailed);
        QCOMPARE(QueueView::filterName(QueueView::Filter::RefundFailed), QStringLiteral("refund_failed"));
        QCOMPARE(QueueView::filterFromName(QStringLiteral("refund_failed")), QueueView::Filter::RefundFailed);

        // A row of the filter whose review item was closed meanwhile is not inserted again live.
        model.updateSummary(completedRow(7, QStringLiteral("failed"), false));
        QCOMPARE(model.rowCount(), 2);
        model.updateSummary(completedRow(8, QStringLiteral("failed"), true));
        QCOMPARE(model.rowCount(), 3);
    }

    void queueRowMarker_data()
    {
        QTest::addColumn<int>("state");
        QTest::addColumn<QString>("status");
        QTest::addColumn<bool>("review");
        QTest::addColumn<QString>("marker");
        QTest::addColumn<int>("tone");
        QTest::addColumn<QString>("tooltip");
        const int completed = int(ActionState::Completed);
        QTest::newRow("pending refund: settling") << completed << "pending" << false << "settling"
                                                  << int(ActionState::ConfirmationUnknown) << "still settling";
        QTest::newRow("requires_action: settling") << completed << "requires_action" << false << "settling"
                                                   << int(ActionState::ConfirmationUnknown) << "still settling";
        QTest::newRow("failed, open: in review colours") << completed << "failed" << true << "refund failed"
                                                         << int(ActionState::RequiresReview) << "has not been refunded";
        QTest::newRow("canceled, open") << completed << "canceled" << true << "refund canceled"
                                        << int(ActionState::RequiresReview) << "has not been refunded";
        QTest::newRow("failed, decided: quiet") << completed << "failed" << false << "refund failed"
                                                << int(ActionState::Rejected) << "(decided)";
        QTest::newRow("succeeded: nothing") << completed << "succeeded" << false << "" << int(ActionState::Pending) << "";
        QTest::newRow("completed before settlements: nothing") << completed << "" << false << "" << int(ActionState::Pending) << "";
        QTest::newRow("not completed: nothing") << int(ActionState::Pending) << "" << false << "" << int(ActionState::Pending) << "";
    }

    void queueRowMarker()
    {
        QFETCH(int, state);
        QFETCH(QString, status);
        QFETCH(bool, review);
        QFETCH(QString, marker);
        QFETCH(int, tone);
        QFETCH(QString, tooltip);
        FakePageSource source;
        ActionSummary row = completedRow(1, status, review);
        row.record.state = ActionState(state);
        source.ledger = { row };
        ActionQueueModel model(&source);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy loaded(&model, &ActionQueueModel::pageLoaded);
        QVERIFY(loaded.isValid());
        model.setQuery(ActionQuery::allStates());
        QVERIFY(loaded.wait(2000));
        const QModelIndex index = model.index(0, ActionQueueModel::StateColumn);
        QCOMPARE(index.data(ActionQueueModel::SettlementStatusRole).toString(), status);
        QCOMPARE(index.data(ActionQueueModel::SettlementReviewRole).toBool(), review);
        const QueueItemDelegate::Marker shown = QueueItemDelegate::settlementMarker(index);
        QCOMPARE(shown.text, marker);
        if (!marker.isEmpty())
            QCOMPARE(int(shown.tone), tone);
        const QString tip = index.data(Qt::ToolTipRole).toString();
        if (tooltip.isEmpty())
            QVERIFY2(!tip.contains(QLatin1String("efund")), qPrintable(tip));
        else
            QVERIFY2(tip.contains(tooltip), qPrintable(tip));
        QCOMPARE(index.data(Qt::AccessibleTextRole).toString().contains(QLatin1String("refund failed after completion")),
                 review);
    }

    // The open review item: a banner that says what happened and that the customer has not been
    // refunded, with both decisions as buttons that follow their actions.
    void paneShowsTheOpenReviewItem()
    {
        QWidget window;
        auto *pane = new ActionDetailPane(&window);
        QAction followUp(QStringLiteral("&Follow-up\u2026"), &window);
        QAction close(QStringLiteral("Close"), &window);
        QSignalSpy followUpTriggered(&followUp, &QAction::triggered);
        QSignalSpy closeTriggered(&close, &QAction::triggered);
        QVERIFY(followUpTriggered.isValid() && closeTriggered.isValid());
        pane->setSettlementActions(&followUp, &close);
        window.resize(1000, 800);
        pane->resize(1000, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));

        pane->setDetail(detail(QStringLiteral("open")));
        QFrame *banner = pane->settlementBanner();
        QVERIFY(banner->isVisible());
        const QString said = text(banner, "settlementReviewText");
        for (const char *part : { "Refund failed after it was accepted", "re_thursday", "(declined)", "NOT been refunded",
                                  "own approval and key" })
            QVERIFY2(said.contains(QLatin1String(part)), qPrintable(said));
        QVERIFY2(said.contains(display::time(QDateTime(QDate(2026, 12, 3), QTime(14, 12), Qt::UTC))), qPrintable(said));
        auto *proposeButton = banner->findChild<QToolButton *>(QStringLiteral("settlementFollowUpButton"));
        auto *closeButton = banner->findChild<QToolButton *>(QStringLiteral("settlementCloseButton"));
        QVERIFY(proposeButton && closeButton);
        QCOMPARE(proposeButton->text(), QStringLiteral("Propose follow-up\u2026"));
        QCOMPARE(closeButton->text(), QStringLiteral("Close without re-sending\u2026"));
        QTest::mouseClick(proposeButton, Qt::LeftButton);
        QCOMPARE(followUpTriggered.count(), 1);
        QTest::mouseClick(closeButton, Qt::LeftButton);
        QCOMPARE(closeTriggered.count(), 1);
        // The button follows its action: refused (another role), it is disabled and says why.
        close.setEnabled(false);
        close.setToolTip(QStringLiteral("the approver role may not close settlements"));
        QVERIFY(!closeButton->isEnabled());
        QCOMPARE(closeButton->toolTip(), close.toolTip());

        // The settlement section, first in the overview.
        SettlementView *view = pane->settlementView();
        QVERIFY(view->isVisible());
        QVERIFY2(text(view, "settlementStatus").contains(QLatin1String("failed after it was accepted (declined)")),
                 qPrintable(text(view, "settlementStatus")));
        QCOMPARE(text(view, "settlementRefund"), QStringLiteral("re_thursday"));
        QVERIFY2(text(view, "settlementConfirmed").contains(QLatin1String("a webhook event")), qPrintable(text(view, "settlementConfirmed")));
        QVERIFY(!view->findChild<QLabel *>(QStringLiteral("settlementNextCheck"))->isVisible()); // settled
        QVERIFY2(text(view, "settlementDecision").contains(QLatin1String("open")), qPrintable(text(view, "settlementDecision")));
        QCOMPARE(view->historyModel()->rowCount(), 2);

        // Decided: no banner; who decided, when and how instead.
        pane->setDetail(detail(QStringLiteral("closed")));
        QVERIFY(!banner->isVisible());
        QVERIFY2(text(view, "settlementDecision").contains(QLatin1String("closed by sue")), qPrintable(text(view, "settlementDecision")));
        QVERIFY2(text(view, "settlementDecision").contains(QLatin1String("refunded by bank transfer")),
                 qPrintable(text(view, "settlementDecision")));
        QVERIFY2(text(view, "settlementStatus").contains(QLatin1String("NOT been refunded")), qPrintable(text(view, "settlementStatus")));
    }

    // Followed up: the follow-up is a link that opens it, as the related actions do.
    void followUpIsALink()
    {
        ActionDetailPane pane;
        pane.resize(1000, 800);
        pane.show();
        QVERIFY(QTest::qWaitForWindowExposed(&pane));
        pane.setDetail(detail(QStringLiteral("followed_up")));
        QVERIFY(!pane.settlementBanner()->isVisible());
        auto *decision = pane.settlementView()->findChild<QLabel *>(QStringLiteral("settlementDecision"));
        QVERIFY2(decision->text().contains(QLatin1String("re-proposed by sue")), qPrintable(decision->text()));
        QVERIFY2(decision->text().contains(QLatin1String("href=\"#act_followup0000000000000001\"")), qPrintable(decision->text()));
        QSignalSpy activated(&pane, &ActionDetailPane::relatedActionActivated);
        QVERIFY(activated.isValid());
        emit decision->linkActivated(QStringLiteral("#act_followup0000000000000001"));
        QCOMPARE(activated.count(), 1);
        QCOMPARE(activated.first().first().toString(), QStringLiteral("act_followup0000000000000001"));
    }

    // Still settling: no banner; the status, the next check and the checks so far.
    void paneShowsASettlingRefund()
    {
        ActionDetailPane pane;
        pane.resize(1000, 800);
        pane.show();
        QVERIFY(QTest::qWaitForWindowExposed(&pane));
        pane.setDetail(detail(QStringLiteral("pending")));
        QVERIFY(!pane.settlementBanner()->isVisible());
        SettlementView *view = pane.settlementView();
        QVERIFY(view->isVisible());
        QVERIFY2(text(view, "settlementStatus").contains(QLatin1String("still settling")), qPrintable(text(view, "settlementStatus")));
        QVERIFY(view->findChild<QLabel *>(QStringLiteral("settlementNextCheck"))->isVisible());
        QVERIFY2(text(view, "settlementNextCheck").contains(QLatin1String("2 scheduled check")),
                 qPrintable(text(view, "settlementNextCheck")));
        QVERIFY(!view->findChild<QLabel *>(QStringLiteral("settlementDecision"))->isVisible());
        // The timeline's heading names what it shows: the settlement too.
        QVERIFY2(text(&pane, "timelineTitle").endsWith(QLatin1String("the end of the key window and the refund's settlement")),
                 qPrintable(text(&pane, "timelineTitle")));

        // An action without a settlement shows no section at all.
        ActionDetail plain = detail(QStringLiteral("pending"));
        plain.settlement.reset();
        pane.setDetail(plain);
        QVERIFY(!view->isVisible());
        QVERIFY(!pane.settlementBanner()->isVisible());
        QVERIFY2(text(&pane, "timelineTitle").endsWith(QLatin1String("state changes and the end of the key window")),
                 qPrintable(text(&pane, "timelineTitle")));
    }

    // Look up on a COMPLETED action asks about its refund's settlement: its help says what the
    // answer does there, by the settlement; other actions keep the generic help.
    void lookUpSaysWhatItDoes_data()
    {
        QTest::addColumn<ActionDetail>("shown");
        QTest::addColumn<QString>("help");
        QTest::newRow("still settling") << detail(QStringLiteral("pending"))
                                        << "Ask the provider now whether refund re_thursday has settled (pending so far): "
                                           "the answer moves its settlement, as a webhook or a scheduled check would";
        ActionDetail requiresAction = detail(QStringLiteral("pending"));
        requiresAction.settlement->status = QStringLiteral("requires_action");
        QTest::newRow("requires_action") << requiresAction
                                         << "Ask the provider now whether refund re_thursday has settled (requires_action so "
                                            "far): the answer moves its settlement, as a webhook or a scheduled check would";
        ActionDetail noStatus = detail(QStringLiteral("pending"));
        noStatus.settlement->status.clear();
        QTest::newRow("no status yet") << noStatus
                                       << "Ask the provider now whether refund re_thursday has settled (not known so far): "
                                          "the answer moves its settlement, as a webhook or a scheduled check would";
        QTest::newRow("review item open") << detail(QStringLiteral("open"))
                                          << "Ask the provider again about refund re_thursday (failed after it was accepted): "
                                             "the answer is kept as evidence; the review item stays open until a supervisor decides";
        ActionDetail succeeded = detail(QStringLiteral("pending"));
        succeeded.settlement->status = QStringLiteral("succeeded");
        QTest::newRow("succeeded") << succeeded
                                   << "Ask the provider whether refund re_thursday still stands: it succeeded, and a succeeded "
                                      "refund can still fail later";
        QTest::newRow("failed, decided") << detail(QStringLiteral("closed"))
                                         << "Ask the provider about refund re_thursday again: its status, failed, is final; "
                                            "the answer is only kept as evidence";
        ActionDetail noSettlement = detail(QStringLiteral("pending"));
        noSettlement.settlement.reset();
        QTest::newRow("COMPLETED before settlements were followed") << noSettlement << QString();
        ActionDetail review = detail(QStringLiteral("pending"));
        review.record.state = ActionState::RequiresReview;
        QTest::newRow("not COMPLETED") << review << QString();
    }

    void lookUpSaysWhatItDoes()
    {
        QFETCH(ActionDetail, shown);
        QFETCH(QString, help);
        QCOMPARE(LookupPurpose::help(shown), help);
        // The dialog says it too, under what every look-up does.
        LookupDialog dialog(shown);
        const auto labels = dialog.findChildren<QLabel *>();
        const bool said = std::any_of(labels.cbegin(), labels.cend(), [&](const QLabel *label) {
            return label->text().contains(QLatin1String("<p>Ask the provider"));
        });
        QCOMPARE(said, !help.isEmpty());
    }

    void timelineShowsTheSettlement()
    {
        TimelineWidget timeline;
        timeline.resize(900, timeline.sizeHint().height());
        timeline.setDetail(detail(QStringLiteral("pending")));
        timeline.show();
        QVERIFY(QTest::qWaitForWindowExposed(&timeline));
        QVERIFY(!timeline.grab().isNull());
        QStringList labels;
        for (const TimelineWidget::Mark &m : timeline.marks())
            labels << m.label;
        QVERIFY2(labels.contains(QStringLiteral("refund pending")), qPrintable(labels.join(u'|')));
        QVERIFY2(labels.contains(QStringLiteral("next check")), qPrintable(labels.join(u'|')));
        QVERIFY2(labels.contains(QStringLiteral("now")), qPrintable(labels.join(u'|'))); // still moving

        timeline.setDetail(detail(QStringLiteral("closed")));
        QVERIFY(!timeline.grab().isNull());
        labels.clear();
        for (const TimelineWidget::Mark &m : timeline.marks())
            labels << m.label;
        QVERIFY2(labels.contains(QStringLiteral("refund failed: declined")), qPrintable(labels.join(u'|')));
        QVERIFY2(labels.contains(QStringLiteral("closed without re-sending")), qPrintable(labels.join(u'|')));
        QVERIFY2(!labels.contains(QStringLiteral("next check")) && !labels.contains(QStringLiteral("now")), qPrintable(labels.join(u'|')));
        const auto failed = std::find_if(timeline.marks().cbegin(), timeline.marks().cend(), [](const TimelineWidget::Mark &m) {
            return m.label == QLatin1String("refund failed: declined");
        });
        QCOMPARE(failed->lane, TimelineWidget::Lane::State);
        QVERIFY(failed->tooltip.contains(QLatin1String("a webhook event (event evt_77)")));
        QVERIFY(timeline.xFor(failed->start) > timeline.xFor(QDateTime(QDate(2026, 12, 1), QTime(9, 0, 5), Qt::UTC)));
    }

    // What a reviewer whose view was overtaken reads.
    void describeChanges_data()
    {
        QTest::addColumn<QString>("before");
        QTest::addColumn<QString>("after");
        QTest::addColumn<QStringList>("sentences");
        QTest::newRow("the refund failed") << "pending" << "open" << QStringList{ QStringLiteral("refund re_thursday failed: declined") };
        QTest::newRow("closed by someone else") << "open" << "closed"
            << QStringList{ QStringLiteral("refund failure closed by sue without re-sending: refunded by bank transfer") };
        QTest::newRow("re-proposed by someone else") << "open" << "followed_up"
            << QStringList{ QStringLiteral("failed refund re-proposed by sue as follow-up act_followup0000000000000001") };
        QTest::newRow("nothing new") << "open" << "open" << QStringList{};
    }

    void describeChanges()
    {
        QFETCH(QString, before);
        QFETCH(QString, after);
        QFETCH(QStringList, sentences);
        QCOMPARE(ActionDetail::describeChanges(detail(before), detail(after)), sentences);
    }

    // Close without re-sending: a note is required (at most 2000 characters); without an open
    // review item nothing can be confirmed.
    void closeDialogNeedsANote()
    {
        SettlementCloseDialog dialog(detail(QStringLiteral("open")));
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QCOMPARE(dialog.kind(), QStringLiteral("close_settlement"));
        auto *note = dialog.findChild<QPlainTextEdit *>(QStringLiteral("noteEdit"));
        QVERIFY(note);
        QCOMPARE(QApplication::focusWidget(), note);
        const QString description = text(&dialog, "descriptionLabel");
        for (const char *part : { "re_thursday", "failed", "(declined)", "has not been refunded", "nothing is sent" })
            QVERIFY2(description.contains(QLatin1String(part)), qPrintable(description));
        QVERIFY(!dialog.confirmButton()->isEnabled());
        QVERIFY(dialog.blockingReason().contains(QLatin1String("Write a note")));
        note->setPlainText(QString(2001, QLatin1Char('x')));
        QVERIFY(!dialog.confirmButton()->isEnabled());
        QVERIFY(dialog.blockingReason().contains(QLatin1String("at most 2000")));
        note->setPlainText(QStringLiteral("  refunded by bank transfer  "));
        QVERIFY(dialog.confirmButton()->isEnabled());
        QCOMPARE(dialog.note(), QStringLiteral("refunded by bank transfer"));
        QCOMPARE(dialog.draft().value(QStringLiteral("note")).toString(), QStringLiteral("  refunded by bank transfer  "));

        SettlementCloseDialog decided(detail(QStringLiteral("closed")));
        decided.findChild<QPlainTextEdit *>(QStringLiteral("noteEdit"))->setPlainText(QStringLiteral("again"));
        QVERIFY(!decided.confirmButton()->isEnabled());
        QVERIFY2(!decided.blockingReason().isEmpty(), "a decided item cannot be closed again");
    }

    // The backend away: the close is resent with the same key and the typed note is never lost —
    // closing the dialog keeps it, reopening brings it back.
    void closeKeepsTheNoteWhileTheBackendIsAway()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QTcpServer reserve; // a port nobody answers on
        QVERIFY(reserve.listen(QHostAddress::LocalHost));
        const quint16 port = reserve.serverPort();
        reserve.close();
        ApiClient client;
        client.setBaseUrl(QUrl(QStringLiteral("http://127.0.0.1:%1").arg(port)));
        client.setToken(QStringLiteral("t"));
        using namespace std::chrono_literals;
        client.setDeadline(2s);
        client.setResendPolicy(50ms, 100ms);
        client.setProbeInterval(50ms, 100ms);
        QWidget window;
        auto *pane = new ActionDetailPane(&window);
        pane->setDetail(detail(QStringLiteral("open")));
        DecisionController controller(&client, pane, &window);
        controller.drafts().open(dir.filePath(QStringLiteral("drafts.json")));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));

        controller.openCloseSettlement();
        auto *dialog = qobject_cast<SettlementCloseDialog *>(controller.openDialog());
        QVERIFY(dialog);
        dialog->findChild<QPlainTextEdit *>(QStringLiteral("noteEdit"))->setPlainText(QStringLiteral("refunded by bank transfer"));
        QSignalSpy resending(&controller, &DecisionController::resending);
        QVERIFY(resending.isValid());
        dialog->confirmButton()->click();
        QVERIFY(resending.wait(5000));
        QCOMPARE(controller.pendingDecisions(), 1);
        dialog->done(QDialog::Rejected);
        QTRY_VERIFY(!controller.openDialog());
        const QString key = DraftStore::keyFor(QStringLiteral("close_settlement"), ActionId);
        QVERIFY(controller.drafts().contains(key));
        QCOMPARE(controller.drafts().draft(key).fields.value(QStringLiteral("note")).toString(),
                 QStringLiteral("refunded by bank transfer"));

        controller.openCloseSettlement();
        auto *again = qobject_cast<SettlementCloseDialog *>(controller.openDialog());
        QVERIFY(again && again != dialog);
        QCOMPARE(again->note(), QStringLiteral("refunded by bank transfer"));
        again->done(QDialog::Rejected);
    }

    // Propose follow-up on a refund that failed after COMPLETED: it counts as nothing committed,
    // the dialog starts at the whole amount and says it is a new operation with its own approval.
    void followUpReProposesTheWholeAmount()
    {
        const ActionDetail failed = detail(QStringLiteral("open"));
        QCOMPARE(failed.committedAmount(), std::optional<qint64>(0));
        FollowUpDialog dialog(failed, FollowUpPlan::compute(failed));
        QVERIFY(dialog.reProposesFailedRefund());
        QCOMPARE(dialog.findChild<QLineEdit *>(QStringLiteral("desiredTotalEdit"))->text(), QStringLiteral("40.00"));
        QCOMPARE(dialog.remainder(), std::optional<qint64>(4000));
        const QString description = text(&dialog, "descriptionLabel");
        for (const char *part : { "re_thursday", "has not been refunded", "its own approval", "a refund of its own",
                                  "never re-sent" })
            QVERIFY2(description.contains(QLatin1String(part)), qPrintable(description));

        // A refund that succeeded is not re-proposed: the dialog starts empty as before.
        ActionDetail settled = failed;
        settled.settlement->status = QStringLiteral("succeeded");
        settled.settlement->attention = Settlement::Attention::None;
        FollowUpDialog plain(settled, FollowUpPlan::compute(settled));
        QVERIFY(!plain.reProposesFailedRefund());
        QVERIFY(plain.findChild<QLineEdit *>(QStringLiteral("desiredTotalEdit"))->text().isEmpty());
    }
};

QTEST_MAIN(TestSettlement)
#include "tst_settlement.moc"
