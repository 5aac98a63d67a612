// ScenarioRunner alone, on scripted scenarios (no stack, no network): steps run one at a time in
// order, each asynchronous; a failed step ends the run with its reason; the verdict of the last
// step is reported; step-by-step waits for next(); cancel ends at once between steps and after
// the running step otherwise; the cleanup always runs, before finished().

#include "demo/scenariorunner.h"

#include <QSignalSpy>
#include <QTest>
#include <QElapsedTimer>
#include <QTimer>

using namespace cs::demo;
using namespace Qt::Literals::StringLiterals;

namespace {

// Each step ends after `stepMs` with the result scripted for it, and records what it saw.
class ScriptedScenario : public Scenario
{
public:
    QList<bool> results;           // one per step
    int stepMs = 5;
    int verdictAfter = -1;         // the step (index) that sets a passing verdict; -1: none
    QStringList log;               // "start 0", "end 0", "cleanup"
    int running = 0;               // steps running now
    int maxRunning = 0;
    bool sawCancel = false;
    int cleanupMs = 0;

    QList<Step> steps() override
    {
        QList<Step> list;
        for (int i = 0; i < results.size(); ++i) {
            list << [this, i](Done done) {
                log << QStringLiteral("start %1").arg(i);
                maxRunning = qMax(maxRunning, ++running);
                say(NarrationKind::Step, QStringLiteral("step %1").arg(i));
                QTimer::singleShot(stepMs, [this, i, done] {
                    --running;
                    sawCancel = sawCancel || isCancelled();
                    log << QStringLiteral("end %1").arg(i);
                    if (i == verdictAfter)
                        setVerdict(true, QStringLiteral("all %1 steps").arg(i + 1));
                    done(results.at(i) || fail(QStringLiteral("step %1 failed").arg(i)));
                });
            };
        }
        return list;
    }

    void cleanup(std::function<void()> done) override
    {
        QTimer::singleShot(cleanupMs, [this, done] {
            log << QStringLiteral("cleanup");
            done();
        });
    }
};

std::unique_ptr<ScriptedScenario> scripted(const QList<bool> &results, int verdictAfter, int stepMs = 5, int cleanupMs = 0)
{
    auto scenario = std::make_unique<ScriptedScenario>();
    scenario->results = results;
    scenario->verdictAfter = verdictAfter;
    scenario->stepMs = stepMs;
    scenario->cleanupMs = cleanupMs;
    return scenario;
}

} // namespace

class TestScenarioRunner : public QObject
{
    Q_OBJECT

private:
    // Plays `scenario` and waits for finished(); the scenario stays readable through `seen`.
    static QList<QVariant> play(ScenarioRunner &runner, std::unique_ptr<ScriptedScenario> scenario, ScenarioRunner::Mode mode,
                                ScriptedScenario **seen)
    {
        *seen = scenario.get();
        QSignalSpy finished(&runner, &ScenarioRunner::finished);
        runner.run(std::move(scenario), mode);
        if (!finished.wait(5000) || finished.size() != 1)
            return {};
        return finished.first();
    }

private slots:
    void sequencesStepsInOrder_data()
    {
        QTest::addColumn<QList<bool>>("results");
        QTest::addColumn<int>("verdictAfter");
        QTest::addColumn<bool>("asExpected");
        QTest::addColumn<QString>("verdict");
        QTest::addColumn<QStringList>("log");
        QTest::newRow("all pass, verdict set by the last step")
            << QList<bool>{true, true, true} << 2 << true << QStringLiteral("VERDICT PASS: all 3 steps")
            << QStringList{u"start 0"_s, u"end 0"_s, u"start 1"_s, u"end 1"_s, u"start 2"_s, u"end 2"_s, u"cleanup"_s};
        QTest::newRow("a failing step ends the run with its reason")
            << QList<bool>{true, false, true} << 2 << false << QStringLiteral("VERDICT FAIL: step 1 failed")
            << QStringList{u"start 0"_s, u"end 0"_s, u"start 1"_s, u"end 1"_s, u"cleanup"_s};
        QTest::newRow("no verdict is a failure")
            << QList<bool>{true, true} << -1 << false << QStringLiteral("VERDICT FAIL: no verdict")
            << QStringList{u"start 0"_s, u"end 0"_s, u"start 1"_s, u"end 1"_s, u"cleanup"_s};
        QTest::newRow("a failing first step")
            << QList<bool>{false} << 0 << false << QStringLiteral("VERDICT FAIL: step 0 failed")
            << QStringList{u"start 0"_s, u"end 0"_s, u"cleanup"_s};
    }
    void sequencesStepsInOrder()
    {
        QFETCH(QList<bool>, results);
        QFETCH(int, verdictAfter);
        QFETCH(bool, asExpected);
        QFETCH(QString, verdict);
        QFETCH(QStringList, log);
        ScenarioRunner runner(nullptr);
        runner.setStepDelayMs(0);
        QSignalSpy narration(&runner, &ScenarioRunner::narration);
        QVERIFY(narration.isValid());
        auto scenario = scripted(results, verdictAfter, 5, 10);
        ScriptedScenario *seen = nullptr;
        const QList<QVariant> finished = play(runner, std::move(scenario), ScenarioRunner::Mode::Continuous, &seen);
        QCOMPARE(finished.size(), 2);
        QCOMPARE(finished.at(0).toBool(), asExpected);
        QCOMPARE(finished.at(1).toString(), verdict);
        QCOMPARE(seen->log, log);
        QCOMPARE(seen->maxRunning, 1);
        QVERIFY(!runner.isRunning());
        // The steps' narration, then the verdict line as the last narration.
        QCOMPARE(narration.last().at(0).toString(), verdict);
        QCOMPARE(narration.last().at(1).value<ScenarioRunner::NarrationKind>(), ScenarioRunner::NarrationKind::Verdict);
        QCOMPARE(narration.first().at(0).toString(), QStringLiteral("step 0"));
    }

    void continuousModeWaitsTheStepDelay()
    {
        ScenarioRunner runner(nullptr);
        runner.setStepDelayMs(60);
        QCOMPARE(runner.stepDelayMs(), 60);
        auto scenario = scripted(QList<bool>{true, true, true}, 2, 0);
        ScriptedScenario *seen = nullptr;
        QElapsedTimer clock;
        clock.start();
        const QList<QVariant> finished = play(runner, std::move(scenario), ScenarioRunner::Mode::Continuous, &seen);
        QCOMPARE(finished.value(0).toBool(), true);
        QVERIFY2(clock.elapsed() >= 2 * 60, qPrintable(QString::number(clock.elapsed())));
        runner.setStepDelayMs(-5);
        QCOMPARE(runner.stepDelayMs(), 0);
    }

    void stepByStepWaitsForNext()
    {
        ScenarioRunner runner(nullptr);
        runner.setStepDelayMs(0);
        auto owned = scripted(QList<bool>{true, true, true}, 2);
        ScriptedScenario *scenario = owned.get();
        QSignalSpy waiting(&runner, &ScenarioRunner::waitingForNext);
        QSignalSpy finished(&runner, &ScenarioRunner::finished);
        QVERIFY(waiting.isValid());
        QVERIFY(finished.isValid());
        runner.run(std::move(owned), ScenarioRunner::Mode::StepByStep);
        QVERIFY(waiting.wait(5000));
        QCOMPARE(scenario->log, (QStringList{u"start 0"_s, u"end 0"_s}));
        // It stays put until next().
        QTest::qWait(50);
        QCOMPARE(scenario->log.size(), 2);
        runner.next();
        QVERIFY(waiting.wait(5000));
        QCOMPARE(scenario->log.size(), 4);
        runner.next();
        QVERIFY(finished.wait(5000));
        QCOMPARE(waiting.size(), 2); // not after the last step
        QCOMPARE(finished.first().at(1).toString(), QStringLiteral("VERDICT PASS: all 3 steps"));
        runner.next(); // ignored once finished
        QCOMPARE(finished.size(), 1);
    }

    void nextIsIgnoredWhileAStepRuns()
    {
        ScenarioRunner runner(nullptr);
        auto owned = scripted(QList<bool>{true, true}, 1, 50);
        ScriptedScenario *scenario = owned.get();
        QSignalSpy waiting(&runner, &ScenarioRunner::waitingForNext);
        runner.run(std::move(owned), ScenarioRunner::Mode::StepByStep);
        QTRY_COMPARE(scenario->running, 1);
        runner.next();
        runner.next();
        QVERIFY(waiting.wait(5000));
        QCOMPARE(scenario->log, (QStringList{u"start 0"_s, u"end 0"_s}));
        QCOMPARE(scenario->maxRunning, 1);
    }

    void cancelWhileWaitingEndsAtOnce()
    {
        ScenarioRunner runner(nullptr);
        auto owned = scripted(QList<bool>{true, true}, 1);
        ScriptedScenario *scenario = owned.get();
        QSignalSpy waiting(&runner, &ScenarioRunner::waitingForNext);
        QSignalSpy finished(&runner, &ScenarioRunner::finished);
        runner.run(std::move(owned), ScenarioRunner::Mode::StepByStep);
        QVERIFY(waiting.wait(5000));
        runner.cancel();
        QVERIFY(finished.wait(5000));
        QCOMPARE(finished.first().at(0).toBool(), false);
        QCOMPARE(finished.first().at(1).toString(), QStringLiteral("VERDICT FAIL: cancelled"));
        QCOMPARE(scenario->log, (QStringList{u"start 0"_s, u"end 0"_s, u"cleanup"_s}));
        runner.cancel(); // ignored once finished
        QCOMPARE(finished.size(), 1);
    }

    void cancelDuringAStepEndsAfterIt()
    {
        ScenarioRunner runner(nullptr);
        runner.setStepDelayMs(0);
        auto owned = scripted(QList<bool>{true, true, true}, 2, 80);
        ScriptedScenario *scenario = owned.get();
        QSignalSpy finished(&runner, &ScenarioRunner::finished);
        runner.run(std::move(owned), ScenarioRunner::Mode::Continuous);
        QTRY_COMPARE(scenario->running, 1);
        runner.cancel();
        QVERIFY(runner.isRunning()); // the step is still under way
        QCOMPARE(finished.size(), 0);
        QVERIFY(finished.wait(5000));
        QCOMPARE(finished.first().at(1).toString(), QStringLiteral("VERDICT FAIL: cancelled"));
        QVERIFY(scenario->sawCancel);
        QCOMPARE(scenario->log, (QStringList{u"start 0"_s, u"end 0"_s, u"cleanup"_s}));
    }

    void finishedComesAfterTheCleanup()
    {
        ScenarioRunner runner(nullptr);
        auto owned = scripted(QList<bool>{true}, 0, 5, 80);
        ScriptedScenario *scenario = owned.get();
        QSignalSpy finished(&runner, &ScenarioRunner::finished);
        runner.run(std::move(owned), ScenarioRunner::Mode::Continuous);
        QTRY_COMPARE(scenario->log.size(), 2);
        QVERIFY(runner.isRunning()); // cleaning up
        runner.cancel();             // too late to cancel: the verdict stands
        QVERIFY(finished.wait(5000));
        QCOMPARE(finished.first().at(0).toBool(), true);
        QCOMPARE(scenario->log.last(), QStringLiteral("cleanup"));
    }

    void oneRunAtATime()
    {
        ScenarioRunner runner(nullptr);
        auto first = scripted(QList<bool>{true}, 0, 30);
        ScriptedScenario *playing = first.get();
        auto second = scripted(QList<bool>{true}, -1);
        QSignalSpy finished(&runner, &ScenarioRunner::finished);
        runner.run(std::move(first), ScenarioRunner::Mode::Continuous);
        runner.run(std::move(second), ScenarioRunner::Mode::Continuous); // refused (and freed): still running
        QVERIFY(finished.wait(5000));
        QCOMPARE(playing->log.size(), 3);
        QTest::qWait(50);
        QCOMPARE(finished.size(), 1);
    }

    void startWithoutStackFails()
    {
        ScenarioRunner runner(nullptr);
        QSignalSpy finished(&runner, &ScenarioRunner::finished);
        runner.start(1, ScenarioRunner::Mode::Continuous);
        QCOMPARE(finished.size(), 1); // at once: there is nothing to clean up
        QCOMPARE(finished.first().at(1).toString(), QStringLiteral("VERDICT FAIL: the demo stack is not running"));
        QVERIFY(!runner.isRunning());
    }

    void catalogueHasTenScenarios()
    {
        const QList<ScenarioInfo> catalogue = ScenarioRunner::catalogue();
        QCOMPARE(catalogue.size(), 10);
        for (int i = 0; i < catalogue.size(); ++i) {
            QCOMPARE(catalogue.at(i).id, i + 1);
            QVERIFY(!catalogue.at(i).key.isEmpty());
            QVERIFY(!catalogue.at(i).title.isEmpty());
        }
        QCOMPARE(catalogue.first().key, QStringLiteral("retry-refunded-twice"));
        QCOMPARE(catalogue.last().key, QStringLiteral("refund-failed-thursday"));
    }
};

QTEST_GUILESS_MAIN(TestScenarioRunner)
#include "tst_scenariorunner.moc"
