// The real main window (offscreen) against a real countersignd and paysim: approving through
// the dialog, reconciling a REQUIRES_REVIEW action with a lookup as evidence, a follow-up's
// remainder, role-disabled buttons with their reasons, a decision overtaken by someone else,
// a dialog that survives the backend going away, drafts (also across a console restart), live
// updates and remembered filters.

#include "tests/ui/testconsole.h"
#include "client/apiclient.h"
#include "client/eventstreamclient.h"
#include "models/actionqueuemodel.h"
#include "tests/client/backendprocess.h"
#include "tests/client/faultproxy.h"
#include "tests/support/quietoffscreen.h"
#include "ui/actiondetailpane.h"
#include "ui/consolesettings.h"
#include "ui/decisioncontroller.h"
#include "ui/decisiondialog.h"
#include "ui/draftstore.h"
#include "ui/mainwindow.h"
#include "ui/offlinebanner.h"
#include "ui/queueview.h"
#include "ui/timelinewidget.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QJsonArray>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>
#include <QTableView>

using namespace cs;
using namespace std::chrono_literals;

namespace {

// One console session (tests/ui/testconsole.h).
struct Console : test::TestConsole
{
    using TestConsole::TestConsole;};

using test::child;

} // namespace

class TestMainWindow : public QObject
{
    Q_OBJECT

private:
    BackendProcess m_backend;
    QTemporaryDir m_dir;
    QStringList m_charges;
    int m_next = 0;

    QString nextCharge() { return m_charges.at(m_next++ % m_charges.size()); }
    QString nextRef(const char *what) { return QStringLiteral("%1-%2").arg(QLatin1String(what)).arg(++m_next); }

    std::unique_ptr<Console> open(const QString &user, const QUrl &url = QUrl(), const QString &ini = QString())
    {
        auto console = std::make_unique<Console>(url.isValid() ? url : m_backend.url(), m_backend.token(user),
                                                 ini.isEmpty() ? m_dir.filePath(user + QString::number(++m_next) + QStringLiteral(".ini")) : ini);
        console->showAndSignIn();
        return console;
    }

    // Selects the action (it is on the first page: newest first) and waits for its detail.
    void select(Console &c, const QString &id)
    {
        QTRY_VERIFY_WITH_TIMEOUT(c.window->queueModel()->rowOf(id) >= 0, 10000);
        c.window->selectAction(id);
        QTRY_VERIFY_WITH_TIMEOUT(c.window->detailPane()->hasDetail()
                                     && c.window->detailPane()->detail().record.id == id, 10000);
    }

    // A REQUIRES_REVIEW action (a changed resubmission) whose 40.00 refund really exists at the
    // provider: what a lost first response leaves behind.
    QString actionNeedingReview(QString *chargeOut = nullptr)
    {
        const QString charge = nextCharge();
        const QString ref = nextRef("review");
        const QString id = m_backend.propose(charge, 4000, ref).value(QLatin1String("id")).toString();
        if (m_backend.resubmitChanged(charge, 4500, ref).status != 409)
            qWarning("resubmission was not refused");
        m_backend.plantProviderRefund(charge, 4000, id);
        if (chargeOut)
            *chargeOut = charge;
        return id;
    }

    // Runs the look-up dialog and waits for its result.
    void lookUpThroughDialog(Console &c)
    {
        QAction *lookup = c.window->decisionAction(QStringLiteral("lookup"));
        QTRY_VERIFY_WITH_TIMEOUT(lookup->isEnabled(), 5000);
        lookup->trigger();
        DecisionDialog *dialog = c.window->decisions()->openDialog();
        QVERIFY(dialog);
        QCOMPARE(dialog->objectName(), QStringLiteral("lookupDialog"));
        QVERIFY(child<QLabel>(dialog, "descriptionLabel")->text().contains(QStringLiteral("cannot refund anything")));
        QTest::mouseClick(dialog->confirmButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(child<QLabel>(dialog, "lookupAnswer")->text().contains(QStringLiteral("Found: paysim holds")), 15000);
        QTest::mouseClick(dialog->cancelButton(), Qt::LeftButton); // "Close"
        QTRY_VERIFY(!c.window->decisions()->openDialog());
    }

private slots:
    void initTestCase()
    {
        cs::testsupport::installQuietOffscreen();
        QVERIFY(m_dir.isValid());
        QVERIFY2(m_backend.start(40, { QStringLiteral("--sse-heartbeat-ms"), QStringLiteral("1000"),
                                       QStringLiteral("--sse-poll-ms"), QStringLiteral("50") }),
                 qPrintable(m_backend.error()));
        m_charges = m_backend.charges();
        QVERIFY(m_charges.size() >= 40);
    }

    void cleanupTestCase()
    {
        m_backend.stop();
    }

    void statusBarShowsBackendUserRoleAndLive()
    {
        auto c = open(QStringLiteral("ana"));
        QCOMPARE(c->window->userName(), QStringLiteral("ana"));
        QCOMPARE(c->window->role(), QStringLiteral("approver"));
        QVERIFY(child<QLabel>(c->window.get(), "statusUser")->text().contains(QStringLiteral("approver")));
        QVERIFY(child<QLabel>(c->window.get(), "statusBackend")->text().contains(QString::number(m_backend.port())));
        QTRY_VERIFY_WITH_TIMEOUT(child<QLabel>(c->window.get(), "statusLive")->text().contains(QStringLiteral("Live")), 5000);
    }

    void approveThroughTheDialog()
    {
        const QString charge = nextCharge();
        const QString id = m_backend.propose(charge, 4000, nextRef("approve")).value(QLatin1String("id")).toString();
        auto c = open(QStringLiteral("ana"));
        select(*c, id);
        if (QTest::currentTestFailed())
            return;
        QAction *approve = c->window->decisionAction(QStringLiteral("approve"));
        QVERIFY(approve->isEnabled());
        approve->trigger();
        DecisionDialog *dialog = c->window->decisions()->openDialog();
        QVERIFY(dialog);
        QCOMPARE(dialog->objectName(), QStringLiteral("approveDialog"));
        const QString description = child<QLabel>(dialog, "descriptionLabel")->text();
        QVERIFY(description.contains(QStringLiteral("40.00 USD")));
        QVERIFY(description.contains(QStringLiteral("Nothing is sent")));
        // Words for people: no key, no fingerprint, no minor units; the charge is named in its story.
        QVERIFY2(!description.contains(QStringLiteral("minor units")) && !description.contains(QStringLiteral("idempotency")),
                 qPrintable(description));
        QVERIFY(child<QLabel>(dialog, "chargeStory")->text().contains(charge));
        QTest::keyClicks(child<QPlainTextEdit>(dialog, "noteEdit"), QStringLiteral("matches ticket 1042"));
        QTest::mouseClick(dialog->confirmButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!c->window->decisions()->openDialog(), 10000);

        const QJsonObject action = m_backend.action(id);
        const QJsonArray approvals = action.value(QLatin1String("approvals")).toArray();
        QCOMPARE(approvals.size(), 1);
        QCOMPARE(approvals.first().toObject().value(QLatin1String("version")).toInt(), 1);
        QCOMPARE(approvals.first().toObject().value(QLatin1String("decided_by")).toString(), QStringLiteral("ana"));
        QCOMPARE(approvals.first().toObject().value(QLatin1String("note")).toString(), QStringLiteral("matches ticket 1042"));
        QCOMPARE(action.value(QLatin1String("approval_version")).toInt(), 1);
        QVERIFY(!action.value(QLatin1String("idempotency_key")).toString().isEmpty());
        const QString message = c->window->statusBar()->currentMessage();
        QVERIFY2(message.startsWith(QStringLiteral("Approved the refund of 40.00 USD")), qPrintable(message));
        QVERIFY2(!message.contains(id) && !message.contains(action.value(QLatin1String("idempotency_key")).toString()),
                 qPrintable(message));
    }

    void keyboardOnly()
    {
        m_backend.propose(nextCharge(), 1001, nextRef("keys-other"));
        m_backend.propose(nextCharge(), 1002, nextRef("keys-other"));
        const QString id = m_backend.propose(nextCharge(), 1234, nextRef("keys")).value(QLatin1String("id")).toString();
        auto c = open(QStringLiteral("ben"));
        QTRY_VERIFY_WITH_TIMEOUT(c->window->queueModel()->rowCount() > 1, 10000);
        // Ctrl+F, type the reference... the search goes to the backend and shows one row.
        QTest::keyClick(c->window.get(), Qt::Key_F, Qt::ControlModifier);
        QLineEdit *search = c->window->queueView()->searchEdit();
        QTRY_COMPARE(c->window->focusWidget(), search);
        QTest::keyClicks(search, id);
        QTest::keyClick(search, Qt::Key_Return);
        QTRY_COMPARE_WITH_TIMEOUT(c->window->queueModel()->rowCount(), 1, 10000);
        QTRY_COMPARE_WITH_TIMEOUT(c->window->currentActionId(), id, 10000);
        QTRY_VERIFY_WITH_TIMEOUT(c->window->decisionAction(QStringLiteral("approve"))->isEnabled(), 5000);
        // Ctrl+Shift+A opens the dialog, Ctrl+Enter confirms.
        QTest::keyClick(c->window.get(), Qt::Key_A, Qt::ControlModifier | Qt::ShiftModifier);
        QTRY_VERIFY(c->window->decisions()->openDialog());
        QTest::keyClick(c->window->decisions()->openDialog(), Qt::Key_Return, Qt::ControlModifier);
        QTRY_VERIFY_WITH_TIMEOUT(!c->window->decisions()->openDialog(), 10000);
        QCOMPARE(m_backend.action(id).value(QLatin1String("approval_version")).toInt(), 1);
        // Arrows move through the queue.
        QTest::keyClick(search, Qt::Key_Escape);
        QTRY_VERIFY_WITH_TIMEOUT(c->window->queueModel()->rowCount() > 1, 10000);
        QTableView *table = c->window->queueView()->table();
        QTRY_COMPARE(c->window->focusWidget(), table); // focus within the window (offscreen windows need not be active)
        const int before = table->currentIndex().row();
        QTest::keyClick(table, Qt::Key_Down);
        QCOMPARE(table->currentIndex().row(), before + 1);
        QTRY_COMPARE_WITH_TIMEOUT(c->window->currentActionId(),
                                  table->currentIndex().data(ActionQueueModel::ActionIdRole).toString(), 5000);
    }

    void buttonsFollowTheRole_data()
    {
        QTest::addColumn<QString>("user");
        QTest::addColumn<QStringList>("enabled");
        QTest::newRow("auditor: nothing") << QStringLiteral("audrey") << QStringList{};
        QTest::newRow("supervisor: look up only, on a PENDING action") << QStringLiteral("sue") << QStringList{ QStringLiteral("lookup") };
        QTest::newRow("approver: approve and reject") << QStringLiteral("ana") << QStringList{ QStringLiteral("approve"), QStringLiteral("reject") };
        QTest::newRow("the proposer cannot approve (four eyes)") << QStringLiteral("agent7") << QStringList{};
    }

    void buttonsFollowTheRole()
    {
        QFETCH(QString, user);
        QFETCH(QStringList, enabled);
        const QString id = m_backend.propose(nextCharge(), 999, nextRef("roles")).value(QLatin1String("id")).toString();
        auto c = open(user);
        select(*c, id);
        if (QTest::currentTestFailed())
            return;
        QStringList actuallyEnabled;
        for (const char *kind : { "approve", "reject", "lookup", "reconcile", "follow_up" }) {
            QAction *action = c->window->decisionAction(QString::fromLatin1(kind));
            if (action->isEnabled())
                actuallyEnabled << QString::fromLatin1(kind);
            else
                QVERIFY2(action->toolTip().contains(QStringLiteral("not available")), qPrintable(action->toolTip()));
        }
        QCOMPARE(actuallyEnabled, enabled);
        // The button in the pane is the action's, and the reasons are spelled out under them.
        QToolButton *approveButton = child<QToolButton>(c->window->detailPane(), "approveActionButton");
        QVERIFY(approveButton);
        QCOMPARE(approveButton->isEnabled(), enabled.contains(QStringLiteral("approve")));
        QLabel *reasons = c->window->detailPane()->permissionReasonsLabel();
        QVERIFY(reasons->isVisible());
        QVERIFY(reasons->text().contains(QStringLiteral("Reconcile")));
    }

    void reconcileWithALookupAsEvidence()
    {
        const QString id = actionNeedingReview();
        auto c = open(QStringLiteral("sue"));
        select(*c, id);
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(c->window->detailPane()->detail().record.state, ActionState::RequiresReview);
        // No evidence yet: the backend says why reconcile is unavailable.
        QVERIFY(!c->window->decisionAction(QStringLiteral("reconcile"))->isEnabled());

        lookUpThroughDialog(*c);
        if (QTest::currentTestFailed())
            return;
        QTRY_COMPARE_WITH_TIMEOUT(c->window->detailPane()->detail().lookups.size(), 1, 10000);
        QTRY_VERIFY_WITH_TIMEOUT(c->window->decisionAction(QStringLiteral("reconcile"))->isEnabled(), 10000);
        c->window->decisionAction(QStringLiteral("reconcile"))->trigger();
        DecisionDialog *dialog = c->window->decisions()->openDialog();
        QVERIFY(dialog);
        QCOMPARE(dialog->objectName(), QStringLiteral("reconcileDialog"));
        QVERIFY(!dialog->confirmButton()->isEnabled());

        // The wrong outcome for the evidence is refused before it is sent.
        child<QRadioButton>(dialog, "notCommittedRadio")->click();
        auto *evidence = child<QTableView>(dialog, "evidenceView");
        evidence->selectRow(0);
        QTest::keyClicks(child<QPlainTextEdit>(dialog, "noteEdit"), QStringLiteral("re_ found, succeeded, 40.00"));
        QVERIFY(!dialog->confirmButton()->isEnabled());
        QVERIFY(child<QLabel>(dialog, "blockingLabel")->text().contains(QStringLiteral("does not show")));

        child<QRadioButton>(dialog, "committedRadio")->click();
        QTRY_VERIFY(dialog->confirmButton()->isEnabled());
        QVERIFY(child<QLabel>(dialog, "descriptionLabel")->text().contains(QStringLiteral("COMPLETED")));
        QTest::mouseClick(dialog->confirmButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!c->window->decisions()->openDialog(), 10000);

        const QJsonObject action = m_backend.action(id);
        QCOMPARE(action.value(QLatin1String("state")).toString(), QStringLiteral("COMPLETED"));
        const QJsonArray reconciliations = action.value(QLatin1String("reconciliations")).toArray();
        QCOMPARE(reconciliations.size(), 1);
        QCOMPARE(reconciliations.first().toObject().value(QLatin1String("outcome")).toString(), QStringLiteral("committed"));
        QCOMPARE(reconciliations.first().toObject().value(QLatin1String("evidence_lookup_seq")).toInt(), 1);
        // Decided: its row leaves the to-do list and the console shows the next action, if any.
        QTRY_VERIFY_WITH_TIMEOUT(c->window->queueModel()->rowOf(id) < 0, 10000);
        QVERIFY(c->window->currentActionId() != id);
        QCOMPARE(c->window->detailPane()->hasDetail() ? c->window->detailPane()->detail().record.id : QString(),
                 c->window->currentActionId());
    }

    void followUpComputesTheRemainder()
    {
        // 40.00 committed per provider evidence; the customer is owed 45.00: the follow-up is 5.00.
        const QString id = actionNeedingReview();
        BackendProcess::Reply r = m_backend.post(QStringLiteral("sue"), QStringLiteral("/actions/%1/lookups").arg(id), {},
                                                 m_backend.action(id).value(QLatin1String("state_version")).toInteger());
        QCOMPARE(r.status, 200);
        const int seq = r.body.value(QLatin1String("lookup")).toObject().value(QLatin1String("seq")).toInt();
        r = m_backend.post(QStringLiteral("sue"), QStringLiteral("/actions/%1/reconciliations").arg(id),
                           QJsonObject{ { QStringLiteral("outcome"), QStringLiteral("committed") },
                                        { QStringLiteral("evidence_lookup_seq"), seq },
                                        { QStringLiteral("note"), QStringLiteral("found") } },
                           r.body.value(QLatin1String("action")).toObject().value(QLatin1String("state_version")).toInteger());
        QCOMPARE(r.status, 200);

        auto c = open(QStringLiteral("sue"));
        c->window->queueView()->apply(QueueView::Filter::All, QString());
        select(*c, id);
        if (QTest::currentTestFailed())
            return;
        QTRY_VERIFY_WITH_TIMEOUT(c->window->decisionAction(QStringLiteral("follow_up"))->isEnabled(), 5000);
        c->window->decisionAction(QStringLiteral("follow_up"))->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(c->window->decisions()->openDialog(), 5000);
        DecisionDialog *dialog = c->window->decisions()->openDialog();
        QCOMPARE(dialog->objectName(), QStringLiteral("followUpDialog"));
        QVERIFY(child<QLabel>(dialog, "committedLabel")->text().contains(QStringLiteral("40.00 USD")));
        QTest::keyClicks(child<QLineEdit>(dialog, "desiredTotalEdit"), QStringLiteral("45.00"));
        QCOMPARE(child<QLabel>(dialog, "remainderLabel")->text(), QStringLiteral("5.00 USD"));
        QVERIFY(!dialog->confirmButton()->isEnabled()); // the note is missing
        QTest::keyClicks(child<QPlainTextEdit>(dialog, "noteEdit"), QStringLiteral("owed 45.00 in total"));
        QVERIFY(dialog->confirmButton()->isEnabled());
        QVERIFY(child<QLabel>(dialog, "descriptionLabel")->text().contains(QStringLiteral("5.00 USD")));
        // Nothing remains at 40.00 or less.
        child<QLineEdit>(dialog, "desiredTotalEdit")->setText(QStringLiteral("40"));
        QVERIFY(!dialog->confirmButton()->isEnabled());
        child<QLineEdit>(dialog, "desiredTotalEdit")->setText(QStringLiteral("45.00"));
        QTest::mouseClick(dialog->confirmButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!c->window->decisions()->openDialog(), 10000);

        const QJsonArray followUps = m_backend.action(id).value(QLatin1String("related")).toObject()
                                         .value(QLatin1String("follow_ups")).toArray();
        QCOMPARE(followUps.size(), 1);
        QCOMPARE(followUps.first().toObject().value(QLatin1String("amount")).toInteger(), 500);
    }

    // Someone else acts while the reviewer decides (no live stream here, so the backend's 412
    // is what tells): the action is reloaded, the change is spelled out, the text is kept.
    void overtakenDecisionSaysWhatChanged()
    {
        const QString id = m_backend.propose(nextCharge(), 2500, nextRef("stale")).value(QLatin1String("id")).toString();
        auto c = open(QStringLiteral("ana"));
        c->events.stop();
        select(*c, id);
        if (QTest::currentTestFailed())
            return;
        c->window->decisionAction(QStringLiteral("reject"))->trigger();
        DecisionDialog *dialog = c->window->decisions()->openDialog();
        QVERIFY(dialog);
        QTest::keyClicks(child<QPlainTextEdit>(dialog, "noteEdit"), QStringLiteral("customer withdrew the claim"));
        {
            auto *combo = child<QComboBox>(dialog, "reasonCombo");
            combo->setCurrentIndex(combo->findData(QStringLiteral("not_eligible")));
        }
        QCOMPARE(m_backend.post(QStringLiteral("ben"), QStringLiteral("/actions/%1/rejections").arg(id),
                                QJsonObject{ { QStringLiteral("reason"), QStringLiteral("duplicate") }, { QStringLiteral("note"), QStringLiteral("duplicate of order 77") } }, 1).status,
                 200);
        QTest::mouseClick(dialog->confirmButton(), Qt::LeftButton);
        QLabel *changes = child<QLabel>(dialog, "changesLabel");
        QTRY_VERIFY_WITH_TIMEOUT(changes->isVisible(), 10000);
        QVERIFY2(changes->text().contains(QStringLiteral("rejected by ben")), qPrintable(changes->text()));
        QVERIFY(changes->text().contains(QStringLiteral("Rejected")));
        QCOMPARE(child<QPlainTextEdit>(dialog, "noteEdit")->toPlainText(), QStringLiteral("customer withdrew the claim"));
        QVERIFY(!dialog->confirmButton()->isEnabled()); // it is no longer PENDING
        QCOMPARE(m_backend.action(id).value(QLatin1String("approvals")).toArray().size(), 1);
    }

    // The backend goes away with a decision half-made: the text stays, the decision is resent
    // with the same key when it is back, and it is applied exactly once.
    void offlineDialogKeepsItsTextAndIsResent()
    {
        const QString id = m_backend.propose(nextCharge(), 3300, nextRef("offline")).value(QLatin1String("id")).toString();
        FaultProxy proxy(m_backend.port());
        QVERIFY(proxy.listen());
        auto c = open(QStringLiteral("ana"), proxy.url());
        select(*c, id);
        if (QTest::currentTestFailed())
            return;
        c->window->decisionAction(QStringLiteral("approve"))->trigger();
        DecisionDialog *dialog = c->window->decisions()->openDialog();
        QVERIFY(dialog);
        auto *note = child<QPlainTextEdit>(dialog, "noteEdit");
        QTest::keyClicks(note, QStringLiteral("approved during an outage"));

        proxy.goDown();
        QTest::mouseClick(dialog->confirmButton(), Qt::LeftButton);
        QLabel *status = child<QLabel>(dialog, "statusLabel");
        QTRY_VERIFY_WITH_TIMEOUT(status->text().contains(QStringLiteral("same request")), 5000);
        // The key is for whoever asks (the tooltip), not in the sentence.
        QVERIFY(!status->text().contains(QStringLiteral("Idempotency-Key")));
        QVERIFY(status->toolTip().contains(QStringLiteral("Idempotency-Key")));
        QTRY_VERIFY_WITH_TIMEOUT(c->window->offlineBanner()->isVisible(), 5000);
        QVERIFY(c->window->offlineBanner()->text().contains(QStringLiteral("Offline")));
        QCOMPARE(note->toPlainText(), QStringLiteral("approved during an outage"));
        QVERIFY(note->isReadOnly());
        QVERIFY(dialog->isVisible());
        QTRY_VERIFY_WITH_TIMEOUT(child<QLabel>(c->window.get(), "statusLive")->text().contains(QStringLiteral("Offline")), 5000);

        QVERIFY(proxy.comeBack());
        QTRY_VERIFY_WITH_TIMEOUT(!c->window->decisions()->openDialog(), 10000);
        QTRY_VERIFY_WITH_TIMEOUT(!c->window->offlineBanner()->isVisible(), 5000);
        const QJsonObject action = m_backend.action(id);
        QCOMPARE(action.value(QLatin1String("approvals")).toArray().size(), 1);
        QCOMPARE(action.value(QLatin1String("approvals")).toArray().first().toObject().value(QLatin1String("note")).toString(),
                 QStringLiteral("approved during an outage"));
        const QStringList keys = proxy.decisionKeys();
        QVERIFY(!keys.isEmpty());
        QCOMPARE(QSet<QString>(keys.begin(), keys.end()).size(), 1);
    }

    void draftSurvivesAnAccidentalClose()
    {
        const QString id = m_backend.propose(nextCharge(), 800, nextRef("draft")).value(QLatin1String("id")).toString();
        auto c = open(QStringLiteral("ana"));
        select(*c, id);
        if (QTest::currentTestFailed())
            return;
        c->window->decisionAction(QStringLiteral("reject"))->trigger();
        DecisionDialog *dialog = c->window->decisions()->openDialog();
        QTest::keyClicks(child<QPlainTextEdit>(dialog, "noteEdit"), QStringLiteral("half a thought"));
        QTest::keyClick(dialog, Qt::Key_Escape);
        QTRY_VERIFY(!c->window->decisions()->openDialog());
        c->window->decisionAction(QStringLiteral("reject"))->trigger();
        dialog = c->window->decisions()->openDialog();
        QVERIFY(dialog);
        QCOMPARE(child<QPlainTextEdit>(dialog, "noteEdit")->toPlainText(), QStringLiteral("half a thought"));
        dialog->done(QDialog::Rejected);
    }

    // The console is closed while a decision's fate is unknown: the next console on the same
    // settings restores the text and resends with the very same Idempotency-Key.
    void draftAndPendingKeySurviveARestart()
    {
        const QString id = m_backend.propose(nextCharge(), 2100, nextRef("restart")).value(QLatin1String("id")).toString();
        const QString ini = m_dir.filePath(QStringLiteral("restart.ini"));
        const QString draftKey = DraftStore::keyFor(QStringLiteral("approve"), id);
        FaultProxy proxy(m_backend.port());
        QVERIFY(proxy.listen());
        QString pendingKey;
        {
            auto c = open(QStringLiteral("ana"), proxy.url(), ini);
            select(*c, id);
            if (QTest::currentTestFailed())
                return;
            c->window->decisionAction(QStringLiteral("approve"))->trigger();
            DecisionDialog *dialog = c->window->decisions()->openDialog();
            QVERIFY(dialog);
            QTest::keyClicks(child<QPlainTextEdit>(dialog, "noteEdit"), QStringLiteral("approved before a restart"));
            proxy.goDown();
            QTest::mouseClick(dialog->confirmButton(), Qt::LeftButton);
            QTRY_VERIFY_WITH_TIMEOUT(child<QLabel>(dialog, "statusLabel")->text().contains(QStringLiteral("same request")), 5000);
            QTest::mouseClick(child<QPushButton>(dialog, "stopResendingButton"), Qt::LeftButton);
            QTRY_VERIFY_WITH_TIMEOUT(child<QLabel>(dialog, "statusLabel")->text().contains(QStringLiteral("Stopped waiting")), 5000);
            pendingKey = c->window->decisions()->drafts().draft(draftKey).idempotencyKey;
            QVERIFY(!pendingKey.isEmpty());
            dialog->done(QDialog::Rejected);
        } // the console is gone
        const QStringList files = QDir(m_dir.filePath(QStringLiteral("drafts"))).entryList({ QStringLiteral("*.json") }, QDir::Files);
        QVERIFY(!files.isEmpty());
        QVERIFY(proxy.postKeys().isEmpty()); // nothing reached the backend

        QVERIFY(proxy.comeBack());
        // Another user on the same settings file sees none of it.
        {
            auto ben = open(QStringLiteral("ben"), proxy.url(), ini);
            QCOMPARE(ben->window->userName(), QStringLiteral("ben"));
            QVERIFY(!ben->window->decisions()->drafts().fileName().isEmpty());
            QVERIFY(!ben->window->decisions()->drafts().contains(draftKey));
        }
        auto c = open(QStringLiteral("ana"), proxy.url(), ini);
        QCOMPARE(c->window->decisions()->drafts().draft(draftKey).idempotencyKey, pendingKey);
        select(*c, id);
        if (QTest::currentTestFailed())
            return;
        c->window->decisionAction(QStringLiteral("approve"))->trigger();
        DecisionDialog *dialog = c->window->decisions()->openDialog();
        QVERIFY(dialog);
        QCOMPARE(child<QPlainTextEdit>(dialog, "noteEdit")->toPlainText(), QStringLiteral("approved before a restart"));
        QTest::mouseClick(dialog->confirmButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!c->window->decisions()->openDialog(), 10000);
        QCOMPARE(proxy.decisionKeys(), QStringList{ pendingKey });
        const QJsonArray approvals = m_backend.action(id).value(QLatin1String("approvals")).toArray();
        QCOMPARE(approvals.size(), 1);
        QCOMPARE(approvals.first().toObject().value(QLatin1String("note")).toString(), QStringLiteral("approved before a restart"));
        // Applied: the draft is gone, from memory and from the file.
        QVERIFY(!c->window->decisions()->drafts().contains(draftKey));
        DraftStore onDisk;
        QVERIFY(onDisk.open(c->window->decisions()->drafts().fileName()));
        QVERIFY(!onDisk.contains(draftKey));
    }

    void liveUpdatesKeepTheSelection()
    {
        const QString tag = nextRef("live");
        const QString older = m_backend.propose(nextCharge(), 111, tag + QStringLiteral("-a"), tag).value(QLatin1String("id")).toString();
        m_backend.propose(nextCharge(), 222, tag + QStringLiteral("-b"), tag);
        auto c = open(QStringLiteral("sue"));
        select(*c, older);
        if (QTest::currentTestFailed())
            return;
        QTRY_VERIFY_WITH_TIMEOUT(child<QLabel>(c->window.get(), "statusLive")->text().contains(QStringLiteral("Live")), 5000);
        QSignalSpy inserted(c->window->queueModel(), &QAbstractItemModel::rowsInserted);
        QSignalSpy reset(c->window->queueModel(), &QAbstractItemModel::modelReset);
        QVERIFY(inserted.isValid() && reset.isValid());
        const int rowsBefore = c->window->queueModel()->rowCount();
        const QString newer = m_backend.propose(nextCharge(), 333, tag + QStringLiteral("-c"), tag).value(QLatin1String("id")).toString();
        // Oldest first: the newest arrives after the others, and nothing moves.
        QTRY_VERIFY_WITH_TIMEOUT(c->window->queueModel()->rowOf(newer) > c->window->queueModel()->rowOf(older), 10000);
        QCOMPARE(c->window->queueModel()->rowCount(), rowsBefore + 1);
        QCOMPARE(reset.count(), 0);
        QCOMPARE(c->window->currentActionId(), older);
        QCOMPARE(c->window->queueView()->table()->currentIndex().data(ActionQueueModel::ActionIdRole).toString(), older);
        QCOMPARE(c->window->detailPane()->detail().record.id, older);
        // A change of the selected action updates it in place.
        QCOMPARE(m_backend.post(QStringLiteral("ben"), QStringLiteral("/actions/%1/rejections").arg(older),
                                QJsonObject{ { QStringLiteral("reason"), QStringLiteral("not_eligible") } }, 1).status, 200);
        QTRY_COMPARE_WITH_TIMEOUT(c->window->detailPane()->detail().record.state, ActionState::Rejected, 10000);
        const int row = c->window->queueModel()->rowOf(older);
        QVERIFY(row >= 0);
        QCOMPARE(c->window->queueModel()->index(row, 0).data(ActionQueueModel::StateRole).toInt(), int(ActionState::Rejected));
        QCOMPARE(c->window->currentActionId(), older);
    }

    void timelineAndDiffForAReviewedAction()
    {
        const QString id = actionNeedingReview();
        auto c = open(QStringLiteral("audrey"));
        select(*c, id);
        if (QTest::currentTestFailed())
            return;
        ActionDetailPane *pane = c->window->detailPane();
        QVERIFY(pane->tabs()->isTabVisible(ActionDetailPane::DiffTab));
        pane->showTab(ActionDetailPane::DiffTab);
        QCOMPARE(pane->tabs()->currentIndex(), int(ActionDetailPane::DiffTab));
        QVERIFY(child<QLabel>(pane, "diffSummary")->text().contains(QStringLiteral("amount")));
        const QList<TimelineWidget::Mark> &marks = pane->timeline()->marks();
        QVERIFY(std::any_of(marks.cbegin(), marks.cend(), [](const TimelineWidget::Mark &m) {
            return m.lane == TimelineWidget::Lane::Decision && m.label.contains(QStringLiteral("changed payload"));
        }));
        QVERIFY(pane->timeline()->accessibleDescription().contains(QStringLiteral("Requires review")));
    }

    void filtersAndLayoutAreRemembered()
    {
        const QString ini = m_dir.filePath(QStringLiteral("remember.ini"));
        {
            auto c = open(QStringLiteral("sue"), QUrl(), ini);
            QToolButton *review = child<QToolButton>(c->window.get(), "filterReview");
            QVERIFY(review);
            review->click();
            QTRY_VERIFY_WITH_TIMEOUT(!c->window->queueModel()->isLoading(), 5000);
            c->window->close();
        }
        auto c = open(QStringLiteral("sue"), QUrl(), ini);
        QCOMPARE(c->window->queueView()->filter(), QueueView::Filter::Review);
        QVERIFY(child<QToolButton>(c->window.get(), "filterReview")->isChecked());
        QTRY_VERIFY_WITH_TIMEOUT(!c->window->queueModel()->isLoading(), 5000);
        for (int r = 0; r < c->window->queueModel()->rowCount(); ++r)
            QCOMPARE(c->window->queueModel()->index(r, 0).data(ActionQueueModel::StateRole).toInt(), int(ActionState::RequiresReview));
    }

    void accessibleNamesOnControls()
    {
        auto c = open(QStringLiteral("ana"));
        for (const char *name : { "searchEdit", "queueTable", "timeline" }) {
            QWidget *w = child<QWidget>(c->window.get(), name);
            QVERIFY2(w, name);
            QVERIFY2(!w->accessibleName().isEmpty(), name);
        }
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
