// Approving and rejecting several actions at once (issue 19), against a real countersignd and
// paysim, through a FaultProxy where an answer must go missing: each action gets its own
// approval (its own If-Match and Idempotency-Key), a refusal midway is shown on its row while
// the others are done, "Retry failed" resends only the failed rows, a resend after a lost answer
// reuses the row's key so nothing is decided twice (approvals counted through the API), actions
// not PENDING or not decidable by this user are listed as skipped with why, a bulk rejection
// takes one reason and note for all, and the queue selects several rows from the keyboard.

#include "client/apiclient.h"
#include "client/eventstreamclient.h"
#include "models/actionqueuemodel.h"
#include "models/bulkdecisionmodel.h"
#include "tests/client/backendprocess.h"
#include "tests/client/faultproxy.h"
#include "tests/support/quietoffscreen.h"
#include "ui/bulkdecisioncontroller.h"
#include "ui/bulkdecisiondialog.h"
#include "ui/consolesettings.h"
#include "ui/draftstore.h"
#include "ui/mainwindow.h"
#include "ui/queueview.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QComboBox>
#include <QJsonArray>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSet>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace cs;
using namespace std::chrono_literals;

namespace {

using Status = BulkDecisionModel::Status;

// What the bulk controller needs around it: a client, the reviewer's drafts, a window.
struct Desk
{
    ApiClient client;
    QWidget window;
    DraftStore drafts;
    BulkDecisionController controller;

    Desk(const QUrl &url, const QString &token, int maxSends = 0)
        : controller(&client, &drafts, &window)
    {
        client.setBaseUrl(url);
        client.setToken(token);
        client.setDeadline(5s);
        client.setResendPolicy(100ms, 300ms, maxSends);
        client.setProbeInterval(100ms, 300ms);
        window.resize(1000, 700);
        window.show();
    }
    ~Desk()
    {
        if (controller.openDialog())
            controller.openDialog()->done(QDialog::Rejected);
    }

    // Opens the bulk dialog on `ids` and waits until every row has been checked.
    BulkDecisionDialog *open(const QString &kind, const QStringList &ids)
    {
        controller.open(kind, ids);
        BulkDecisionDialog *dialog = controller.openDialog();
        if (!dialog)
            return nullptr;
        const bool checked = QTest::qWaitFor([dialog] { return dialog->model()->count(Status::Checking) == 0; }, 10000);
        return checked ? dialog : nullptr;
    }
};

QStringList statuses(const BulkDecisionModel *model)
{
    QStringList out;
    for (const BulkDecisionModel::Row &row : model->rows())
        out << BulkDecisionModel::statusName(row.status);
    return out;
}

} // namespace

class TestBulkDecisions : public QObject
{
    Q_OBJECT

private:
    BackendProcess m_backend;
    QTemporaryDir m_dir;
    QStringList m_charges;
    int m_next = 0;

    QString nextCharge() { return m_charges.at(m_next++ % m_charges.size()); }
    QString propose(qint64 amount, const char *what, const QString &agent = QStringLiteral("agent7"))
    {
        const QString ref = QStringLiteral("%1-%2").arg(QLatin1String(what)).arg(++m_next);
        return m_backend.propose(nextCharge(), amount, ref, QString(), agent).value(QLatin1String("id")).toString();
    }
    QJsonArray approvals(const QString &id) const
    {
        return m_backend.action(id).value(QLatin1String("approvals")).toArray();
    }
    // The human decisions on `id` through the API: how many, and how many approved.
    int decisions(const QString &id) const { return int(approvals(id).size()); }

private slots:
    void initTestCase()
    {
        cs::testsupport::installQuietOffscreen();
        QVERIFY(m_dir.isValid());
        QVERIFY2(m_backend.start(40), qPrintable(m_backend.error()));
        m_charges = m_backend.charges();
        QVERIFY(m_charges.size() >= 40);
    }

    void cleanupTestCase()
    {
        m_backend.stop();
    }

    // The model under QAbstractItemModelTester: rows, statuses, totals per currency.
    void modelRowsAndTotals()
    {
        BulkDecisionModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy changed(&model, &BulkDecisionModel::statusChanged);
        QVERIFY(changed.isValid());
        model.setActions({ QStringLiteral("act_a"), QStringLiteral("act_b"), QStringLiteral("act_c") });
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.count(Status::Checking), 3);
        QCOMPARE(model.totalsText(), QStringLiteral("nothing"));
        const auto record = [](const char *id, qint64 amount, const char *currency) {
            ActionRecord r;
            r.id = QString::fromLatin1(id);
            r.amount = amount;
            r.currency = QString::fromLatin1(currency);
            r.requestedBy = QStringLiteral("agent7");
            r.targetId = QStringLiteral("ch_1");
            return r;
        };
        model.setRecord(0, record("act_a", 4000, "usd"));
        model.setRecord(1, record("act_b", 2550, "usd"));
        model.setRecord(2, record("act_c", 1000, "eur"));
        model.setStatus(0, Status::Ready);
        model.setStatus(1, Status::Ready);
        model.setStatus(2, Status::Skipped, QStringLiteral("you requested this action (four-eyes)"));
        QCOMPARE(changed.count(), 3);
        QCOMPARE(model.totals(), (QMap<QString, qint64>{ { QStringLiteral("usd"), 6550 } }));
        QCOMPARE(model.totalsText(), QStringLiteral("65.50 USD"));
        model.setStatus(2, Status::Ready);
        QCOMPARE(model.totalsText(), QStringLiteral("10.00 EUR + 65.50 USD"));
        QCOMPARE(model.index(0, BulkDecisionModel::AmountColumn).data().toString(), QStringLiteral("40.00 USD"));
        QCOMPARE(model.index(0, BulkDecisionModel::RequesterColumn).data().toString(), QStringLiteral("agent7"));
        model.setStatus(1, Status::Refused, QStringLiteral("Stale state version"));
        QCOMPARE(model.index(1, BulkDecisionModel::ResultColumn).data().toString(),
                 QStringLiteral("Not done \u2014 Stale state version"));
        QCOMPARE(model.rowOf(QStringLiteral("act_c")), 2);
        QCOMPARE(model.rowOf(QStringLiteral("act_x")), -1);
    }

    // Approving several: a refund with warnings is shown with them and the agent's reasons, and is
    // held back until ticked (Space on its row); a tick does not carry over to other warnings;
    // held rows count in neither the total nor the button. Rejecting needs no tick.
    void warningsNeedATick()
    {
        BulkDecisionDialog dialog(QStringLiteral("approve"));
        BulkDecisionModel *model = dialog.model();
        QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model->setActions({ QStringLiteral("act_a"), QStringLiteral("act_b") });
        for (int row = 0; row < 2; ++row) {
            ActionRecord r;
            r.id = row == 0 ? QStringLiteral("act_a") : QStringLiteral("act_b");
            r.amount = row == 0 ? 19900 : 1000;
            r.currency = QStringLiteral("usd");
            model->setRecord(row, r);
            model->setStatus(row, Status::Ready);
        }
        const QStringList warnings{ QStringLiteral("199.00 USD is the whole captured amount of the charge.") };
        model->setContext(0, warnings, QStringLiteral("The parcel never arrived."));
        model->setContext(1, {}, QString());
        QCOMPARE(model->index(0, BulkDecisionModel::WarningsColumn).data().toString(), warnings.first());
        QCOMPARE(model->index(0, BulkDecisionModel::ReasonsColumn).data().toString(), QStringLiteral("The parcel never arrived."));
        QCOMPARE(model->index(1, BulkDecisionModel::WarningsColumn).data().toString(), QStringLiteral("none"));
        QCOMPARE(model->index(0, BulkDecisionModel::WarningsColumn).data(Qt::CheckStateRole).value<Qt::CheckState>(), Qt::Unchecked);
        QVERIFY(!model->index(1, BulkDecisionModel::WarningsColumn).data(Qt::CheckStateRole).isValid());
        QVERIFY(model->isHeld(0));
        QVERIFY(!model->isHeld(1));
        QCOMPARE(model->sendable(), 1);
        QCOMPARE(model->totalsText(), QStringLiteral("10.00 USD"));
        QCOMPARE(dialog.confirmButton()->text(), QStringLiteral("Approve 1"));
        QVERIFY(model->index(0, BulkDecisionModel::ResultColumn).data().toString().startsWith(QStringLiteral("Held")));

        // Space on the row (any cell of it) ticks it.
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        dialog.table()->setFocus();
        dialog.table()->setCurrentIndex(model->index(0, BulkDecisionModel::AmountColumn));
        QTest::keyClick(dialog.table(), Qt::Key_Space);
        QVERIFY(!model->isHeld(0));
        QCOMPARE(model->sendable(), 2);
        QCOMPARE(model->totalsText(), QStringLiteral("209.00 USD"));
        QCOMPARE(dialog.confirmButton()->text(), QStringLiteral("Approve 2"));

        // Other warnings after a fresh read: the tick is gone.
        model->setContext(0, warnings + QStringList{ QStringLiteral("The customer disputed this charge.") }, QString());
        QVERIFY(model->isHeld(0));
        // Once confirmed, ticks are fixed.
        dialog.setConfirmed();
        QVERIFY(!(model->flags(model->index(0, BulkDecisionModel::WarningsColumn)) & Qt::ItemIsUserCheckable));
        QVERIFY(!model->setData(model->index(0, BulkDecisionModel::WarningsColumn), Qt::Checked, Qt::CheckStateRole));

        BulkDecisionDialog reject(QStringLiteral("reject"));
        reject.model()->setActions({ QStringLiteral("act_a") });
        reject.model()->setStatus(0, Status::Ready);
        reject.model()->setContext(0, warnings, QString());
        QVERIFY(!reject.model()->isHeld(0));
        QCOMPARE(reject.model()->sendable(), 1);
        dialog.done(QDialog::Rejected);
    }

    // Three approved in one dialog while someone else rejects the second meanwhile: the first and
    // third are done, each with its own approval and key; the second shows why not; Retry failed
    // looks again and lists it as skipped (REJECTED now), resending nothing that was done.
    void oneRefusedMidwayOthersDone()
    {
        const QStringList ids = { propose(1100, "bulk-a"), propose(1200, "bulk-b"), propose(1300, "bulk-c") };
        FaultProxy proxy(m_backend.port());
        QVERIFY(proxy.listen());
        Desk desk(proxy.url(), m_backend.token(QStringLiteral("ana")));
        QSignalSpy applied(&desk.controller, &BulkDecisionController::decisionApplied);
        QVERIFY(applied.isValid());
        BulkDecisionDialog *dialog = desk.open(QStringLiteral("approve"), ids);
        QVERIFY(dialog);
        BulkDecisionModel *model = dialog->model();
        QCOMPARE(statuses(model), (QStringList{ QStringLiteral("Ready"), QStringLiteral("Ready"), QStringLiteral("Ready") }));
        QVERIFY2(dialog->totalsLabel()->text().contains(QStringLiteral("36.00 USD")), qPrintable(dialog->totalsLabel()->text()));
        QCOMPARE(model->index(0, BulkDecisionModel::RequesterColumn).data().toString(), QStringLiteral("agent7"));
        QCOMPARE(model->index(1, BulkDecisionModel::AmountColumn).data().toString(), QStringLiteral("12.00 USD"));
        QVERIFY(dialog->confirmButton()->isEnabled());
        QCOMPARE(dialog->confirmButton()->text(), QStringLiteral("Approve 3"));
        QVERIFY(QTest::qWaitForWindowExposed(dialog));
        QVERIFY(!dialog->retryButton()->isVisible()); // nothing has failed yet
        QVERIFY(dialog->descriptionLabel()->text().contains(QStringLiteral("Approve 3 refunds")));

        // Someone else rejects the second one while the reviewer looks at the dialog.
        QCOMPARE(m_backend.post(QStringLiteral("ben"), QStringLiteral("/actions/%1/rejections").arg(ids.at(1)),
                                QJsonObject{ { QStringLiteral("reason"), QStringLiteral("duplicate") } }, 1).status,
                 200);
        QTest::keyClicks(child(dialog), QStringLiteral("batch of small refunds"));
        QTest::mouseClick(dialog->confirmButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(model->count(Status::Sending), 0, 10000);
        QCOMPARE(statuses(model), (QStringList{ QStringLiteral("Done"), QStringLiteral("Not done"), QStringLiteral("Done") }));
        QVERIFY2(model->row(1).message.contains(QStringLiteral("stale"), Qt::CaseInsensitive)
                     || model->row(1).message.contains(QStringLiteral("REJECTED")),
                 qPrintable(model->row(1).message));
        QCOMPARE(applied.count(), 2);
        QVERIFY(dialog->retryButton()->isVisible());
        QCOMPARE(dialog->retryButton()->text(), QStringLiteral("Retry failed (1)"));
        QVERIFY(dialog->statusLabel()->text().contains(QStringLiteral("2 done")));
        // One request per action, each with its own key and its own If-Match.
        QCOMPARE(proxy.postKeys().size(), 3);
        QCOMPARE(QSet<QString>(proxy.postKeys().cbegin(), proxy.postKeys().cend()).size(), 3);
        QCOMPARE(proxy.postIfMatches(), (QStringList{ QStringLiteral("\"1\""), QStringLiteral("\"1\""), QStringLiteral("\"1\"") }));
        for (const QString &id : { ids.at(0), ids.at(2) }) {
            const QJsonArray a = approvals(id);
            QCOMPARE(a.size(), 1);
            QCOMPARE(a.first().toObject().value(QLatin1String("decision")).toString(), QStringLiteral("approved"));
            QCOMPARE(a.first().toObject().value(QLatin1String("decided_by")).toString(), QStringLiteral("ana"));
            QCOMPARE(a.first().toObject().value(QLatin1String("note")).toString(), QStringLiteral("batch of small refunds"));
        }
        QVERIFY(approvals(ids.at(0)).first().toObject().value(QLatin1String("idempotency_key")).toString()
                != approvals(ids.at(2)).first().toObject().value(QLatin1String("idempotency_key")).toString());

        QTest::mouseClick(dialog->retryButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(model->row(1).status, Status::Skipped, 10000);
        QVERIFY2(model->row(1).message.contains(QStringLiteral("Rejected")), qPrintable(model->row(1).message));
        QCOMPARE(proxy.postKeys().size(), 3); // nothing resent
        QCOMPARE(statuses(model), (QStringList{ QStringLiteral("Done"), QStringLiteral("Skipped"), QStringLiteral("Done") }));
        QVERIFY(!dialog->retryButton()->isVisible());
        for (const QString &id : ids)
            QCOMPARE(decisions(id), 1);
    }

    // The answer to one row's approval is lost (the backend acted): that row has no answer, the
    // others are done; Retry failed sends that row again with the same Idempotency-Key and
    // If-Match, the backend replays, and every action has exactly one approval.
    void lostAnswerIsResentWithTheSameKey()
    {
        const QStringList ids = { propose(2100, "lost-a"), propose(2200, "lost-b"), propose(2300, "lost-c") };
        FaultProxy proxy(m_backend.port());
        QVERIFY(proxy.listen());
        Desk desk(proxy.url(), m_backend.token(QStringLiteral("ana")), 1); // one send: no automatic resend
        desk.client.setDeadline(1500ms);
        BulkDecisionDialog *dialog = desk.open(QStringLiteral("approve"), ids);
        QVERIFY(dialog);
        BulkDecisionModel *model = dialog->model();
        // The first POST is applied; its answer is held until the client gives up. (A dropped
        // connection would not do: Qt resends a POST once by itself when a kept-alive connection
        // closes without an answer, STYLE.md's Qt 6.4 notes.)
        proxy.holdNextPostResponse();
        QTest::mouseClick(dialog->confirmButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(model->count(Status::Sending), 0, 10000);
        QCOMPARE(model->count(Status::Done), 2);
        QCOMPARE(model->count(Status::Unknown), 1);
        int lost = -1;
        for (int r = 0; r < model->rowCount(); ++r)
            lost = model->row(r).status == Status::Unknown ? r : lost;
        const QString lostId = model->row(lost).record.id;
        QCOMPARE(decisions(lostId), 1); // the backend did act
        QVERIFY(dialog->statusLabel()->text().contains(QStringLiteral("without an answer")));
        const QStringList firstKeys = proxy.postKeys();
        QCOMPARE(firstKeys.size(), 3);
        const QString lostKey = firstKeys.at(lost); // sent in row order
        QCOMPARE(desk.drafts.draft(DraftStore::keyFor(QStringLiteral("bulk_approve"), lostId)).idempotencyKey, lostKey);

        QVERIFY(dialog->retryButton()->isEnabled());
        QTest::mouseClick(dialog->retryButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(model->row(lost).status, Status::Done, 10000);
        QVERIFY2(model->row(lost).message.contains(QStringLiteral("replayed")), qPrintable(model->row(lost).message));
        QCOMPARE(proxy.postKeys(), firstKeys + QStringList{ lostKey });
        QCOMPARE(proxy.postIfMatches().last(), proxy.postIfMatches().at(lost));
        for (const QString &id : ids) {
            QCOMPARE(decisions(id), 1);
            QCOMPARE(approvals(id).first().toObject().value(QLatin1String("decision")).toString(), QStringLiteral("approved"));
        }
        QVERIFY(!desk.drafts.contains(DraftStore::keyFor(QStringLiteral("bulk_approve"), lostId)));
        QVERIFY(!dialog->retryButton()->isVisible());
    }

    // Not offered: an action already decided, and one this user requested (four-eyes); each is
    // listed as skipped with why, left out of the total, and nothing is sent for it.
    void undecidableActionsAreSkippedWithWhy()
    {
        const QString mine = propose(500, "own", QStringLiteral("root")); // root may propose and approve
        const QString decided = propose(600, "decided");
        const QString open = propose(700, "open");
        QCOMPARE(m_backend.post(QStringLiteral("ben"), QStringLiteral("/actions/%1/rejections").arg(decided),
                                QJsonObject{ { QStringLiteral("reason"), QStringLiteral("duplicate") } }, 1).status,
                 200);
        Desk desk(m_backend.url(), m_backend.token(QStringLiteral("root")));
        BulkDecisionDialog *dialog = desk.open(QStringLiteral("approve"), { mine, decided, open });
        QVERIFY(dialog);
        BulkDecisionModel *model = dialog->model();
        QCOMPARE(statuses(model), (QStringList{ QStringLiteral("Skipped"), QStringLiteral("Skipped"), QStringLiteral("Ready") }));
        QVERIFY2(model->row(0).message.contains(QStringLiteral("four-eyes")), qPrintable(model->row(0).message));
        QVERIFY2(model->row(1).message.contains(QStringLiteral("Rejected")), qPrintable(model->row(1).message));
        QCOMPARE(model->totalsText(), QStringLiteral("7.00 USD"));
        QVERIFY(dialog->totalsLabel()->text().contains(QStringLiteral("2 skipped")));
        QCOMPARE(dialog->confirmButton()->text(), QStringLiteral("Approve 1"));
        QTest::mouseClick(dialog->confirmButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(model->row(2).status, Status::Done, 10000);
        QCOMPARE(decisions(mine), 0);
        QCOMPARE(decisions(decided), 1);
        QCOMPARE(decisions(open), 1);

        // Nothing decidable at all: confirming is not possible, and says why.
        BulkDecisionDialog *closed = nullptr;
        dialog->done(QDialog::Rejected);
        QTRY_VERIFY(!desk.controller.openDialog());
        closed = desk.open(QStringLiteral("approve"), { mine, decided });
        QVERIFY(closed);
        QVERIFY(!closed->confirmButton()->isEnabled());
        QVERIFY(!closed->blockingReason().isEmpty());
    }

    // A bulk rejection: one reason from the list and one note for all; "other" needs the note.
    void bulkRejectionTakesOneReasonForAll()
    {
        const QStringList ids = { propose(800, "rej-a"), propose(900, "rej-b") };
        Desk desk(m_backend.url(), m_backend.token(QStringLiteral("ana")));
        BulkDecisionDialog *dialog = desk.open(QStringLiteral("reject"), ids);
        QVERIFY(dialog);
        auto *combo = dialog->findChild<QComboBox *>(QStringLiteral("reasonCombo"));
        QVERIFY(combo);
        QCOMPARE(combo->currentData().toString(), QString());
        QVERIFY(!dialog->confirmButton()->isEnabled());
        combo->setCurrentIndex(combo->findData(QStringLiteral("other")));
        QVERIFY(!dialog->confirmButton()->isEnabled()); // "other" needs a note
        QTest::keyClicks(child(dialog), QStringLiteral("the customer cancelled the claim"));
        QVERIFY(dialog->confirmButton()->isEnabled());
        combo->setCurrentIndex(combo->findData(QStringLiteral("not_eligible")));
        QCOMPARE(dialog->confirmButton()->text(), QStringLiteral("Reject 2"));
        QTest::mouseClick(dialog->confirmButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(dialog->model()->count(Status::Done), 2, 10000);
        QVERIFY(child(dialog)->isReadOnly());
        QVERIFY(!combo->isEnabled());
        for (const QString &id : ids) {
            const QJsonObject action = m_backend.action(id);
            QCOMPARE(action.value(QLatin1String("state")).toString(), QStringLiteral("REJECTED"));
            const QJsonArray a = action.value(QLatin1String("approvals")).toArray();
            QCOMPARE(a.size(), 1);
            QCOMPARE(a.first().toObject().value(QLatin1String("reason")).toString(), QStringLiteral("not_eligible"));
            QCOMPARE(a.first().toObject().value(QLatin1String("note")).toString(), QStringLiteral("the customer cancelled the claim"));
        }
        QVERIFY(dialog->model()->row(0).message.contains(QStringLiteral("Not eligible")));
    }

    // In the main window: Shift+Down selects several queue rows from the keyboard; Approve
    // selected (Ctrl+Alt+A) opens one dialog listing them, in queue order.
    void queueSelectsSeveralFromTheKeyboard()
    {
        const QStringList ids = { propose(310, "kb-a"), propose(320, "kb-b"), propose(330, "kb-c") };
        ApiClient client;
        client.setBaseUrl(m_backend.url());
        client.setToken(m_backend.token(QStringLiteral("ana")));
        client.setDeadline(5s);
        EventStreamClient events;
        events.setBaseUrl(m_backend.url());
        events.setToken(m_backend.token(QStringLiteral("ana")));
        ConsoleSettings settings(m_dir.filePath(QStringLiteral("kb.ini")));
        MainWindow window(&client, &events, &settings);
        window.resize(1400, 880);
        window.show();
        QSignalSpy first(&window, &MainWindow::firstPageShown);
        QVERIFY(first.isValid());
        window.start();
        QVERIFY(first.wait(10000));
        QTRY_VERIFY_WITH_TIMEOUT(window.queueModel()->rowOf(ids.at(2)) >= 0, 10000);
        QAction *bulk = window.bulkDecisionAction(QStringLiteral("approve"));
        QVERIFY(bulk);
        // Oldest first: kb-a, kb-b, kb-c are three rows in a row.
        QVERIFY(window.queueView()->selectAction(ids.at(0)));
        QTableView *table = window.queueView()->table();
        table->setFocus();
        QTest::keyClick(table, Qt::Key_Down, Qt::ShiftModifier);
        QTest::keyClick(table, Qt::Key_Down, Qt::ShiftModifier);
        QCOMPARE(window.queueView()->selectedActionIds(), (QStringList{ ids.at(0), ids.at(1), ids.at(2) }));
        QVERIFY(bulk->isEnabled());
        QCOMPARE(bulk->shortcut(), QKeySequence(QStringLiteral("Ctrl+Alt+A")));
        QTest::keyClick(&window, Qt::Key_A, Qt::ControlModifier | Qt::AltModifier);
        BulkDecisionDialog *dialog = window.bulkDecisions()->openDialog();
        QVERIFY(dialog);
        QTRY_COMPARE_WITH_TIMEOUT(dialog->model()->count(Status::Ready), 3, 10000);
        QCOMPARE(dialog->model()->row(0).record.id, ids.at(0));
        QVERIFY(dialog->totalsLabel()->text().contains(QStringLiteral("9.60 USD")));
        dialog->done(QDialog::Rejected);
        for (const QString &id : ids)
            QCOMPARE(decisions(id), 0);
    }

private:
    static QPlainTextEdit *child(BulkDecisionDialog *dialog)
    {
        return dialog->findChild<QPlainTextEdit *>(QStringLiteral("noteEdit"));
    }
};

QTEST_MAIN(TestBulkDecisions)
#include "tst_bulkdecisions.moc"
