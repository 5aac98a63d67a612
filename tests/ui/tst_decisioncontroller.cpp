// The DecisionController on its own (offscreen, no MainWindow) against a real countersignd and
// paysim, through a FaultProxy where answers must go missing: a lost answer keeps the
// Idempotency-Key and the resend acts once, a draft survives closing the dialog, a refusal and a
// decision overtaken by someone else keep the reviewer's input, a refused permission says why,
// and what the controller asks the window to refresh.

#include "client/apiclient.h"
#include "tests/client/backendprocess.h"
#include "tests/client/faultproxy.h"
#include "tests/support/quietoffscreen.h"
#include "ui/actiondetailpane.h"
#include "ui/approvedialog.h"
#include "ui/chargestoryview.h"
#include "ui/decisioncontroller.h"
#include "ui/decisiondialog.h"
#include "ui/draftstore.h"

#include <QJsonArray>
#include <QComboBox>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace cs;
using namespace std::chrono_literals;

namespace {

template <typename T>
T *child(QWidget *parent, const char *name)
{
    return parent ? parent->findChild<T *>(QString::fromLatin1(name)) : nullptr;
}

// What the controller needs around it: a client, the pane that shows the action, a window.
struct Desk
{
    ApiClient client;
    QWidget window;
    ActionDetailPane *pane;
    DecisionController controller;

    Desk(const QUrl &url, const QString &token, int maxSends = 0)
        : pane(new ActionDetailPane(&window))
        , controller(&client, pane, &window)
    {
        client.setBaseUrl(url);
        client.setToken(token);
        client.setDeadline(5s);
        client.setResendPolicy(100ms, 300ms, maxSends);
        client.setProbeInterval(100ms, 300ms);
        window.resize(900, 700);
        window.show();
    }
    ~Desk()
    {
        if (controller.openDialog())
            controller.openDialog()->done(QDialog::Rejected);
    }

    // Reads the action and shows it in the pane, as MainWindow does; false if it cannot be read.
    bool show(const QString &id)
    {
        ApiCall *call = client.action(id);
        QSignalSpy finished(call, &ApiCall::finished);
        if (!finished.isValid() || !finished.wait(10000))
            return false;
        const std::optional<ActionDetail> detail = ActionDetail::fromJson(call->response().object());
        if (!detail)
            return false;
        pane->setDetail(*detail);
        return true;
    }
};

} // namespace

class TestDecisionController : public QObject
{
    Q_OBJECT

private:
    BackendProcess m_backend;
    QTemporaryDir m_dir;
    QStringList m_charges;
    int m_next = 0;

    QString nextCharge() { return m_charges.at(m_next++ % m_charges.size()); }
    QString nextRef(const char *what) { return QStringLiteral("%1-%2").arg(QLatin1String(what)).arg(++m_next); }
    QString propose(qint64 amount, const char *what)
    {
        return m_backend.propose(nextCharge(), amount, nextRef(what)).value(QLatin1String("id")).toString();
    }
    int approvals(const QString &id) const
    {
        return int(m_backend.action(id).value(QLatin1String("approvals")).toArray().size());
    }

private slots:
    void initTestCase()
    {
        cs::testsupport::installQuietOffscreen();
        QVERIFY(m_dir.isValid());
        QVERIFY2(m_backend.start(24), qPrintable(m_backend.error()));
        m_charges = m_backend.charges();
        QVERIFY(m_charges.size() >= 24);
    }

    void cleanupTestCase()
    {
        m_backend.stop();
    }

    // An applied decision: the dialog closes, the draft is gone, and the window is told which
    // queue row and detail to refresh.
    void appliedDecisionTellsTheWindowWhatChanged()
    {
        const QString id = propose(1200, "applied");
        Desk desk(m_backend.url(), m_backend.token(QStringLiteral("ana")));
        QSignalSpy applied(&desk.controller, &DecisionController::decisionApplied);
        QSignalSpy rows(&desk.controller, &DecisionController::queueRowOutdated);
        QSignalSpy details(&desk.controller, &DecisionController::detailOutdated);
        QSignalSpy messages(&desk.controller, &DecisionController::statusMessage);
        QVERIFY(applied.isValid() && rows.isValid() && details.isValid() && messages.isValid());
        QVERIFY(desk.show(id));

        desk.controller.openApprove();
        DecisionDialog *dialog = desk.controller.openDialog();
        QVERIFY(dialog);
        QCOMPARE(dialog->objectName(), QStringLiteral("approveDialog"));
        // Shown and laid out, "Stop resending" stays hidden until something is being resent (Qt
        // 6.4's QDialogButtonBox shows every button it holds whenever it lays them out).
        QVERIFY(QTest::qWaitForWindowExposed(dialog));
        QVERIFY(!child<QPushButton>(dialog, "stopResendingButton")->isVisible());
        QVERIFY(dialog->confirmButton()->isVisible());
        QTest::mouseClick(dialog->confirmButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(applied.count(), 1, 10000);
        QCOMPARE(applied.first().at(0).toString(), QStringLiteral("approve"));
        QCOMPARE(applied.first().at(1).toString(), id);
        QTRY_VERIFY(!desk.controller.openDialog());
        QCOMPARE(rows.count(), 1);
        QCOMPARE(rows.first().at(0).toString(), id);
        QCOMPARE(details.count(), 1);
        QCOMPARE(details.first().at(0).toString(), id);
        QCOMPARE(messages.count(), 1);
        // The status bar names the refund by its amount and order, never by its id or key.
        const QString message = messages.first().at(0).toString();
        QVERIFY2(message.startsWith(QStringLiteral("Approved the refund of ")), qPrintable(message));
        QVERIFY2(!message.contains(id) && !message.contains(QStringLiteral("csk_")), qPrintable(message));
        QVERIFY(!desk.controller.drafts().contains(DraftStore::keyFor(QStringLiteral("approve"), id)));
        QCOMPARE(desk.controller.pendingDecisions(), 0);
        QCOMPARE(approvals(id), 1);
    }

    // The backend acts but its answer never arrives (the client's deadline passes): the key stays with the draft, the input
    // comes back, and confirming again sends the same key — the backend replays, it acts once.
    void lostAnswerKeepsTheKeyAndTheResendActsOnce()
    {
        const QString id = propose(1300, "lost");
        FaultProxy proxy(m_backend.port());
        QVERIFY(proxy.listen());
        Desk desk(proxy.url(), m_backend.token(QStringLiteral("ana")), 1); // one send: no automatic resend
        desk.client.setDeadline(1500ms);
        QSignalSpy unknown(&desk.controller, &DecisionController::outcomeUnknown);
        QSignalSpy applied(&desk.controller, &DecisionController::decisionApplied);
        QSignalSpy messages(&desk.controller, &DecisionController::statusMessage);
        QVERIFY(unknown.isValid() && applied.isValid() && messages.isValid());
        QVERIFY(desk.show(id));
        const QString draftKey = DraftStore::keyFor(QStringLiteral("approve"), id);

        desk.controller.openApprove();
        DecisionDialog *dialog = desk.controller.openDialog();
        QVERIFY(dialog);
        auto *note = child<QPlainTextEdit>(dialog, "noteEdit");
        QTest::keyClicks(note, QStringLiteral("approved once"));
        // The dialog's charge read (a POST too) has its answer before the approval is sent.
        auto *approve = qobject_cast<ApproveDialog *>(dialog);
        QVERIFY(approve);
        QTRY_VERIFY_WITH_TIMEOUT(!approve->chargeView()->statusLabel()->text().startsWith(QStringLiteral("Reading")), 10000);
        proxy.holdNextPostResponse(); // forwarded, acted on, its answer never delivered
        QTest::mouseClick(dialog->confirmButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(unknown.count(), 1, 10000);
        QCOMPARE(unknown.first().at(0).toString(), id);
        QCOMPARE(applied.count(), 0);
        QVERIFY(child<QLabel>(dialog, "statusLabel")->text().contains(QStringLiteral("Stopped waiting")));
        QCOMPARE(note->toPlainText(), QStringLiteral("approved once"));
        QVERIFY(!note->isReadOnly());
        const QString key = desk.controller.drafts().draft(draftKey).idempotencyKey;
        QVERIFY(!key.isEmpty());
        QCOMPARE(approvals(id), 1); // the backend did act

        QVERIFY(dialog->confirmButton()->isEnabled());
        QTest::mouseClick(dialog->confirmButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(applied.count(), 1, 10000);
        QCOMPARE(proxy.decisionKeys(), (QStringList{ key, key }));
        QCOMPARE(approvals(id), 1);
        QVERIFY(messages.last().at(0).toString().contains(QStringLiteral("replayed its first answer")));
        QTRY_VERIFY(!desk.controller.openDialog());
        QVERIFY(!desk.controller.drafts().contains(draftKey));
    }

    // The backend is away: the decision is resent with the same key while the input stays
    // read-only; stopping leaves the key with the draft and the text editable.
    void resendingCountsAndStoppingKeepsTheKey()
    {
        const QString id = propose(1400, "resend");
        FaultProxy proxy(m_backend.port());
        QVERIFY(proxy.listen());
        Desk desk(proxy.url(), m_backend.token(QStringLiteral("ana")));
        QSignalSpy resending(&desk.controller, &DecisionController::resending);
        QSignalSpy unknown(&desk.controller, &DecisionController::outcomeUnknown);
        QVERIFY(resending.isValid() && unknown.isValid());
        QVERIFY(desk.show(id));

        desk.controller.openApprove();
        DecisionDialog *dialog = desk.controller.openDialog();
        QVERIFY(dialog);
        auto *note = child<QPlainTextEdit>(dialog, "noteEdit");
        QTest::keyClicks(note, QStringLiteral("during an outage"));
        proxy.goDown();
        QTest::mouseClick(dialog->confirmButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(resending.count() >= 1, 5000);
        QCOMPARE(resending.first().at(0).toInt(), 1);
        QCOMPARE(desk.controller.pendingDecisions(), 1);
        QVERIFY(note->isReadOnly());
        QTest::mouseClick(child<QPushButton>(dialog, "stopResendingButton"), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(unknown.count(), 1, 5000);
        QCOMPARE(desk.controller.pendingDecisions(), 0);
        QVERIFY(!note->isReadOnly());
        QCOMPARE(note->toPlainText(), QStringLiteral("during an outage"));
        QVERIFY(!desk.controller.drafts().draft(DraftStore::keyFor(QStringLiteral("approve"), id)).idempotencyKey.isEmpty());
        QVERIFY(proxy.postKeys().isEmpty());
        QCOMPARE(approvals(id), 0);
        QVERIFY(proxy.comeBack());
    }

    // Closing the dialog (by accident) keeps the text, in memory and in the reviewer's file;
    // reopening restores it.
    void draftSurvivesClosingTheDialog()
    {
        const QString id = propose(900, "draft");
        Desk desk(m_backend.url(), m_backend.token(QStringLiteral("ana")));
        const QString file = m_dir.filePath(QStringLiteral("drafts-ana.json"));
        desk.controller.drafts().open(file);
        QVERIFY(desk.show(id));

        desk.controller.openReject();
        DecisionDialog *dialog = desk.controller.openDialog();
        QVERIFY(dialog);
        QTest::keyClicks(child<QPlainTextEdit>(dialog, "noteEdit"), QStringLiteral("half a thought"));
        QTest::keyClick(dialog, Qt::Key_Escape);
        QTRY_VERIFY(!desk.controller.openDialog());
        const QString draftKey = DraftStore::keyFor(QStringLiteral("reject"), id);
        QCOMPARE(desk.controller.drafts().draft(draftKey).fields.value(QStringLiteral("note")).toString(),
                 QStringLiteral("half a thought"));
        DraftStore onDisk;
        QVERIFY(onDisk.open(file));
        QVERIFY(onDisk.contains(draftKey));

        desk.controller.openReject();
        dialog = desk.controller.openDialog();
        QVERIFY(dialog);
        QCOMPARE(child<QPlainTextEdit>(dialog, "noteEdit")->toPlainText(), QStringLiteral("half a thought"));
    }

    // The backend refuses (here: an auditor's token behind an approver's view): the reason is
    // shown, the input stays editable and is kept as a draft, and the key is spent.
    // Issue 19: the reject dialog asks for a reason from the list (none preselected) and a note
    // only for "other"; what it sends is stored with the rejection.
    void rejectAsksForAReason()
    {
        const QString id = propose(800, "reasons");
        Desk desk(m_backend.url(), m_backend.token(QStringLiteral("ana")));
        QSignalSpy applied(&desk.controller, &DecisionController::decisionApplied);
        QVERIFY(applied.isValid());
        QVERIFY(desk.show(id));
        desk.controller.openReject();
        DecisionDialog *dialog = desk.controller.openDialog();
        QVERIFY(dialog);
        auto *combo = child<QComboBox>(dialog, "reasonCombo");
        QCOMPARE(combo->currentData().toString(), QString());
        QCOMPARE(combo->count(), 6);
        QVERIFY(!dialog->confirmButton()->isEnabled());
        combo->setCurrentIndex(combo->findData(QStringLiteral("other")));
        QVERIFY(!dialog->confirmButton()->isEnabled()); // "other" needs a note
        QTest::keyClicks(child<QPlainTextEdit>(dialog, "noteEdit"), QStringLiteral("customer asked us to wait"));
        QVERIFY(dialog->confirmButton()->isEnabled());
        combo->setCurrentIndex(combo->findData(QStringLiteral("needs_information")));
        QVERIFY(dialog->confirmButton()->isEnabled());
        QTest::mouseClick(dialog->confirmButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(applied.count(), 1, 10000);
        const QJsonObject approval = m_backend.action(id).value(QLatin1String("approvals")).toArray().first().toObject();
        QCOMPARE(approval.value(QLatin1String("reason")).toString(), QStringLiteral("needs_information"));
        QCOMPARE(approval.value(QLatin1String("note")).toString(), QStringLiteral("customer asked us to wait"));
    }

    void refusalKeepsTheInput()
    {
        const QString id = propose(700, "refused");
        Desk desk(m_backend.url(), m_backend.token(QStringLiteral("ana")));
        QSignalSpy applied(&desk.controller, &DecisionController::decisionApplied);
        QVERIFY(applied.isValid());
        QVERIFY(desk.show(id));
        desk.client.setToken(m_backend.token(QStringLiteral("audrey")));

        desk.controller.openReject();
        DecisionDialog *dialog = desk.controller.openDialog();
        QVERIFY(dialog);
        auto *reason = child<QPlainTextEdit>(dialog, "noteEdit");
        QTest::keyClicks(reason, QStringLiteral("not owed"));
        {
            auto *combo = child<QComboBox>(dialog, "reasonCombo");
            combo->setCurrentIndex(combo->findData(QStringLiteral("not_eligible")));
        }
        QTest::mouseClick(dialog->confirmButton(), Qt::LeftButton);
        QLabel *status = child<QLabel>(dialog, "statusLabel");
        QTRY_VERIFY_WITH_TIMEOUT(status->text().contains(QStringLiteral("Not done.")), 10000);
        QVERIFY(!dialog->isSending());
        QCOMPARE(applied.count(), 0);
        QCOMPARE(reason->toPlainText(), QStringLiteral("not owed"));
        QVERIFY(!reason->isReadOnly());
        const DraftStore::Draft draft = desk.controller.drafts().draft(DraftStore::keyFor(QStringLiteral("reject"), id));
        QCOMPARE(draft.fields.value(QStringLiteral("note")).toString(), QStringLiteral("not owed"));
        QVERIFY(draft.idempotencyKey.isEmpty());
        QCOMPARE(m_backend.action(id).value(QLatin1String("state")).toString(), QStringLiteral("PENDING"));
    }

    // Someone else decided first: the action is read again (and offered to the window), the
    // change is spelled out in the dialog and the reviewer's text is kept.
    void overtakenDecisionReloadsAndKeepsTheInput()
    {
        const QString id = propose(2500, "overtaken");
        Desk desk(m_backend.url(), m_backend.token(QStringLiteral("ana")));
        QSignalSpy read(&desk.controller, &DecisionController::detailRead);
        QVERIFY(read.isValid());
        QVERIFY(desk.show(id));

        desk.controller.openReject();
        DecisionDialog *dialog = desk.controller.openDialog();
        QVERIFY(dialog);
        QTest::keyClicks(child<QPlainTextEdit>(dialog, "noteEdit"), QStringLiteral("customer withdrew"));
        {
            auto *combo = child<QComboBox>(dialog, "reasonCombo");
            combo->setCurrentIndex(combo->findData(QStringLiteral("not_eligible")));
        }
        QCOMPARE(m_backend.post(QStringLiteral("ben"), QStringLiteral("/actions/%1/rejections").arg(id),
                                QJsonObject{ { QStringLiteral("reason"), QStringLiteral("duplicate") } }, 1).status,
                 200);
        QTest::mouseClick(dialog->confirmButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(read.count(), 1, 10000);
        const ActionDetail detail = read.first().at(0).value<ActionDetail>();
        QCOMPARE(detail.record.id, id);
        QCOMPARE(detail.record.state, ActionState::Rejected);
        QLabel *changes = child<QLabel>(dialog, "changesLabel");
        QVERIFY(changes->isVisible());
        QVERIFY2(changes->text().contains(QStringLiteral("rejected by ben")), qPrintable(changes->text()));
        QCOMPARE(child<QPlainTextEdit>(dialog, "noteEdit")->toPlainText(), QStringLiteral("customer withdrew"));
        QVERIFY(!dialog->confirmButton()->isEnabled());
    }

    // A newer copy of the shown action reaches an open dialog on it (live updates).
    void shownDetailReachesTheOpenDialog()
    {
        const QString id = propose(600, "live");
        Desk desk(m_backend.url(), m_backend.token(QStringLiteral("ana")));
        QVERIFY(desk.show(id));
        desk.controller.openApprove();
        DecisionDialog *dialog = desk.controller.openDialog();
        QVERIFY(dialog);
        QCOMPARE(m_backend.post(QStringLiteral("ben"), QStringLiteral("/actions/%1/rejections").arg(id),
                                QJsonObject{ { QStringLiteral("reason"), QStringLiteral("not_eligible") } }, 1).status,
                 200);
        QVERIFY(desk.show(id));
        desk.controller.adoptShownDetail(desk.pane->detail(), true);
        QCOMPARE(dialog->ifMatch(), desk.pane->detail().record.stateVersion);
        QVERIFY(child<QLabel>(dialog, "changesLabel")->isVisible());
        QVERIFY(!dialog->confirmButton()->isEnabled());
    }

    // One dialog at a time; a permission the backend refuses is explained, not opened.
    void oneDialogAndRefusedPermissionsSayWhy()
    {
        const QString id = propose(500, "perm");
        {
            Desk desk(m_backend.url(), m_backend.token(QStringLiteral("ana")));
            QVERIFY(desk.show(id));
            desk.controller.openApprove();
            DecisionDialog *first = desk.controller.openDialog();
            QVERIFY(first);
            desk.controller.openReject();
            QCOMPARE(desk.controller.openDialog(), first);
            QCOMPARE(first->kind(), QStringLiteral("approve"));
        }
        Desk auditor(m_backend.url(), m_backend.token(QStringLiteral("audrey")));
        QSignalSpy messages(&auditor.controller, &DecisionController::statusMessage);
        QVERIFY(messages.isValid());
        auditor.controller.openApprove(); // nothing shown yet: nothing happens
        QVERIFY(!auditor.controller.openDialog());
        QCOMPARE(messages.count(), 0);
        QVERIFY(auditor.show(id));
        auditor.controller.openApprove();
        QVERIFY(!auditor.controller.openDialog());
        QCOMPARE(messages.count(), 1);
        const PermissionEntry *entry = auditor.pane->detail().permissions.entry(QStringLiteral("approve"));
        QVERIFY(entry && !entry->allowed);
        QCOMPARE(messages.first().at(0).toString(), entry->reason);
        QVERIFY(!entry->reason.isEmpty());
    }
};

QTEST_MAIN(TestDecisionController)
#include "tst_decisioncontroller.moc"
