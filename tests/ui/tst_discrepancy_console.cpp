// Issue 33 end to end in the console: the real main window (offscreen) against a real countersignd
// and paysim. A refund is COMPLETED; paysim then holds a second refund carrying the same action's id
// (what a resend the provider took as new would leave). A supervisor's look-up shows both: the
// console, open meanwhile, counts it under "Two refunds" (Ctrl+7), shows the banner in words, and
// closes it with a note through the banner's button — the count goes back to 0, the action stays
// COMPLETED, and the backend records the decision.

#include "tests/ui/testconsole.h"
#include "models/actionqueuemodel.h"
#include "tests/client/backendprocess.h"
#include "tests/support/quietoffscreen.h"
#include "ui/actiondetailpane.h"
#include "ui/discrepancybanner.h"
#include "ui/discrepancyclosedialog.h"

#include <QAction>
#include <QJsonArray>
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

class TestDiscrepancyConsole : public QObject
{
    Q_OBJECT

private:
    BackendProcess m_backend;
    QTemporaryDir m_dir;

    QJsonObject discrepancyOf(const QString &id) const
    {
        return m_backend.action(id).value(QLatin1String("discrepancy")).toObject();
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

    void twoRefundsAreCountedShownAndClosedWithANote()
    {
        const QString charge = m_backend.charges().first();
        const QString id = m_backend.propose(charge, 2500, QStringLiteral("twice-1"), QStringLiteral("order-4821"))
                               .value(QLatin1String("id")).toString();
        QVERIFY(!id.isEmpty());
        const BackendProcess::Reply approved = m_backend.post(QStringLiteral("ana"), QStringLiteral("/actions/%1/approvals").arg(id),
                                                              QJsonObject{ { QStringLiteral("note"), QStringLiteral("ok") } }, 1);
        QVERIFY2(approved.status / 100 == 2, QJsonDocument(approved.body).toJson().constData());
        QTRY_COMPARE_WITH_TIMEOUT(m_backend.action(id).value(QLatin1String("state")).toString(), QStringLiteral("COMPLETED"), 15000);

        test::TestConsole console(m_backend.url(), m_backend.token(QStringLiteral("sue")), m_dir.filePath(QStringLiteral("sue.ini")));
        MainWindow *window = console.window.get();
        window->show();
        QSignalSpy firstPage(window, &MainWindow::firstPageShown);
        QVERIFY(firstPage.isValid());
        window->start();
        QVERIFY(firstPage.wait(10000));
        auto *filter = child<QToolButton>(window, "filterTwoRefunds");
        QVERIFY(filter);
        QCOMPARE(filter->text(), QStringLiteral("Two refunds  0"));
        QVERIFY(!filter->isVisible()); // the everyday row stays as it was while there is none

        // The provider now holds a second refund naming the action; a supervisor's look-up lists both.
        QVERIFY(m_backend.plantProviderRefund(charge, 2500, id));
        const qint64 version = m_backend.action(id).value(QLatin1String("state_version")).toInteger();
        const BackendProcess::Reply lookedUp = m_backend.post(QStringLiteral("sue"), QStringLiteral("/actions/%1/lookups").arg(id), QJsonObject(), version);
        QVERIFY2(lookedUp.status == 200, QJsonDocument(lookedUp.body).toJson().constData());
        QCOMPARE(discrepancyOf(id).value(QLatin1String("attention")).toString(), QStringLiteral("open"));
        QCOMPARE(discrepancyOf(id).value(QLatin1String("refund_ids")).toArray().size(), 2);
        QTRY_COMPARE_WITH_TIMEOUT(filter->text(), QStringLiteral("Two refunds  1"), 15000);
        QVERIFY(filter->isVisible());

        // Ctrl+7: only that action; its detail says it in words.
        window->findChild<QAction *>(QStringLiteral("filterTwoRefundsShortcut"))->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(window->queueModel()->rowCount(), 1, 10000);
        QCOMPARE(window->queueModel()->summary(0).id(), id);
        window->selectAction(id);
        ActionDetailPane *pane = window->detailPane();
        QTRY_VERIFY_WITH_TIMEOUT(pane->hasDetail() && pane->detail().record.id == id && pane->detail().discrepancy, 10000);
        DiscrepancyBanner *banner = pane->discrepancyBanner();
        QTRY_VERIFY(banner->isVisible());
        const QString said = child<QLabel>(banner, "discrepancyText")->text();
        QVERIFY2(said.contains(QLatin1String("The provider holds 2 refunds for this action"))
                     && said.contains(QLatin1String("Money may have gone out twice")) && said.contains(QLatin1String("25.00 USD")),
                 qPrintable(said));
        QVERIFY2(!said.contains(QLatin1String("re_")), qPrintable(said)); // words for people; ids are under Details

        // Closed with a note, from the banner.
        auto *closeButton = child<QToolButton>(banner, "discrepancyCloseButton");
        QTRY_VERIFY(closeButton->isEnabled()); // a supervisor may
        QTest::mouseClick(closeButton, Qt::LeftButton);
        auto *dialog = qobject_cast<DiscrepancyCloseDialog *>(window->decisions()->openDialog());
        QVERIFY(dialog);
        QVERIFY(!dialog->confirmButton()->isEnabled());
        child<QPlainTextEdit>(dialog, "noteEdit")->setPlainText(QStringLiteral("customer keeps the second refund as goodwill, ticket 77"));
        QVERIFY(dialog->confirmButton()->isEnabled());
        QSignalSpy applied(window, &MainWindow::decisionApplied);
        QVERIFY(applied.isValid());
        QTest::mouseClick(dialog->confirmButton(), Qt::LeftButton);
        QVERIFY(applied.wait(10000));
        QCOMPARE(applied.first().at(0).toString(), QStringLiteral("close_discrepancy"));
        QTRY_VERIFY(!window->decisions()->openDialog());

        const QJsonObject recorded = discrepancyOf(id);
        QCOMPARE(recorded.value(QLatin1String("attention")).toString(), QStringLiteral("closed"));
        QCOMPARE(recorded.value(QLatin1String("resolved_by")).toString(), QStringLiteral("sue"));
        QTRY_COMPARE_WITH_TIMEOUT(filter->text(), QStringLiteral("Two refunds  0"), 10000);
        QTRY_VERIFY_WITH_TIMEOUT(!banner->isVisible(), 10000);
        QCOMPARE(pane->detail().record.state, ActionState::Completed); // six states: still COMPLETED
    }
};

QTEST_MAIN(TestDiscrepancyConsole)
#include "tst_discrepancy_console.moc"
