// `countersign --demo` wiring: a real DemoStack (paysim + countersignd child processes), the
// console signed in as the approver with the Demo and Scenarios menus and the docks, and
// scenario 1 played continuously through the console's controller.

#include "client/apiclient.h"
#include "client/eventstreamclient.h"
#include "demo/console/democontroller.h"
#include "demo/console/faultinjectionpanel.h"
#include "demo/console/groundtruthview.h"
#include "demo/console/narrationpanel.h"
#include "demo/console/roleswitcher.h"
#include "demo/demostack.h"
#include "demo/scenariorunner.h"
#include "ui/consolesettings.h"
#include "ui/mainwindow.h"

#include <QAction>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>
#include <QTimer>

using namespace cs;

class TestDemoMode : public QObject
{
    Q_OBJECT

private slots:
    void demoWiring()
    {
        demo::DemoStack::Options options;
        options.paysimPath = QStringLiteral(PAYSIM_BIN);
        options.countersigndPath = QStringLiteral(COUNTERSIGND_BIN);
        demo::DemoStack stack(options);
        QVERIFY2(stack.start(), qPrintable(stack.errorString()));

        ApiClient client;
        client.setBaseUrl(stack.backendUrl());
        EventStreamClient events;
        events.setBaseUrl(stack.backendUrl());
        ConsoleSettings settings(stack.dataDir() + QStringLiteral("/console.ini"));
        MainWindow window(&client, &events, &settings);
        DemoController controller(&stack, &window, &client, &events);
        window.resize(1400, 900);
        window.show();
        QSignalSpy identity(&window, &MainWindow::identityKnown);
        QVERIFY(identity.isValid());
        controller.start();
        QVERIFY(identity.wait(10000));
        QCOMPARE(window.role(), QStringLiteral("approver"));
        QCOMPARE(window.userName(), stack.userFor(QStringLiteral("approver")));
        QCOMPARE(client.token(), stack.tokens().value(window.userName()));

        auto *scenarios = window.findChild<QMenu *>(QStringLiteral("scenariosMenu"));
        QVERIFY(scenarios);
        QVERIFY(window.menuBar()->actions().contains(scenarios->menuAction()));
        QCOMPARE(scenarios->findChildren<QAction *>(QRegularExpression(QStringLiteral("^playScenario\\d+$"))).size(),
                 demo::ScenarioRunner::catalogue().size());
        QVERIFY(window.findChild<QMenu *>(QStringLiteral("demoMenu")));
        // The narration takes no room before a scenario runs; playing one shows it.
        QVERIFY(!controller.narration()->isVisible());
        QCOMPARE(controller.faults()->paysimUrl(), stack.paysimUrl());

        // Scenario 1, continuously: narrated, ends as expected, focuses an action in the console.
        QSignalSpy finished(&controller, &DemoController::scenarioFinished);
        QVERIFY(finished.isValid());
        controller.play(1, false);
        QVERIFY(controller.narration()->isVisible());
        QVERIFY(finished.wait(120000));
        QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(finished.at(0).at(1).toString()));
        QVERIFY(controller.narration()->steps()->count() > 2);
        if (!controller.narration()->focusedAction().isEmpty())
            QTRY_COMPARE(window.currentActionId(), controller.narration()->focusedAction());

        // Ground truth after scenario 1: the refund Countersign made agrees with the ledger; the
        // naive agent's two refunds (made without Countersign) are flagged as claimed by no action.
        QSignalSpy refreshed(controller.groundTruth(), &GroundTruthView::refreshed);
        QVERIFY(refreshed.isValid());
        controller.groundTruth()->refresh();
        QVERIFY(refreshed.wait(10000));
        QTableWidget *truth = controller.groundTruth()->table();
        int agreeing = 0;
        int unclaimed = 0;
        for (int r = 0; r < truth->rowCount(); ++r) {
            const QString verdict = truth->item(r, GroundTruthView::ColVerdict)->text();
            if (truth->item(r, GroundTruthView::ColAction)->text().isEmpty()) {
                QCOMPARE(verdict, QStringLiteral("No action claims this refund"));
                ++unclaimed;
            } else {
                QCOMPARE(verdict, QStringLiteral("Agrees"));
                QCOMPARE(truth->item(r, GroundTruthView::ColLedgerState)->text(), QStringLiteral("COMPLETED"));
                QCOMPARE(truth->item(r, GroundTruthView::ColLedgerObject)->text(), truth->item(r, GroundTruthView::ColRefund)->text());
                ++agreeing;
            }
        }
        QCOMPARE(agreeing, 1);
        QCOMPARE(controller.groundTruth()->mismatchCount(), unclaimed);

        // Scenario 2 step by step, advanced with the Next step action (F8) each time it waits.
        QAction *next = window.findChild<QAction *>(QStringLiteral("nextStepAction"));
        QVERIFY(next);
        QCOMPARE(next->shortcut(), QKeySequence(Qt::Key_F8));
        int waits = 0;
        connect(controller.runner(), &demo::ScenarioRunner::waitingForNext, &window, [next, &waits] {
            ++waits;
            QVERIFY(next->isEnabled());
            QTimer::singleShot(10, next, &QAction::trigger);
        });
        finished.clear();
        controller.play(2, true);
        QVERIFY(finished.wait(120000));
        QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(finished.at(0).at(1).toString()));
        QVERIFY(waits > 1);
        QVERIFY(!next->isEnabled());
    }
};

QTEST_MAIN(TestDemoMode)
#include "tst_demomode.moc"
