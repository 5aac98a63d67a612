// Issue 18 end to end in the console: the real main window (offscreen) against a real countersignd
// and paysim. paysim answers a refund `pending` and fails it a minute later on its clock; a look-up
// records it; the supervisor's console, open meanwhile, counts it under "Refund failed",
// shows the banner, and closes it with a note through the banner's button — the count goes back
// to 0 and the backend records the decision.

#include "tests/ui/testconsole.h"
#include "models/actionqueuemodel.h"
#include "tests/client/backendprocess.h"
#include "tests/support/quietoffscreen.h"
#include "ui/actiondetailpane.h"
#include "ui/attentioncontroller.h"
#include "ui/settlementclosedialog.h"
#include "ui/settlementview.h"

#include <QAction>
#include <QFrame>
#include <QJsonDocument>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

using namespace cs;
using test::child;

class TestSettlementConsole : public QObject
{
    Q_OBJECT

private:
    BackendProcess m_backend;
    QTemporaryDir m_dir;

    QJsonObject settlementOf(const QString &id) const
    {
        return m_backend.action(id).value(QLatin1String("settlement")).toObject();
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

    void cleanupTestCase()
    {
        m_backend.stop();
    }

    void aFailedRefundIsCountedShownAndClosedWithANote()
    {
        // paysim answers the next refund pending and fails it 60 s later on its clock.
        const BackendProcess::Reply rule = m_backend.paysimAdmin(
            "POST", QStringLiteral("/_sim/faults"),
            QJsonObject{ { QStringLiteral("fault"), QStringLiteral("refund_settles") }, { QStringLiteral("method"), QStringLiteral("POST") },
                         { QStringLiteral("path"), QStringLiteral("/v1/refunds") }, { QStringLiteral("times"), 1 },
                         { QStringLiteral("after_seconds"), 60 }, { QStringLiteral("to"), QStringLiteral("failed") },
                         { QStringLiteral("failure_reason"), QStringLiteral("declined") } });
        QVERIFY2(rule.status / 100 == 2, QJsonDocument(rule.body).toJson().constData());
        const QString charge = m_backend.charges().first();
        const QString id = m_backend.propose(charge, 4000, QStringLiteral("thursday-1"), QStringLiteral("order-thursday"))
                               .value(QLatin1String("id")).toString();
        QVERIFY(!id.isEmpty());
        const BackendProcess::Reply approved = m_backend.post(QStringLiteral("ana"), QStringLiteral("/actions/%1/approvals").arg(id),
                                                              QJsonObject{ { QStringLiteral("note"), QStringLiteral("ok") } }, 1);
        QVERIFY2(approved.status / 100 == 2, QJsonDocument(approved.body).toJson().constData());
        QTRY_COMPARE_WITH_TIMEOUT(m_backend.action(id).value(QLatin1String("state")).toString(), QStringLiteral("COMPLETED"), 15000);
        QCOMPARE(settlementOf(id).value(QLatin1String("status")).toString(), QStringLiteral("pending"));


        test::TestConsole console(m_backend.url(), m_backend.token(QStringLiteral("sue")), m_dir.filePath(QStringLiteral("sue.ini")));
        MainWindow *window = console.window.get();
        window->show();
        QSignalSpy firstPage(window, &MainWindow::firstPageShown);
        QVERIFY(firstPage.isValid());
        window->start();
        QVERIFY(firstPage.wait(10000));
        auto *filter = child<QToolButton>(window, "filterRefundFailed");
        QVERIFY(filter);
        QCOMPARE(filter->text(), QStringLiteral("Refund failed  0"));

        // Two minutes later at paysim the refund has failed; a look-up (the backend's first scheduled
        // check is a minute of real time away) records it, and the console's count follows live.
        QCOMPARE(m_backend.paysimAdmin("POST", QStringLiteral("/_sim/clock"), QJsonObject{ { QStringLiteral("advance_ms"), 120000 } }).status, 200);
        const qint64 version = m_backend.action(id).value(QLatin1String("state_version")).toInteger();
        const BackendProcess::Reply lookedUp = m_backend.post(QStringLiteral("sue"), QStringLiteral("/actions/%1/lookups").arg(id), QJsonObject(), version);
        QVERIFY2(lookedUp.status == 200, QJsonDocument(lookedUp.body).toJson().constData());
        QCOMPARE(settlementOf(id).value(QLatin1String("attention")).toString(), QStringLiteral("open"));

        QTRY_COMPARE_WITH_TIMEOUT(filter->text(), QStringLiteral("Refund failed  1"), 15000);
        // It waits for the supervisor like the states do: counted in the title, and a notice.
        AttentionNotifier *attention = window->attention()->notifier();
        QTRY_COMPARE_WITH_TIMEOUT(attention->counts().of(AttentionNotifier::Kind::Settlement), 1, 10000);
        QVERIFY2(window->windowTitle().contains(AttentionNotifier::countsText(attention->counts())), qPrintable(window->windowTitle()));
        QTRY_COMPARE_WITH_TIMEOUT(window->attention()->lastNotice().actionId, id, 10000);
        const QString notice = window->attention()->lastNotice().text;
        QVERIFY2(notice.contains(QLatin1String("for order order-thursday failed after it was accepted (declined)")), qPrintable(notice));

        // Ctrl+6: only that action; its detail says what happened.
        window->findChild<QAction *>(QStringLiteral("filterRefundFailedShortcut"))->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(window->queueModel()->rowCount(), 1, 10000);
        QCOMPARE(window->queueModel()->summary(0).id(), id);
        window->selectAction(id);
        ActionDetailPane *pane = window->detailPane();
        QTRY_VERIFY_WITH_TIMEOUT(pane->hasDetail() && pane->detail().record.id == id && pane->detail().settlement, 10000);
        QFrame *banner = pane->settlementBanner();
        QTRY_VERIFY(banner->isVisible());
        const QString said = child<QLabel>(banner, "settlementReviewText")->text();
        QVERIFY2(said.contains(QLatin1String("(declined)")) && said.contains(QLatin1String("NOT been refunded")), qPrintable(said));
        // The backend allows a look-up of a COMPLETED action; the console says what it does there.
        QAction *lookUp = window->decisionAction(QStringLiteral("lookup"));
        QVERIFY(lookUp->isEnabled());
        QVERIFY2(lookUp->toolTip().startsWith(QLatin1String("Ask the provider again about refund re_")), qPrintable(lookUp->toolTip()));

        // Close without re-sending, with a note, from the banner.
        auto *closeButton = child<QToolButton>(banner, "settlementCloseButton");
        QTRY_VERIFY(closeButton->isEnabled()); // a supervisor may
        QTest::mouseClick(closeButton, Qt::LeftButton);
        auto *dialog = qobject_cast<SettlementCloseDialog *>(window->decisions()->openDialog());
        QVERIFY(dialog);
        QVERIFY(!dialog->confirmButton()->isEnabled());
        child<QPlainTextEdit>(dialog, "noteEdit")->setPlainText(QStringLiteral("refunded by bank transfer, ticket 4411"));
        QVERIFY(dialog->confirmButton()->isEnabled());
        QSignalSpy applied(window, &MainWindow::decisionApplied);
        QVERIFY(applied.isValid());
        QTest::mouseClick(dialog->confirmButton(), Qt::LeftButton);
        QVERIFY(applied.wait(10000));
        QCOMPARE(applied.first().at(0).toString(), QStringLiteral("close_settlement"));
        QTRY_VERIFY(!window->decisions()->openDialog());

        const QJsonObject recorded = settlementOf(id);
        QCOMPARE(recorded.value(QLatin1String("attention")).toString(), QStringLiteral("closed"));
        QCOMPARE(recorded.value(QLatin1String("resolved_by")).toString(), QStringLiteral("sue"));
        QCOMPARE(recorded.value(QLatin1String("resolution_note")).toString(), QStringLiteral("refunded by bank transfer, ticket 4411"));
        QTRY_COMPARE_WITH_TIMEOUT(filter->text(), QStringLiteral("Refund failed  0"), 10000);
        QTRY_VERIFY_WITH_TIMEOUT(!banner->isVisible(), 10000);
        const QString decision = child<QLabel>(pane->settlementView(), "settlementDecision")->text();
        QVERIFY2(decision.contains(QLatin1String("closed by sue")) && decision.contains(QLatin1String("ticket 4411")), qPrintable(decision));
        QCOMPARE(pane->detail().record.state, ActionState::Completed); // six states: still COMPLETED
    }
};

QTEST_MAIN(TestSettlementConsole)
#include "tst_settlement_console.moc"
