// What the approver sees beside the action (issues 14 and 19), against a real countersignd and
// paysim: the charge's story, budget and warnings in the approve dialog — read afresh when it
// opens, the detail's snapshot with its age meanwhile and when the read fails — and in the detail
// pane; the agent's record beside the requester's name; and, with `serve --policy`, the quorum
// ("1 of 2 approvals — approved by ana") and a 202 answer taken as a counted signature in the
// single and the bulk approve dialogs.

#include "client/apiclient.h"
#include "models/bulkdecisionmodel.h"
#include "tests/client/backendprocess.h"
#include "tests/support/quietoffscreen.h"
#include "ui/actiondetailpane.h"
#include "ui/approvedialog.h"
#include "ui/budgetbar.h"
#include "ui/bulkdecisioncontroller.h"
#include "ui/bulkdecisiondialog.h"
#include "ui/chargestoryview.h"
#include "ui/decisioncontroller.h"
#include "ui/draftstore.h"
#include "ui/warninglist.h"

#include <QFile>
#include <QScopeGuard>
#include <QJsonArray>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTextDocument>

using namespace cs;
using namespace std::chrono_literals;

namespace {

// Two approvers above $500.00 (docs/POLICY.md); everything else one.
const QByteArray kPolicy = R"({"rules": [
  {"id": "usd-large", "match": {"currency": "usd", "amount_above": 50000}, "require_approvals": 2}
]})";

// A client, a detail pane showing one action, and the decision controller on it, as the main
// window wires them.
struct Desk
{
    ApiClient client;
    QWidget window;
    ActionDetailPane *pane;
    DecisionController controller;
    QSignalSpy messages;

    Desk(const QUrl &url, const QString &token)
        : pane(new ActionDetailPane(&window))
        , controller(&client, pane, &window)
        , messages(&controller, &DecisionController::statusMessage)
    {
        client.setBaseUrl(url);
        client.setToken(token);
        client.setDeadline(5s);
        client.setLookupDeadline(8s);
        client.setResendPolicy(100ms, 300ms);
        window.resize(1100, 900);
        pane->resize(1100, 900);
        window.show();
    }
    ~Desk()
    {
        if (controller.openDialog())
            controller.openDialog()->done(QDialog::Rejected);
    }

    std::optional<ActionDetail> read(const QString &id)
    {
        ApiCall *call = client.action(id);
        QSignalSpy finished(call, &ApiCall::finished);
        if (!finished.isValid() || !finished.wait(10000))
            return std::nullopt;
        return ActionDetail::fromJson(call->response().object());
    }
    bool show(const QString &id)
    {
        const std::optional<ActionDetail> detail = read(id);
        if (detail)
            pane->setDetail(*detail);
        return detail.has_value();
    }
    ApproveDialog *openApprove()
    {
        controller.openApprove();
        return qobject_cast<ApproveDialog *>(controller.openDialog());
    }
    QString lastMessage() const { return messages.isEmpty() ? QString() : messages.last().at(0).toString(); }
};

QString descriptionOf(const QDialog *dialog)
{
    const auto *label = dialog->findChild<QLabel *>(QStringLiteral("descriptionLabel"));
    return label ? label->text() : QString();
}

} // namespace

class TestApproveContext : public QObject
{
    Q_OBJECT

private:
    BackendProcess m_backend;
    QTemporaryDir m_dir;
    int m_serial = 0;

    // A fresh charge at paysim with the given look; returns its id.
    QString seedCharge(qint64 amount, const QJsonObject &look = QJsonObject())
    {
        QJsonObject body = look;
        body.insert(QStringLiteral("count"), 1);
        body.insert(QStringLiteral("amount"), QJsonValue(amount));
        const BackendProcess::Reply reply = m_backend.paysimAdmin("POST", QStringLiteral("/_sim/charges"), body);
        return reply.body.value(QLatin1String("data")).toArray().first().toObject().value(QLatin1String("id")).toString();
    }
    QString propose(const QString &charge, qint64 amount, const QString &agent = QStringLiteral("agent7"))
    {
        const int n = ++m_serial;
        return m_backend.propose(charge, amount, QStringLiteral("ctx-%1").arg(n), QStringLiteral("order-%1").arg(n), agent)
            .value(QLatin1String("id"))
            .toString();
    }

private slots:
    void initTestCase()
    {
        cs::testsupport::installQuietOffscreen();
        QVERIFY(m_dir.isValid());
        const QString policy = m_dir.filePath(QStringLiteral("policy.json"));
        QFile file(policy);
        QVERIFY(file.open(QIODevice::WriteOnly) && file.write(kPolicy) == kPolicy.size());
        file.close();
        QVERIFY2(m_backend.start(4, { QStringLiteral("--policy"), policy }, { QStringLiteral("agent-rec:agent") }),
                 qPrintable(m_backend.error()));
    }

    void cleanupTestCase()
    {
        m_backend.stop();
    }

    // A disputed visa charge of $100.00, 200 days old, $10.00 already refunded at the provider;
    // $60.00 asked for. The dialog reads it afresh (recorded, asked by the approver), shows the
    // story, the budget in a bar and in words, and every warning with its icon; the pane shows
    // the same from the detail.
    void chargeStoryBudgetAndWarnings()
    {
        const QString charge = seedCharge(10000, QJsonObject{ { QStringLiteral("age_seconds"), 200 * 86400 },
                                                              { QStringLiteral("card"), QJsonObject{ { QStringLiteral("brand"), QStringLiteral("visa") },
                                                                                                     { QStringLiteral("last4"), QStringLiteral("4242") } } },
                                                              { QStringLiteral("disputed"), true } });
        QVERIFY(!charge.isEmpty());
        QVERIFY(m_backend.plantProviderRefund(charge, 1000, QStringLiteral("outside")));
        const QString id = propose(charge, 6000);
        QVERIFY(!id.isEmpty());

        Desk desk(m_backend.url(), m_backend.token(QStringLiteral("ana")));
        QVERIFY(desk.show(id));
        ChargeStoryView *paneView = desk.pane->chargeView();
        QVERIFY(paneView->view());
        QVERIFY2(paneView->statusLabel()->text().contains(QStringLiteral("when proposed")), qPrintable(paneView->statusLabel()->text()));
        const QStringList expected{ QStringLiteral("disputed"), QStringLiteral("over_half"), QStringLiteral("past_refund_window"),
                                    QStringLiteral("refunds_made") };
        QCOMPARE(paneView->warningCodes(), expected);

        ApproveDialog *dialog = desk.openApprove();
        QVERIFY(dialog);
        ChargeStoryView *view = dialog->chargeView();
        // While the fresh read is under way the detail's snapshot is shown, with its age.
        QVERIFY2(view->statusLabel()->text().contains(QStringLiteral("Reading the charge from the provider now")),
                 qPrintable(view->statusLabel()->text()));
        QVERIFY(view->view());
        QTRY_VERIFY2_WITH_TIMEOUT(view->statusLabel()->text().contains(QStringLiteral("by ana")), qPrintable(view->statusLabel()->text()), 10000);
        QVERIFY2(view->statusLabel()->text().contains(QStringLiteral("Read from the provider just now")), qPrintable(view->statusLabel()->text()));
        QCOMPARE(view->view()->snapshot.askedBy, QStringLiteral("ana"));

        const QString story = view->storyLabel()->text();
        for (const QString &part : { QStringLiteral("Captured 100.00 USD"), QStringLiteral("purchased <b>200 d ago"),
                                     QStringLiteral("visa \u2022\u2022\u2022\u2022 4242"), QStringLiteral("<b>disputed</b>"),
                                     QStringLiteral("Refunded already: 10.00 USD"), QStringLiteral("10.00 USD succeeded (through Countersign)") })
            QVERIFY2(story.contains(part), qPrintable(part + QStringLiteral(" not in ") + story));
        QCOMPARE(view->warningCodes(), expected);
        // Shown first in the dialog's warning box, not inside the charge's story.
        auto *warnings = dialog->findChild<WarningList *>(QStringLiteral("dialogWarnings"));
        QVERIFY(warnings && warnings->isVisibleTo(dialog));
        QVERIFY(!view->findChild<WarningList *>()->isVisibleTo(dialog));
        for (const QString &code : expected) {
            QWidget *row = warnings->findChild<QWidget *>(QStringLiteral("warning_") + code);
            QVERIFY2(row && row->isVisibleTo(dialog), qPrintable(code));
            QVERIFY(!row->findChild<QLabel *>(QStringLiteral("warningIcon"))->pixmap().isNull());
        }
        const QString words = view->budgetLabel()->text();
        // The words are the bar's legend: each term after a swatch of its colour (toPlainText: the
        // no-break space after each reads as a space).
        QTextDocument plain;
        plain.setHtml(words);
        QVERIFY2(plain.toPlainText().contains(QStringLiteral("captured 100.00 USD \u2212 \u25a0 refunded at the provider 10.00 USD \u2212 "
                                                             "\u25a0 reserved in Countersign 0.00 USD \u2212 \u25a0 this action "
                                                             "60.00 USD = \u25a0 30.00 USD left")),
                 qPrintable(plain.toPlainText()));
        QVERIFY2(words.contains(BudgetBar::colors(view->palette()).left.name()), qPrintable(words));
        QVERIFY(view->budgetBar()->isVisibleTo(dialog));
        const BudgetBar::Segments bar = view->budgetBar()->segments();
        QCOMPARE(bar.refunded, 1000);
        QCOMPARE(bar.reserved, 0);
        QCOMPARE(bar.thisAction, 6000);
        QCOMPARE(bar.left, 3000);
        QVERIFY(bar.fits);

        // The read is evidence in the ledger: the detail's snapshot is now the approver's.
        const QJsonObject snapshot = m_backend.action(id).value(QLatin1String("charge")).toObject().value(QLatin1String("snapshot")).toObject();
        QCOMPARE(snapshot.value(QLatin1String("asked_by")).toString(), QStringLiteral("ana"));
    }

    // A refund made at the provider's dashboard after the proposal: the detail's snapshot does not
    // know it, the dialog's fresh read does — and the budget shrinks.
    void theFreshReadSeesARefundMadeElsewhere()
    {
        const QString charge = seedCharge(5000);
        const QString id = propose(charge, 2000);
        QVERIFY(!id.isEmpty());
        QVERIFY(m_backend.plantProviderRefund(charge, 2500, QString()));

        Desk desk(m_backend.url(), m_backend.token(QStringLiteral("ana")));
        QVERIFY(desk.show(id));
        QCOMPARE(desk.pane->chargeView()->view()->budget.refundedAtProvider, 0);
        ApproveDialog *dialog = desk.openApprove();
        QVERIFY(dialog);
        ChargeStoryView *view = dialog->chargeView();
        QTRY_COMPARE_WITH_TIMEOUT(view->view()->budget.refundedAtProvider, 2500, 10000);
        QVERIFY2(view->budgetLabel()->text().contains(QStringLiteral("<b>5.00 USD left</b>")), qPrintable(view->budgetLabel()->text()));
        QVERIFY2(view->storyLabel()->text().contains(QStringLiteral("made outside Countersign")), qPrintable(view->storyLabel()->text()));
        QVERIFY(view->warningCodes().contains(QStringLiteral("refunds_made")));
        QCOMPARE(view->budgetBar()->segments().left, 500);
    }

    // The provider is down when the dialog opens: the dialog says the read failed, prominently,
    // and keeps the proposal's snapshot with its age.
    void aFailedReadKeepsTheLastSnapshot()
    {
        const QString charge = seedCharge(8000);
        const QString id = propose(charge, 1000);
        QVERIFY(!id.isEmpty());
        QCOMPARE(m_backend.paysimAdmin("POST", QStringLiteral("/_sim/faults"),
                                       QJsonObject{ { QStringLiteral("method"), QStringLiteral("GET") },
                                                    { QStringLiteral("path"), QStringLiteral("/v1/charges*") },
                                                    { QStringLiteral("fault"), QStringLiteral("outage_503") },
                                                    { QStringLiteral("times"), 0 } })
                     .status,
                 200);
        const auto clearFaults = qScopeGuard([this] { m_backend.paysimAdmin("DELETE", QStringLiteral("/_sim/faults")); });

        Desk desk(m_backend.url(), m_backend.token(QStringLiteral("ana")));
        QVERIFY(desk.show(id));
        ApproveDialog *dialog = desk.openApprove();
        QVERIFY(dialog);
        ChargeStoryView *view = dialog->chargeView();
        QTRY_VERIFY_WITH_TIMEOUT(view->warningCodes().contains(QStringLiteral("read_failed")), 15000);
        QCOMPARE(view->warningCodes().first(), QStringLiteral("read_failed"));
        const QString text = view->warningTexts().first();
        QVERIFY2(text.startsWith(QStringLiteral("The charge could not be read now: ")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("Shown: the read of ")), qPrintable(text));
        QTRY_VERIFY(dialog->findChild<WarningList *>(QStringLiteral("dialogWarnings"))
                        ->findChild<QWidget *>(QStringLiteral("warning_read_failed"))
                        ->isVisibleTo(dialog));
        // The proposal's snapshot stays, with its figures.
        QVERIFY(view->view());
        QCOMPARE(view->view()->snapshot.askedBy, QStringLiteral("proposal"));
        QCOMPARE(view->view()->budget.captured, 8000);
        QVERIFY2(view->statusLabel()->text().contains(QStringLiteral("when proposed")), qPrintable(view->statusLabel()->text()));
        // Approving still works: the read is advice.
        QVERIFY(dialog->confirmButton()->isEnabled());
    }

    // The agent's record beside its name: today and 7 days, count, total, share rejected and
    // sent to review — in the dialog and in the pane.
    void requesterRecordBesideTheName()
    {
        const QString charge = seedCharge(90000);
        const QString first = propose(charge, 1000, QStringLiteral("agent-rec"));
        const QString second = propose(charge, 3000, QStringLiteral("agent-rec"));
        const QString third = propose(charge, 500, QStringLiteral("agent-rec"));
        QVERIFY(!first.isEmpty() && !second.isEmpty() && !third.isEmpty());
        QCOMPARE(m_backend.post(QStringLiteral("ben"), QStringLiteral("/actions/%1/rejections").arg(second),
                                QJsonObject{ { QStringLiteral("reason"), QStringLiteral("wrong_amount") } }, 1)
                     .status,
                 200);
        Desk desk(m_backend.url(), m_backend.token(QStringLiteral("ana")));
        QVERIFY(desk.show(third));
        const QString record = QStringLiteral("3 refunds, 45.00 USD \u00b7 33% rejected \u00b7 0% sent to review");
        const QString field = desk.pane->findChild<QLabel *>(QStringLiteral("fieldRequestedBy"))->text();
        QCOMPARE(field, QStringLiteral("agent-rec\ntoday: %1\n7 days: %1").arg(record));
        ApproveDialog *dialog = desk.openApprove();
        QVERIFY(dialog);
        const QString description = descriptionOf(dialog);
        QVERIFY2(description.contains(QStringLiteral("agent-rec \u2014 today: %1; 7 days: %1").arg(record).toHtmlEscaped()),
                 qPrintable(description));
    }

    // Two refunds of one charge: the approve dialog lists the other one in the backend's words and
    // will not approve without a note saying why both are intended; with the note it approves, and
    // the note is kept with the approval. A refund of a charge of its own shows no such box.
    void possibleDuplicateAsksForANote()
    {
        const QString charge = seedCharge(20000);
        const QString first = propose(charge, 4000);
        const QString second = propose(charge, 3000);
        QVERIFY(!first.isEmpty() && !second.isEmpty());
        Desk desk(m_backend.url(), m_backend.token(QStringLiteral("ana")));
        QVERIFY(desk.show(second));
        ApproveDialog *dialog = desk.openApprove();
        QVERIFY(dialog);
        // First in the dialog, in the console's words.
        const QList<WarningLine> warnings = dialog->warnings();
        QVERIFY(!warnings.isEmpty());
        QCOMPARE(warnings.first().code, QStringLiteral("possible_duplicate"));
        QVERIFY2(warnings.first().text.contains(QStringLiteral("a refund of 40.00 USD (Pending; requested by agent7")),
                 qPrintable(warnings.first().text));
        QWidget *row = dialog->findChild<WarningList *>(QStringLiteral("dialogWarnings"))
                           ->findChild<QWidget *>(QStringLiteral("warning_possible_duplicate"));
        QVERIFY(row && row->isVisibleTo(dialog));
        QVERIFY(!dialog->confirmButton()->isEnabled());
        auto *note = dialog->findChild<QPlainTextEdit *>(QStringLiteral("noteEdit"));
        QVERIFY(note);
        note->setPlainText(QStringLiteral("   "));
        QVERIFY(!dialog->confirmButton()->isEnabled()); // blank is no reason
        note->setPlainText(QStringLiteral("two chairs returned, one refund each"));
        QVERIFY(dialog->confirmButton()->isEnabled());
        dialog->confirmButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(m_backend.action(second).value(QLatin1String("approval_version")).toInt() == 1, 10000);
        const QJsonArray approvals = m_backend.action(second).value(QLatin1String("approvals")).toArray();
        QCOMPARE(approvals.size(), 1);
        QCOMPARE(approvals.first().toObject().value(QLatin1String("note")).toString(),
                 QStringLiteral("two chairs returned, one refund each"));

        const QString alone = propose(seedCharge(20000), 1000);
        QVERIFY(desk.show(alone));
        ApproveDialog *clean = desk.openApprove();
        QVERIFY(clean);
        for (const WarningLine &w : clean->warnings())
            QVERIFY2(w.code != QLatin1String("possible_duplicate"), qPrintable(w.text));
        QVERIFY(!clean->findChild<WarningList *>(QStringLiteral("dialogWarnings"))->findChild<QWidget *>(QStringLiteral("warning_possible_duplicate")));
        QVERIFY(clean->confirmButton()->isEnabled());
    }

    // Dual control: the first approver's approval answers 202 — the dialog closes with "your
    // signature counted", the action stays PENDING without a key, the pane shows "1 of 2 approvals
    // — approved by ana"; the second approver's dialog says so too, and its approval mints the key.
    void quorumInTheDialogAndThePane()
    {
        const QString charge = seedCharge(100000);
        const QString id = propose(charge, 60000);
        QVERIFY(!id.isEmpty());

        Desk ana(m_backend.url(), m_backend.token(QStringLiteral("ana")));
        QVERIFY(ana.show(id));
        QVERIFY2(ana.pane->findChild<QLabel *>(QStringLiteral("fieldApproval"))->text().contains(QStringLiteral("0 of 2 approvals (rule usd-large, policy v1)")),
                 qPrintable(ana.pane->findChild<QLabel *>(QStringLiteral("fieldApproval"))->text()));
        ApproveDialog *dialog = ana.openApprove();
        QVERIFY(dialog);
        QVERIFY2(descriptionOf(dialog).contains(QStringLiteral("signature 1 of 2")), qPrintable(descriptionOf(dialog)));
        QSignalSpy finished(dialog, &QDialog::finished);
        QVERIFY(finished.isValid());
        QTest::mouseClick(dialog->confirmButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 10000);
        QCOMPARE(finished.first().at(0).toInt(), int(QDialog::Accepted));
        QVERIFY2(ana.lastMessage().startsWith(QStringLiteral("Your signature on the refund of "))
                     && ana.lastMessage().contains(QStringLiteral("counted: 1 of 2 approvals \u2014 approved by ana"))
                     && !ana.lastMessage().contains(id),
                 qPrintable(ana.lastMessage()));
        const QJsonObject after = m_backend.action(id);
        QCOMPARE(after.value(QLatin1String("state")).toString(), QStringLiteral("PENDING"));
        QVERIFY(after.value(QLatin1String("idempotency_key")).toString().isEmpty());
        QVERIFY(ana.show(id));
        QVERIFY2(ana.pane->findChild<QLabel *>(QStringLiteral("fieldApproval"))->text().contains(QStringLiteral("1 of 2 approvals \u2014 approved by ana")),
                 qPrintable(ana.pane->findChild<QLabel *>(QStringLiteral("fieldApproval"))->text()));

        Desk ben(m_backend.url(), m_backend.token(QStringLiteral("ben")));
        QVERIFY(ben.show(id));
        ApproveDialog *second = ben.openApprove();
        QVERIFY(second);
        QVERIFY2(descriptionOf(second).contains(QStringLiteral("1 of 2 approvals \u2014 approved by ana")), qPrintable(descriptionOf(second)));
        QVERIFY2(descriptionOf(second).contains(QStringLiteral("Approving signs this exact refund")), qPrintable(descriptionOf(second)));
        QTest::mouseClick(second->confirmButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(ben.lastMessage().startsWith(QStringLiteral("Approved the refund of")), 10000);
        QVERIFY(!m_backend.action(id).value(QLatin1String("idempotency_key")).toString().isEmpty());
    }

    // The bulk dialog: each row's 202 reads "signed (1 of 2)", not an error and not "approved".
    void bulkRowsReadSigned()
    {
        const QString a = propose(seedCharge(100000), 70000);
        const QString b = propose(seedCharge(100000), 80000);
        QVERIFY(!a.isEmpty() && !b.isEmpty());
        ApiClient client;
        client.setBaseUrl(m_backend.url());
        client.setToken(m_backend.token(QStringLiteral("ana")));
        client.setDeadline(5s);
        QWidget window;
        window.show();
        DraftStore drafts;
        BulkDecisionController controller(&client, &drafts, &window);
        controller.open(QStringLiteral("approve"), { a, b });
        BulkDecisionDialog *dialog = controller.openDialog();
        QVERIFY(dialog);
        BulkDecisionModel *model = dialog->model();
        QTRY_COMPARE_WITH_TIMEOUT(model->count(BulkDecisionModel::Status::Ready), 2, 10000);
        // Each is over half of its charge: held until ticked, and nothing to send before.
        QCOMPARE(model->sendable(), 0);
        QVERIFY(!dialog->confirmButton()->isEnabled());
        for (int row = 0; row < 2; ++row) {
            QVERIFY(model->isHeld(row));
            QVERIFY(model->setData(model->index(row, BulkDecisionModel::WarningsColumn), Qt::Checked, Qt::CheckStateRole));
        }
        QCOMPARE(model->sendable(), 2);
        QTest::mouseClick(dialog->confirmButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(model->count(BulkDecisionModel::Status::Done), 2, 10000);
        for (int row = 0; row < 2; ++row) {
            const QString result = model->index(row, BulkDecisionModel::ResultColumn).data().toString();
            QVERIFY2(result.contains(QStringLiteral("signed (1 of 2)")), qPrintable(result));
        }
        for (const QString &id : { a, b }) {
            const QJsonObject action = m_backend.action(id);
            QCOMPARE(action.value(QLatin1String("state")).toString(), QStringLiteral("PENDING"));
            QCOMPARE(action.value(QLatin1String("approvals_given")).toArray().size(), 1);
        }
        dialog->done(QDialog::Rejected);
    }
};

QTEST_MAIN(TestApproveContext)
#include "tst_approvecontext.moc"
