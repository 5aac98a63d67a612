// countersign-demo: the demo scenarios headless (docs/DEMO.md).
//   countersign-demo --scenario N|all [--step-delay-ms 0] [--step-by-step] [--list] [--paysim PATH] [--countersignd PATH]
//   countersign-demo --exercise N|all [--answers right|wrong] [--score-sheet FILE.txt|.csv|.json]
//   countersign-demo --traffic [--duration S] [--interval-ms MIN-MAX] [--outage-ms MIN-MAX] [--seed N] [--pending-limit N]
// Starts the demo stack (paysim + countersignd as child processes), plays the scenario(s), prints
// each narrated step prefixed by its kind and the verdict line; exit status 0 only when every
// scenario ended as expected. With --traffic it runs the agent traffic instead (the console's
// Demo → Agent traffic) for S seconds, one line per event, then a summary; exit status 0 only when
// it proposed something and met no unexpected answer.
#include "demo/agenttraffic.h"
#include "demo/demostack.h"
#include "demo/exercise.h"
#include "demo/scenariorunner.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QTextStream>
#include <QTimer>

#include <functional>

namespace {

QString kindName(cs::demo::ScenarioRunner::NarrationKind kind)
{
    using K = cs::demo::ScenarioRunner::NarrationKind;
    switch (kind) {
    case K::Step: return QStringLiteral("STEP");
    case K::Observation: return QStringLiteral("OBSERVED");
    case K::Problem: return QStringLiteral("PROBLEM");
    case K::Cure: return QStringLiteral("CURE");
    case K::Verdict: return QStringLiteral("VERDICT");
    case K::Task: return QStringLiteral("YOUR TURN");
    }
    return QString();
}

QString trafficKindName(cs::demo::AgentTraffic::Kind kind)
{
    using K = cs::demo::AgentTraffic::Kind;
    switch (kind) {
    case K::Proposed: return QStringLiteral("PROPOSED");
    case K::Resent: return QStringLiteral("RESENT");
    case K::Changed: return QStringLiteral("CHANGED");
    case K::OutageBegan: return QStringLiteral("OUTAGE");
    case K::OutageEnded: return QStringLiteral("RESTORED");
    case K::QueueFull: return QStringLiteral("FULL");
    case K::Error: return QStringLiteral("ERROR");
    }
    return QString();
}

cs::demo::DemoStack::Options stackOptions(const QString &paysimPath, const QString &countersigndPath)
{
    cs::demo::DemoStack::Options options;
    options.paysimPath = paysimPath;
    options.countersigndPath = countersigndPath;
    return options;
}

// Starts paysim and countersignd and says where they listen; false (said on stderr) if they did not start.
bool startStack(cs::demo::DemoStack &stack, QTextStream &out)
{
    out << "Starting the demo stack (paysim + countersignd)…" << Qt::endl;
    if (!stack.start()) {
        QTextStream(stderr) << "countersign-demo: " << stack.errorString() << Qt::endl;
        return false;
    }
    out << "backend " << stack.backendUrl().toString() << "  paysim " << stack.paysimUrl().toString() << "  data "
        << stack.dataDir() << Qt::endl;
    return true;
}

// "MIN-MAX" in milliseconds, MIN <= MAX.
bool parseRange(const QString &text, int *min, int *max)
{
    const QStringList parts = text.split(QLatin1Char('-'));
    bool okMin = false;
    bool okMax = false;
    if (parts.size() != 2)
        return false;
    *min = parts.at(0).toInt(&okMin);
    *max = parts.at(1).toInt(&okMax);
    return okMin && okMax && *min >= 0 && *min <= *max;
}

// The agent traffic for `seconds` (0: until interrupted), each event on its own line, then a summary.
int runTraffic(QCoreApplication &app, cs::demo::DemoStack &stack, const cs::demo::AgentTraffic::Options &options, int seconds)
{
    QTextStream out(stdout);
    cs::demo::AgentTraffic traffic(&stack, options);
    QObject::connect(&traffic, &cs::demo::AgentTraffic::happened, &app,
                     [&out](cs::demo::AgentTraffic::Kind kind, const QString &text) {
                         out << trafficKindName(kind).leftJustified(9) << ' ' << text << Qt::endl;
                     });
    if (!traffic.start(3)) {
        QTextStream(stderr) << "countersign-demo: " << traffic.errorString() << Qt::endl;
        return 1;
    }
    if (seconds > 0) {
        QTimer::singleShot(seconds * 1000, &traffic, [&traffic, &app] {
            traffic.stop([&app] { app.exit(0); });
        });
    }
    app.exec();
    int proposed = 0;
    int resent = 0;
    int changed = 0;
    for (const cs::demo::AgentTraffic::Proposal &p : traffic.proposals()) {
        proposed += p.kind == cs::demo::AgentTraffic::Kind::Proposed ? 1 : 0;
        resent += p.kind == cs::demo::AgentTraffic::Kind::Resent ? 1 : 0;
        changed += p.kind == cs::demo::AgentTraffic::Kind::Changed ? 1 : 0;
    }
    out << "TRAFFIC SUMMARY: " << proposed << " proposed, " << resent << " resent after a lost answer, " << changed
        << " changed resubmission(s), " << traffic.outageCount() << " outage(s), " << traffic.errorCount() << " error(s)"
        << Qt::endl;
    return traffic.errorCount() == 0 && proposed + resent > 0 ? 0 : 1;
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("countersign-demo"));
    QCoreApplication::setApplicationVersion(QStringLiteral(COUNTERSIGN_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Plays Countersign's training scenarios headless against real paysim and "
                                                    "countersignd child processes."));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption scenario(QStringLiteral("scenario"), QStringLiteral("A scenario's number (see --list), its key, or all."),
                                      QStringLiteral("N|all"));
    const QCommandLineOption stepDelay(QStringLiteral("step-delay-ms"), QStringLiteral("Pause between steps (default 0)."),
                                       QStringLiteral("ms"), QStringLiteral("0"));
    const QCommandLineOption list(QStringLiteral("list"), QStringLiteral("List the scenarios and exit."));
    const QCommandLineOption paysim(QStringLiteral("paysim"), QStringLiteral("The paysim executable."), QStringLiteral("PATH"));
    const QCommandLineOption countersignd(QStringLiteral("countersignd"), QStringLiteral("The countersignd executable."),
                                          QStringLiteral("PATH"));
    const QCommandLineOption stepByStep(QStringLiteral("step-by-step"),
                                        QStringLiteral("Play in step-by-step mode, advancing automatically (exercises next())."));
    const QCommandLineOption traffic(QStringLiteral("traffic"),
                                     QStringLiteral("Run the agent traffic (scripted agents proposing refunds) instead of a scenario."));
    const QCommandLineOption duration(QStringLiteral("duration"),
                                      QStringLiteral("With --traffic: how long, in seconds (default 60; 0 until interrupted)."),
                                      QStringLiteral("s"), QStringLiteral("60"));
    const QCommandLineOption interval(QStringLiteral("interval-ms"),
                                      QStringLiteral("With --traffic: the pause between two proposals (default 4000-10000)."),
                                      QStringLiteral("min-max"), QStringLiteral("4000-10000"));
    const QCommandLineOption outage(QStringLiteral("outage-ms"),
                                    QStringLiteral("With --traffic: how long an outage at paysim lasts (default 20000-45000)."),
                                    QStringLiteral("min-max"), QStringLiteral("20000-45000"));
    const QCommandLineOption seed(QStringLiteral("seed"), QStringLiteral("With --traffic: the seed of the mix (default 1)."),
                                  QStringLiteral("N"), QStringLiteral("1"));
    const QCommandLineOption pendingLimit(QStringLiteral("pending-limit"),
                                          QStringLiteral("With --traffic: propose nothing while this many actions are PENDING (default 40)."),
                                          QStringLiteral("N"), QStringLiteral("40"));
    const QCommandLineOption exercise(QStringLiteral("exercise"),
                                      QStringLiteral("Play scenario N (or all) as an exercise: a scripted trainee takes the "
                                                     "decisions (--answers) and each is judged against paysim's ground truth."),
                                      QStringLiteral("N|all"));
    const QCommandLineOption answers(QStringLiteral("answers"),
                                     QStringLiteral("With --exercise: the scripted trainee answers right, or makes the classic "
                                                    "mistakes (default right)."),
                                     QStringLiteral("right|wrong"), QStringLiteral("right"));
    const QCommandLineOption scoreSheet(QStringLiteral("score-sheet"),
                                        QStringLiteral("With --exercise: write the score sheet to FILE (.txt, .csv or .json)."),
                                        QStringLiteral("FILE"));
    parser.addOptions({scenario, stepDelay, list, paysim, countersignd, stepByStep, traffic, duration, interval, outage, seed,
                       pendingLimit, exercise, answers, scoreSheet});
    parser.process(app);

    QTextStream out(stdout);
    const QList<cs::demo::ScenarioInfo> catalogue = cs::demo::ScenarioRunner::catalogue();
    if (parser.isSet(list)) {
        for (const cs::demo::ScenarioInfo &info : catalogue)
            out << info.id << "  " << info.key << "  " << info.title << "\n     " << info.summary << Qt::endl;
        return 0;
    }
    if (parser.isSet(traffic)) {
        if (parser.isSet(scenario)) {
            QTextStream(stderr) << "countersign-demo: --traffic and --scenario exclude each other" << Qt::endl;
            return 2;
        }
        cs::demo::AgentTraffic::Options options;
        bool okDuration = false;
        bool okSeed = false;
        bool okLimit = false;
        const int seconds = parser.value(duration).toInt(&okDuration);
        options.seed = parser.value(seed).toULongLong(&okSeed);
        options.pendingLimit = parser.value(pendingLimit).toInt(&okLimit);
        if (!okDuration || seconds < 0) {
            QTextStream(stderr) << "countersign-demo: --duration expects a non-negative number of seconds" << Qt::endl;
            return 2;
        }
        if (!parseRange(parser.value(interval), &options.minIntervalMs, &options.maxIntervalMs)
            || !parseRange(parser.value(outage), &options.outageMinMs, &options.outageMaxMs) || options.outageMinMs == 0) {
            QTextStream(stderr) << "countersign-demo: --interval-ms and --outage-ms expect MIN-MAX in milliseconds, MIN <= MAX"
                                << " (an outage lasts at least 1 ms)" << Qt::endl;
            return 2;
        }
        if (!okSeed || !okLimit || options.pendingLimit < 1) {
            QTextStream(stderr) << "countersign-demo: --seed expects a number, --pending-limit a number of at least 1" << Qt::endl;
            return 2;
        }
        cs::demo::DemoStack stack(stackOptions(parser.value(paysim), parser.value(countersignd)));
        if (!startStack(stack, out))
            return 1;
        const int code = runTraffic(app, stack, options, seconds);
        stack.stop();
        return code;
    }

    if (parser.isSet(exercise) && parser.isSet(scenario)) {
        QTextStream(stderr) << "countersign-demo: --exercise and --scenario exclude each other" << Qt::endl;
        return 2;
    }
    cs::demo::ScoreSheet sheet;
    cs::demo::Exercise exerciseMode;
    exerciseMode.sheet = &sheet;
    exerciseMode.pollMs = 100;
    if (parser.isSet(exercise)) {
        if (parser.value(answers) != u"right" && parser.value(answers) != u"wrong") {
            QTextStream(stderr) << "countersign-demo: --answers expects right or wrong" << Qt::endl;
            return 2;
        }
        exerciseMode.answers = parser.value(answers) == u"right" ? cs::demo::Exercise::Answers::ScriptedRight
                                                                 : cs::demo::Exercise::Answers::ScriptedWrong;
    }
    QList<int> ids;
    const QString wanted = parser.isSet(exercise) ? parser.value(exercise) : parser.value(scenario);
    for (const cs::demo::ScenarioInfo &info : catalogue) {
        if (wanted == u"all" || wanted == QString::number(info.id) || wanted == info.key)
            ids.append(info.id);
    }
    if (ids.isEmpty()) {
        QTextStream(stderr) << "countersign-demo: --scenario expects a scenario number, a scenario key or all (see --list)" << Qt::endl;
        return 2;
    }
    bool ok = false;
    const int delay = parser.value(stepDelay).toInt(&ok);
    if (!ok || delay < 0) {
        QTextStream(stderr) << "countersign-demo: --step-delay-ms expects a non-negative integer" << Qt::endl;
        return 2;
    }

    cs::demo::DemoStack stack(stackOptions(parser.value(paysim), parser.value(countersignd)));
    if (!startStack(stack, out))
        return 1;

    cs::demo::ScenarioRunner runner(&stack);
    runner.setStepDelayMs(delay);
    if (parser.isSet(exercise))
        runner.setExercise(&exerciseMode);
    QObject::connect(&runner, &cs::demo::ScenarioRunner::narration, &app,
                     [&out](const QString &text, cs::demo::ScenarioRunner::NarrationKind kind) {
                         if (kind != cs::demo::ScenarioRunner::NarrationKind::Verdict)
                             out << kindName(kind).leftJustified(9) << ' ' << text << Qt::endl;
                     });
    QObject::connect(&runner, &cs::demo::ScenarioRunner::waitingForNext, &app, [&out, &runner, delay] {
        out << "          (next)" << Qt::endl;
        QTimer::singleShot(delay, &runner, &cs::demo::ScenarioRunner::next);
    });
    int failures = 0;
    int decisionsBefore = 0;
    qsizetype next = 0;
    QList<QString> verdicts;
    std::function<void()> startNext = [&] {
        if (next >= ids.size()) {
            app.exit(failures == 0 ? 0 : 1);
            return;
        }
        out << (parser.isSet(exercise) ? "\n=== Exercise " : "\n=== Scenario ") << ids.at(next) << " ===" << Qt::endl;
        decisionsBefore = sheet.total();
        runner.start(ids.at(next++), parser.isSet(stepByStep) ? cs::demo::ScenarioRunner::Mode::StepByStep
                                                              : cs::demo::ScenarioRunner::Mode::Continuous);
    };
    QObject::connect(&runner, &cs::demo::ScenarioRunner::finished, &app, [&](bool asExpected, const QString &line) {
        out << line << Qt::endl;
        verdicts.append(line);
        if (!parser.isSet(exercise)) {
            if (!asExpected)
                ++failures;
        } else {
            // An exercise ends as expected when the scripted trainee was judged as it answered: every
            // decision right (and the scenario's own verdict PASS), or at least one of them wrong.
            int wrong = 0;
            for (qsizetype i = decisionsBefore; i < sheet.decisions().size(); ++i)
                wrong += sheet.decisions().at(i).right ? 0 : 1;
            const int taken = sheet.total() - decisionsBefore;
            const bool judgedAsAnswered = exerciseMode.answers == cs::demo::Exercise::Answers::ScriptedRight
                ? taken > 0 && wrong == 0 && asExpected
                : wrong > 0;
            if (!judgedAsAnswered)
                ++failures;
        }
        QMetaObject::invokeMethod(&app, [&] { startNext(); }, Qt::QueuedConnection);
    });
    QMetaObject::invokeMethod(&app, [&] { startNext(); }, Qt::QueuedConnection);
    const int code = app.exec();
    if (ids.size() > 1) {
        out << "\n=== Summary ===" << Qt::endl;
        for (const QString &line : std::as_const(verdicts))
            out << line << Qt::endl;
    }
    int result = code;
    if (parser.isSet(exercise)) {
        out << "\n=== Score sheet ===\n" << QString::fromUtf8(sheet.render(cs::demo::ScoreSheet::Format::Text)) << Qt::flush;
        QString error;
        if (parser.isSet(scoreSheet) && !sheet.save(parser.value(scoreSheet), &error)) {
            QTextStream(stderr) << "countersign-demo: cannot write " << parser.value(scoreSheet) << ": " << error << Qt::endl;
            result = 1;
        }
    }
    stack.stop();
    return result;
}
