// countersign-demo: the demo scenarios headless (docs/DEMO.md).
//   countersign-demo --scenario N|all [--step-delay-ms 0] [--step-by-step] [--list] [--paysim PATH] [--countersignd PATH]
// Starts the demo stack (paysim + countersignd as child processes), plays the scenario(s), prints
// each narrated step prefixed by its kind and the verdict line; exit status 0 only when every
// scenario ended as expected.
#include "demo/demostack.h"
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
    }
    return QString();
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
    const QCommandLineOption scenario(QStringLiteral("scenario"), QStringLiteral("Scenario number 1..7, its key, or all."),
                                      QStringLiteral("N|all"));
    const QCommandLineOption stepDelay(QStringLiteral("step-delay-ms"), QStringLiteral("Pause between steps (default 0)."),
                                       QStringLiteral("ms"), QStringLiteral("0"));
    const QCommandLineOption list(QStringLiteral("list"), QStringLiteral("List the scenarios and exit."));
    const QCommandLineOption paysim(QStringLiteral("paysim"), QStringLiteral("The paysim executable."), QStringLiteral("PATH"));
    const QCommandLineOption countersignd(QStringLiteral("countersignd"), QStringLiteral("The countersignd executable."),
                                          QStringLiteral("PATH"));
    const QCommandLineOption stepByStep(QStringLiteral("step-by-step"),
                                        QStringLiteral("Play in step-by-step mode, advancing automatically (exercises next())."));
    parser.addOptions({scenario, stepDelay, list, paysim, countersignd, stepByStep});
    parser.process(app);

    QTextStream out(stdout);
    const QList<cs::demo::ScenarioInfo> catalogue = cs::demo::ScenarioRunner::catalogue();
    if (parser.isSet(list)) {
        for (const cs::demo::ScenarioInfo &info : catalogue)
            out << info.id << "  " << info.key << "  " << info.title << "\n     " << info.summary << Qt::endl;
        return 0;
    }
    QList<int> ids;
    const QString wanted = parser.value(scenario);
    for (const cs::demo::ScenarioInfo &info : catalogue) {
        if (wanted == u"all" || wanted == QString::number(info.id) || wanted == info.key)
            ids.append(info.id);
    }
    if (ids.isEmpty()) {
        QTextStream(stderr) << "countersign-demo: --scenario expects 1..7, a scenario key or all (see --list)" << Qt::endl;
        return 2;
    }
    bool ok = false;
    const int delay = parser.value(stepDelay).toInt(&ok);
    if (!ok || delay < 0) {
        QTextStream(stderr) << "countersign-demo: --step-delay-ms expects a non-negative integer" << Qt::endl;
        return 2;
    }

    cs::demo::DemoStack::Options options;
    options.paysimPath = parser.value(paysim);
    options.countersigndPath = parser.value(countersignd);
    cs::demo::DemoStack stack(options);
    out << "Starting the demo stack (paysim + countersignd)…" << Qt::endl;
    if (!stack.start()) {
        QTextStream(stderr) << "countersign-demo: " << stack.errorString() << Qt::endl;
        return 1;
    }
    out << "backend " << stack.backendUrl().toString() << "  paysim " << stack.paysimUrl().toString() << "  data "
        << stack.dataDir() << Qt::endl;

    cs::demo::ScenarioRunner runner(&stack);
    runner.setStepDelayMs(delay);
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
    qsizetype next = 0;
    QList<QString> verdicts;
    std::function<void()> startNext = [&] {
        if (next >= ids.size()) {
            app.exit(failures == 0 ? 0 : 1);
            return;
        }
        out << "\n=== Scenario " << ids.at(next) << " ===" << Qt::endl;
        runner.start(ids.at(next++), parser.isSet(stepByStep) ? cs::demo::ScenarioRunner::Mode::StepByStep
                                                              : cs::demo::ScenarioRunner::Mode::Continuous);
    };
    QObject::connect(&runner, &cs::demo::ScenarioRunner::finished, &app, [&](bool asExpected, const QString &line) {
        out << line << Qt::endl;
        verdicts.append(line);
        if (!asExpected)
            ++failures;
        QMetaObject::invokeMethod(&app, [&] { startNext(); }, Qt::QueuedConnection);
    });
    QMetaObject::invokeMethod(&app, [&] { startNext(); }, Qt::QueuedConnection);
    const int code = app.exec();
    if (ids.size() > 1) {
        out << "\n=== Summary ===" << Qt::endl;
        for (const QString &line : std::as_const(verdicts))
            out << line << Qt::endl;
    }
    stack.stop();
    return code;
}
