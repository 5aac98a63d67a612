// The demo console opens on a live queue: with a real DemoStack, the agent traffic proposes a few
// actions as soon as the console has signed in (the first one shown), Demo → Agent traffic turns
// it off and on and is remembered in the settings, a scenario stops the traffic while it plays and
// the traffic resumes when it ends, and a console whose settings say off opens without traffic.

#include "client/apiclient.h"
#include "client/eventstreamclient.h"
#include "demo/agenttraffic.h"
#include "demo/console/democontroller.h"
#include "demo/demostack.h"
#include "demo/scenariorunner.h"
#include "models/actionqueuemodel.h"
#include "ui/consolesettings.h"
#include "ui/mainwindow.h"

#include <QAction>
#include <QMenu>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace cs;

class TestDemoTraffic : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<demo::DemoStack> m_stack;
    QTemporaryDir m_dir;

    struct Console {
        ApiClient client;
        EventStreamClient events;
        std::unique_ptr<MainWindow> window;
        std::unique_ptr<DemoController> controller;
    };

    // A console on the stack, started and signed in as the approver.
    std::unique_ptr<Console> open(ConsoleSettings *settings)
    {
        auto console = std::make_unique<Console>();
        console->client.setBaseUrl(m_stack->backendUrl());
        console->events.setBaseUrl(m_stack->backendUrl());
        console->window = std::make_unique<MainWindow>(&console->client, &console->events, settings);
        console->controller = std::make_unique<DemoController>(m_stack.get(), console->window.get(), &console->client,
                                                               &console->events, settings);
        console->window->resize(1400, 900);
        console->window->show();
        QSignalSpy identity(console->window.get(), &MainWindow::identityKnown);
        [&] { QVERIFY(identity.isValid()); }();
        console->controller->start();
        [&] { QVERIFY(identity.wait(15000)); }();
        return console;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        demo::DemoStack::Options options;
        options.paysimPath = QStringLiteral(PAYSIM_BIN);
        options.countersigndPath = QStringLiteral(COUNTERSIGND_BIN);
        m_stack = std::make_unique<demo::DemoStack>(options);
        QVERIFY2(m_stack->start(), qPrintable(m_stack->errorString()));
    }

    void cleanupTestCase() { m_stack.reset(); }

    void opensOnALiveQueue()
    {
        ConsoleSettings settings(m_dir.filePath(QStringLiteral("on.ini")));
        std::unique_ptr<Console> console = open(&settings);
        DemoController *controller = console->controller.get();
        QAction *toggle = console->window->findChild<QAction *>(QStringLiteral("agentTrafficAction"));
        QVERIFY(toggle);
        QCOMPARE(toggle, controller->trafficAction());
        QVERIFY(toggle->isCheckable());
        QVERIFY(toggle->isChecked()); // on by default
        auto *demoMenu = console->window->findChild<QMenu *>(QStringLiteral("demoMenu"));
        QVERIFY(demoMenu && demoMenu->actions().contains(toggle));

        // Within seconds the queue holds the first proposals, and the first one is shown.
        QTRY_VERIFY_WITH_TIMEOUT(controller->traffic()->isRunning(), 5000);
        QTRY_VERIFY_WITH_TIMEOUT(console->window->queueModel()->rowCount() >= DemoController::InitialProposals, 15000);
        QVERIFY(!controller->traffic()->proposals().isEmpty());
        QTRY_COMPARE_WITH_TIMEOUT(console->window->currentActionId(), controller->traffic()->proposals().constFirst().actionId, 10000);

        // Off through the menu: it stops, and the settings remember it.
        QSignalSpy stopped(controller->traffic(), &demo::AgentTraffic::stopped);
        QVERIFY(stopped.isValid());
        toggle->trigger();
        QVERIFY(!toggle->isChecked());
        QVERIFY(!controller->traffic()->isRunning());
        QTRY_VERIFY_WITH_TIMEOUT(!controller->traffic()->isBusy(), 10000);
        settings.sync();
        QCOMPARE(QSettings(m_dir.filePath(QStringLiteral("on.ini")), QSettings::IniFormat).value(QStringLiteral("demo/agentTraffic")).toBool(),
                 false);

        // On again: proposing at once.
        const qsizetype before = controller->traffic()->proposals().size();
        toggle->trigger();
        QVERIFY(toggle->isChecked());
        QVERIFY(controller->traffic()->isRunning());
        QTRY_VERIFY_WITH_TIMEOUT(controller->traffic()->proposals().size() > before, 10000);
        QCOMPARE(QSettings(m_dir.filePath(QStringLiteral("on.ini")), QSettings::IniFormat).value(QStringLiteral("demo/agentTraffic")).toBool(),
                 true);

        // A scenario stops the traffic before its first step and it resumes when the scenario ends.
        QSignalSpy finished(controller, &DemoController::scenarioFinished);
        QVERIFY(finished.isValid());
        bool trafficDuringScenario = false;
        connect(controller->runner(), &demo::ScenarioRunner::narration, this,
                [&] { trafficDuringScenario = trafficDuringScenario || controller->traffic()->isRunning() || controller->traffic()->isBusy(); });
        controller->play(3, false);
        QVERIFY(!controller->traffic()->isRunning());
        QVERIFY(finished.wait(120000));
        QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(finished.at(0).at(1).toString()));
        QVERIFY(!trafficDuringScenario);
        QVERIFY(controller->traffic()->isRunning());
        QCOMPARE(controller->traffic()->errorCount(), 0);
        controller->setAgentTraffic(false);
        QTRY_VERIFY_WITH_TIMEOUT(!controller->traffic()->isBusy(), 10000);
    }

    void offIsRemembered()
    {
        {
            QSettings ini(m_dir.filePath(QStringLiteral("off.ini")), QSettings::IniFormat);
            ini.setValue(QStringLiteral("demo/agentTraffic"), false);
        }
        ConsoleSettings settings(m_dir.filePath(QStringLiteral("off.ini")));
        std::unique_ptr<Console> console = open(&settings);
        DemoController *controller = console->controller.get();
        QVERIFY(!controller->trafficAction()->isChecked());
        // The traffic would start one turn of the event loop after sign-in; give it many.
        QTest::qWait(500);
        QVERIFY(!controller->traffic()->isRunning());
        QVERIFY(controller->traffic()->proposals().isEmpty());
    }
};

QTEST_MAIN(TestDemoTraffic)
#include "tst_demotraffic.moc"
