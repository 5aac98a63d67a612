// The stop switch in the console (issue 14) against a real countersignd and paysim: a supervisor
// pauses and resumes from the Execution menu, the backend holds what was asked, a second console
// (another user's) shows the status bar's indicator live, the backend's refusals are shown in the
// dialog with the input kept, a lost answer is resent with the same Idempotency-Key, a console
// whose event stream reconnects reads the state again, and other roles see the items disabled.

#include "tests/ui/testconsole.h"
#include "client/apiclient.h"
#include "client/eventstreamclient.h"
#include "tests/client/backendprocess.h"
#include "tests/client/faultproxy.h"
#include "tests/support/quietoffscreen.h"
#include "ui/consolesettings.h"
#include "ui/executioncontroller.h"
#include "ui/mainwindow.h"
#include "ui/pausedialog.h"
#include "ui/resumedialog.h"

#include <QAction>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>

using namespace cs;
using namespace std::chrono_literals;

namespace {

// One console session (tests/ui/testconsole.h).
struct Console : test::TestConsole
{
    using TestConsole::TestConsole;
    ExecutionController *execution() const { return window->execution(); }
    QLabel *indicator() const { return window->findChild<QLabel *>(QStringLiteral("statusExecution")); }
    bool live() const { return events.state() == EventStreamClient::State::Live; }
};

using test::child;

} // namespace

class TestPausesConsole : public QObject
{
    Q_OBJECT

private:
    BackendProcess m_backend;
    QTemporaryDir m_dir;
    int m_next = 0;

    std::unique_ptr<Console> open(const QString &user, const QUrl &url = QUrl())
    {
        auto console = std::make_unique<Console>(url.isValid() ? url : m_backend.url(), m_backend.token(user),
                                                 m_dir.filePath(user + QString::number(++m_next) + QStringLiteral(".ini")));
        console->showAndSignIn();
        return console;
    }

    QJsonObject executionState() const { return m_backend.get(QStringLiteral("audrey"), QStringLiteral("/execution")).body; }

    QString pauseThroughTheApi(const QJsonObject &body)
    {
        const BackendProcess::Reply r = m_backend.post(QStringLiteral("root"), QStringLiteral("/execution/pauses"), body);
        if (r.status != 201)
            qWarning("pause refused: %d", r.status);
        return r.body.value(QLatin1String("id")).toString();
    }

    // Every test starts with nothing paused.
    void resumeEverything()
    {
        const QJsonArray pauses = executionState().value(QLatin1String("pauses")).toArray();
        for (const QJsonValue &pause : pauses) {
            const QString id = pause.toObject().value(QLatin1String("id")).toString();
            QCOMPARE(m_backend.post(QStringLiteral("root"), QStringLiteral("/execution/pauses/%1/resume").arg(id), QJsonObject()).status,
                     200);
        }
    }

    PauseDialog *openPauseDialog(Console &c)
    {
        QAction *pause = c.execution()->pauseAction();
        if (!QTest::qWaitFor([pause] { return pause->isEnabled(); }, 5000))
            return nullptr;
        pause->trigger();
        return qobject_cast<PauseDialog *>(c.execution()->openDialog());
    }

private slots:
    void initTestCase()
    {
        cs::testsupport::installQuietOffscreen();
        QVERIFY(m_dir.isValid());
        QVERIFY2(m_backend.start(4, { QStringLiteral("--sse-heartbeat-ms"), QStringLiteral("1000"),
                                      QStringLiteral("--sse-poll-ms"), QStringLiteral("50") }),
                 qPrintable(m_backend.error()));
    }

    void init()
    {
        resumeEverything();
    }

    void cleanupTestCase()
    {
        m_backend.stop();
    }

    void menuFollowsTheRole_data()
    {
        QTest::addColumn<QString>("user");
        QTest::addColumn<bool>("mayPause");
        QTest::newRow("approver: disabled, with why") << QStringLiteral("ana") << false;
        QTest::newRow("auditor: disabled, with why") << QStringLiteral("audrey") << false;
        QTest::newRow("agent: disabled, with why") << QStringLiteral("agent7") << false;
        QTest::newRow("supervisor: may pause") << QStringLiteral("sue") << true;
        QTest::newRow("admin: may pause") << QStringLiteral("root") << true;
    }

    void menuFollowsTheRole()
    {
        QFETCH(QString, user);
        QFETCH(bool, mayPause);
        auto c = open(user);
        QTRY_COMPARE_WITH_TIMEOUT(c->indicator()->text(), QStringLiteral("Execution running"), 5000);
        QMenu *menu = child<QMenu>(c->window.get(), "executionMenu");
        QVERIFY(menu);
        QVERIFY(menu->actions().contains(c->execution()->pauseAction()));
        QVERIFY(menu->actions().contains(c->execution()->resumeAction()));
        QVERIFY(menu->toolTipsVisible());
        QCOMPARE(c->execution()->pauseAction()->isEnabled(), mayPause);
        QVERIFY(!c->execution()->resumeAction()->isEnabled()); // nothing is paused
        if (!mayPause) {
            for (QAction *action : { c->execution()->pauseAction(), c->execution()->resumeAction() }) {
                QVERIFY2(action->toolTip().contains(QStringLiteral("supervisors and admins")), qPrintable(action->toolTip()));
                QVERIFY(action->toolTip().contains(c->window->role()));
            }
            c->execution()->openPause(); // not even when asked directly
            QVERIFY(!c->execution()->openDialog());
        } else {
            QCOMPARE(c->execution()->resumeAction()->toolTip(), QStringLiteral("Nothing is paused now."));
        }
    }

    // The supervisor pauses from the menu; the backend holds it; another user's console shows
    // it live; the resume from the menu clears both.
    void pauseFromTheMenuShowsInEveryConsole()
    {
        auto ana = open(QStringLiteral("ana"));
        auto sue = open(QStringLiteral("sue"));
        QTRY_VERIFY_WITH_TIMEOUT(ana->live() && sue->live(), 5000);
        QTRY_COMPARE_WITH_TIMEOUT(ana->indicator()->text(), QStringLiteral("Execution running"), 5000);

        PauseDialog *dialog = openPauseDialog(*sue);
        QVERIFY(dialog);
        QVERIFY(child<QRadioButton>(dialog, "scopeAllRadio")->isChecked());
        QVERIFY(!child<QLineEdit>(dialog, "nameEdit")->isEnabled());
        QVERIFY(!dialog->confirmButton()->isEnabled()); // no reason yet
        QVERIFY(child<QLabel>(dialog, "blockingLabel")->text().contains(QStringLiteral("Say why")));
        QTest::keyClicks(child<QPlainTextEdit>(dialog, "reasonEdit"), QStringLiteral("   "));
        QVERIFY(!dialog->confirmButton()->isEnabled()); // blank is no reason
        child<QPlainTextEdit>(dialog, "reasonEdit")->clear();
        QTest::keyClicks(child<QPlainTextEdit>(dialog, "reasonEdit"), QStringLiteral("provider incident"));
        QVERIFY(dialog->confirmButton()->isEnabled());
        QTest::mouseClick(dialog->confirmButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!sue->execution()->openDialog(), 10000);

        const QJsonObject state = executionState();
        QCOMPARE(state.value(QLatin1String("paused")).toBool(), true);
        const QJsonArray pauses = state.value(QLatin1String("pauses")).toArray();
        QCOMPARE(pauses.size(), 1);
        const QJsonObject pause = pauses.first().toObject();
        QCOMPARE(pause.value(QLatin1String("scope")).toString(), QStringLiteral("all"));
        QCOMPARE(pause.value(QLatin1String("reason")).toString(), QStringLiteral("provider incident"));
        QCOMPARE(pause.value(QLatin1String("paused_by")).toString(), QStringLiteral("sue"));

        const QString summary = QStringLiteral("Execution paused: all \u2014 by sue: provider incident");
        for (Console *c : { ana.get(), sue.get() }) {
            QTRY_VERIFY2_WITH_TIMEOUT(c->indicator()->text().contains(summary), qPrintable(c->indicator()->text()), 10000);
            QVERIFY(c->indicator()->toolTip().contains(QStringLiteral("paused by sue at ")));
            QVERIFY(c->indicator()->toolTip().contains(QStringLiteral("provider incident")));
            QVERIFY(c->indicator()->styleSheet().contains(QStringLiteral("background"))); // coloured
        }
        QVERIFY(sue->window->statusBar()->currentMessage().contains(QStringLiteral("Execution paused: all")));
        QVERIFY(!ana->execution()->resumeAction()->isEnabled());
        QTRY_VERIFY_WITH_TIMEOUT(sue->execution()->resumeAction()->isEnabled(), 5000);

        sue->execution()->resumeAction()->trigger();
        auto *resume = qobject_cast<ResumeDialog *>(sue->execution()->openDialog());
        QVERIFY(resume);
        QCOMPARE(resume->pauseList()->count(), 1);
        QVERIFY(resume->pauseList()->item(0)->text().contains(QStringLiteral("provider incident")));
        QCOMPARE(resume->pauseId(), pause.value(QLatin1String("id")).toString()); // the only one: chosen
        QTest::keyClicks(child<QPlainTextEdit>(resume, "noteEdit"), QStringLiteral("provider is back"));
        QVERIFY(resume->confirmButton()->isEnabled());
        QTest::mouseClick(resume->confirmButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!sue->execution()->openDialog(), 10000);

        QCOMPARE(executionState().value(QLatin1String("paused")).toBool(), false);
        for (Console *c : { ana.get(), sue.get() })
            QTRY_COMPARE_WITH_TIMEOUT(c->indicator()->text(), QStringLiteral("Execution running"), 10000);
        QVERIFY(!sue->execution()->resumeAction()->isEnabled());
    }

    // 409 already_paused and 422 are the backend's words in the dialog; the input stays for
    // editing; nothing is written.
    void refusalsAreShownInTheDialog()
    {
        pauseThroughTheApi({ { QStringLiteral("scope"), QStringLiteral("agent") }, { QStringLiteral("agent"), QStringLiteral("agent7") },
                             { QStringLiteral("reason"), QStringLiteral("first") } });
        auto sue = open(QStringLiteral("sue"));
        PauseDialog *dialog = openPauseDialog(*sue);
        QVERIFY(dialog);
        child<QRadioButton>(dialog, "scopeAgentRadio")->click();
        QVERIFY(child<QLineEdit>(dialog, "nameEdit")->isEnabled());
        QTest::keyClicks(child<QPlainTextEdit>(dialog, "reasonEdit"), QStringLiteral("agent7 loops"));
        QVERIFY(!dialog->confirmButton()->isEnabled()); // no agent named
        QVERIFY(child<QLabel>(dialog, "blockingLabel")->text().contains(QStringLiteral("Name the agent")));
        QTest::keyClicks(child<QLineEdit>(dialog, "nameEdit"), QStringLiteral("agent7"));
        QTest::mouseClick(dialog->confirmButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(dialog->statusLabel()->text().contains(QStringLiteral("already_paused")), 10000);
        QVERIFY(dialog->isVisible());
        QCOMPARE(child<QPlainTextEdit>(dialog, "reasonEdit")->toPlainText(), QStringLiteral("agent7 loops"));
        QVERIFY(!child<QPlainTextEdit>(dialog, "reasonEdit")->isReadOnly());

        // A pasted name with a control character: the backend names the member.
        child<QRadioButton>(dialog, "scopeAccountRadio")->click();
        child<QLineEdit>(dialog, "nameEdit")->setText(QStringLiteral("acct\u00071"));
        QTest::mouseClick(dialog->confirmButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(dialog->statusLabel()->text().contains(QStringLiteral("validation_failed")), 10000);
        QVERIFY2(dialog->statusLabel()->text().contains(QStringLiteral("account: ")), qPrintable(dialog->statusLabel()->text()));
        QCOMPARE(child<QPlainTextEdit>(dialog, "reasonEdit")->toPlainText(), QStringLiteral("agent7 loops"));
        QCOMPARE(executionState().value(QLatin1String("pauses")).toArray().size(), 1);
        QTest::mouseClick(dialog->cancelButton(), Qt::LeftButton);
        QTRY_VERIFY(!sue->execution()->openDialog());
    }

    // The resume dialog follows what is in force: a pause resumed meanwhile by someone else
    // drops out of the list, and with it the choice.
    void resumeDialogFollowsThePausesInForce()
    {
        const QString first = pauseThroughTheApi({ { QStringLiteral("scope"), QStringLiteral("all") },
                                                   { QStringLiteral("reason"), QStringLiteral("one") } });
        pauseThroughTheApi({ { QStringLiteral("scope"), QStringLiteral("account") }, { QStringLiteral("account"), QStringLiteral("acct_2") },
                             { QStringLiteral("reason"), QStringLiteral("two") } });
        auto sue = open(QStringLiteral("sue"));
        QTRY_VERIFY_WITH_TIMEOUT(sue->live(), 5000);
        QTRY_VERIFY_WITH_TIMEOUT(sue->indicator()->text().contains(QStringLiteral("Execution paused (2): all, account acct_2")), 5000);
        QTRY_VERIFY_WITH_TIMEOUT(sue->execution()->resumeAction()->isEnabled(), 5000);
        sue->execution()->resumeAction()->trigger();
        auto *resume = qobject_cast<ResumeDialog *>(sue->execution()->openDialog());
        QVERIFY(resume);
        QCOMPARE(resume->pauseList()->count(), 2);
        QVERIFY(resume->pauseId().isEmpty()); // two: the supervisor chooses
        QVERIFY(!resume->confirmButton()->isEnabled());
        resume->pauseList()->item(0)->setSelected(true);
        QCOMPARE(resume->pauseId(), first);
        QVERIFY(resume->confirmButton()->isEnabled());

        QCOMPARE(m_backend.post(QStringLiteral("root"), QStringLiteral("/execution/pauses/%1/resume").arg(first), QJsonObject()).status, 200);
        QTRY_COMPARE_WITH_TIMEOUT(resume->pauseList()->count(), 1, 10000);
        QVERIFY(resume->pauseId().isEmpty());
        QVERIFY(!resume->confirmButton()->isEnabled());
        QTRY_VERIFY_WITH_TIMEOUT(sue->indicator()->text().contains(QStringLiteral("account acct_2 \u2014 by root: two")), 5000);
        QTest::mouseClick(resume->cancelButton(), Qt::LeftButton);
        QTRY_VERIFY(!sue->execution()->openDialog());
    }

    // The pause's answer is lost: the dialog says so, the same request goes again with the same
    // Idempotency-Key, the backend replays its 201 — one pause.
    void lostAnswerIsResentWithTheSameKey()
    {
        FaultProxy proxy(m_backend.port());
        QVERIFY(proxy.listen());
        auto sue = open(QStringLiteral("sue"), proxy.url());
        PauseDialog *dialog = openPauseDialog(*sue);
        QVERIFY(dialog);
        QTest::keyClicks(child<QPlainTextEdit>(dialog, "reasonEdit"), QStringLiteral("answer goes missing"));
        proxy.dropNextPostResponse(1);
        QTest::mouseClick(dialog->confirmButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!sue->execution()->openDialog(), 10000);
        QCOMPARE(proxy.droppedResponses(), 1);
        const QStringList keys = proxy.postKeys();
        QVERIFY(keys.size() >= 2);
        QCOMPARE(QSet<QString>(keys.begin(), keys.end()).size(), 1);
        const QJsonArray pauses = executionState().value(QLatin1String("pauses")).toArray();
        QCOMPARE(pauses.size(), 1);
        QCOMPARE(pauses.first().toObject().value(QLatin1String("reason")).toString(), QStringLiteral("answer goes missing"));
        QTRY_VERIFY_WITH_TIMEOUT(sue->indicator()->text().contains(QStringLiteral("answer goes missing")), 5000);
    }

    // The supervisor stops waiting for an answer that keeps getting lost, then confirms the same
    // input again: the same key goes out, the backend replays its 201 — not 409 already_paused,
    // and one pause.
    void stoppedWaitingThenConfirmedAgainReusesTheKey()
    {
        FaultProxy proxy(m_backend.port());
        QVERIFY(proxy.listen());
        auto sue = open(QStringLiteral("sue"), proxy.url());
        PauseDialog *dialog = openPauseDialog(*sue);
        QVERIFY(dialog);
        child<QRadioButton>(dialog, "scopeAgentRadio")->click();
        QTest::keyClicks(child<QLineEdit>(dialog, "nameEdit"), QStringLiteral("agent-stop"));
        QTest::keyClicks(child<QPlainTextEdit>(dialog, "reasonEdit"), QStringLiteral("stopped waiting"));
        proxy.dropNextPostResponse(1000);
        QTest::mouseClick(dialog->confirmButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(dialog->statusLabel()->text().contains(QStringLiteral("same request")), 5000);
        QVERIFY(child<QPlainTextEdit>(dialog, "reasonEdit")->isReadOnly());
        QVERIFY(!dialog->cancelButton()->isEnabled());
        QTest::mouseClick(child<QPushButton>(dialog, "stopResendingButton"), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(dialog->statusLabel()->text().contains(QStringLiteral("unknown")), 5000);
        QVERIFY(dialog->isVisible());
        QVERIFY(proxy.droppedResponses() >= 1);
        QCOMPARE(executionState().value(QLatin1String("pauses")).toArray().size(), 1); // the first copy acted

        proxy.dropNextPostResponse(0);
        QVERIFY(dialog->confirmButton()->isEnabled());
        QTest::mouseClick(dialog->confirmButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!sue->execution()->openDialog(), 10000);
        const QStringList keys = proxy.postKeys();
        QCOMPARE(QSet<QString>(keys.begin(), keys.end()).size(), 1);
        QCOMPARE(executionState().value(QLatin1String("pauses")).toArray().size(), 1);
    }

    // A console whose event stream was away reads the execution state again once it is live —
    // even when the stream does not replay what it missed (no Last-Event-ID).
    void reconnectedConsoleReadsTheStateAgain()
    {
        auto ana = open(QStringLiteral("ana"));
        QTRY_VERIFY_WITH_TIMEOUT(ana->live(), 5000);
        QTRY_COMPARE_WITH_TIMEOUT(ana->indicator()->text(), QStringLiteral("Execution running"), 5000);
        QTRY_VERIFY_WITH_TIMEOUT(!ana->execution()->isReading(), 5000);
        ana->events.stop();
        pauseThroughTheApi({ { QStringLiteral("scope"), QStringLiteral("account") }, { QStringLiteral("account"), QStringLiteral("acct_9") },
                             { QStringLiteral("reason"), QStringLiteral("while away") } });
        QCOMPARE(ana->indicator()->text(), QStringLiteral("Execution running"));
        ana->events.setLastEventId(QString());
        ana->events.start();
        QTRY_VERIFY_WITH_TIMEOUT(ana->indicator()->text().contains(QStringLiteral("account acct_9 \u2014 by root: while away")), 10000);
    }
};

QTEST_MAIN(TestPausesConsole)
#include "tst_pauses_console.moc"
