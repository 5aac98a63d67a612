// countersign: the review console. Parses the command line, wires the API client, the event
// stream and the main window, shows it and runs. Everything else lives in cs_ui / cs_client.

#include "app/countersign/screenshotter.h"
#include "client/apiclient.h"
#include "client/eventstreamclient.h"
#include "client/tlstrust.h"
#include "client/tokenstore.h"
#include "demo/console/democontroller.h"
#include "demo/demostack.h"
#include "ui/consolesettings.h"
#include "ui/consoletranslations.h"
#include "ui/mainwindow.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QMessageBox>
#include <QSplashScreen>
#include <QTextStream>
#include <QTimer>

namespace {

struct Options
{
    QCommandLineOption backend{ QStringLiteral("backend"), QStringLiteral("The backend's URL (default: the last profile's)."),
                                QStringLiteral("URL") };
    QCommandLineOption tokenFile{ QStringLiteral("token-file"),
                                  QStringLiteral("Read the bearer token from FILE instead of the keychain."), QStringLiteral("FILE") };
    QCommandLineOption caFile{ QStringLiteral("ca-file"),
                               QStringLiteral("Also trust the CA certificates (PEM) in FILE for an https:// backend."),
                               QStringLiteral("FILE") };
    QCommandLineOption settings{ QStringLiteral("settings"), QStringLiteral("Keep settings in this INI file."),
                                 QStringLiteral("FILE") };
    QCommandLineOption filter{ QStringLiteral("filter"), QStringLiteral("Queue filter: queue, pending, unknown, review or all."),
                               QStringLiteral("NAME") };
    QCommandLineOption select{ QStringLiteral("select"), QStringLiteral("Open this action."), QStringLiteral("ACTION_ID") };
    QCommandLineOption tab{ QStringLiteral("tab"), QStringLiteral("Detail tab: overview, evidence, approvals, audit, related, diff."),
                            QStringLiteral("NAME") };
    QCommandLineOption windowSize{ QStringLiteral("window-size"), QStringLiteral("Window size, e.g. 1440x900."),
                                   QStringLiteral("WxH") };
    QCommandLineOption screenshot{ QStringLiteral("screenshot"),
                                   QStringLiteral("Save a picture of the window to FILE once it shows its data, then quit."),
                                   QStringLiteral("FILE") };

    QCommandLineOption lang{ QStringLiteral("lang"),
                             QStringLiteral("The console's language: de, en or system (default: the system's, from LANG)."),
                             QStringLiteral("LANG") };

    QCommandLineOption demo{ QStringLiteral("demo"),
                             QStringLiteral("Demo and training mode: start an embedded backend and paysim on loopback "
                                            "(SQLite in a temporary folder), signed in as the approver.") };
    QCommandLineOption scenario{ QStringLiteral("scenario"),
                                 QStringLiteral("With --demo: play scenario N (1-7) continuously at start; with --screenshot, "
                                                "the picture is taken when it ends."),
                                 QStringLiteral("N") };

    void addTo(QCommandLineParser &parser)
    {
        parser.setApplicationDescription(QStringLiteral(
            "Countersign review console: sign off refunds that AI agents propose and review ambiguous ones.\n"
            "Talks to countersignd only through its REST API."));
        parser.addHelpOption();
        parser.addVersionOption();
        parser.addOptions({ backend, tokenFile, caFile, settings, filter, select, tab, windowSize, screenshot, lang, demo, scenario });
    }
};

void describeApplication(QCoreApplication &app)
{
    app.setOrganizationName(QStringLiteral("Countersign"));
    app.setApplicationName(QStringLiteral("countersign"));
    app.setApplicationVersion(QStringLiteral(COUNTERSIGN_VERSION));
}

} // namespace

int main(int argc, char *argv[])
{
    // --help and --version need no display: answer them before a QApplication exists.
    for (int i = 1; i < argc; ++i) {
        const QByteArray arg(argv[i]);
        if (arg == "-h" || arg == "--help" || arg == "--help-all" || arg == "-v" || arg == "--version") {
            QCoreApplication core(argc, argv);
            describeApplication(core);
            QCommandLineParser parser;
            Options options;
            options.addTo(parser);
            parser.process(core); // prints and exits
            return 0;
        }
    }

    QApplication app(argc, argv);
    describeApplication(app);
    // The installed desktop entry's id (dist/unix): Wayland compositors match windows to it.
    QApplication::setDesktopFileName(QStringLiteral("org.countersign.Countersign"));
    QCommandLineParser parser;
    Options options;
    options.addTo(parser);
    parser.process(app);

    // Before any window exists: widgets read their texts when they are made.
    const std::optional<QLocale> locale = cs::consoleLocale(parser.value(options.lang));
    if (!locale) {
        QTextStream(stderr) << "countersign: --lang: unknown language " << parser.value(options.lang)
                            << " (known: en, " << cs::consoleLanguages().join(QStringLiteral(", ")) << ", system)" << Qt::endl;
        return 2;
    }
    if (parser.isSet(options.lang))
        QLocale::setDefault(*locale); // numbers and dates in the language asked for, too
    cs::installConsoleTranslations(*locale);

    // Demo mode: the stack lives as long as the console; its destructor stops both processes.
    std::unique_ptr<cs::demo::DemoStack> stack;
    const bool demo = parser.isSet(options.demo);
    if (demo) {
        QSplashScreen splash;
        splash.showMessage(QApplication::translate("main", "Starting the demo backend and the payment simulator\u2026"),
                           Qt::AlignCenter);
        splash.resize(480, 120);
        splash.show();
        QApplication::processEvents();
        stack = std::make_unique<cs::demo::DemoStack>(cs::demo::DemoStack::Options{});
        const bool started = stack->start();
        splash.close();
        if (!started) {
            QTextStream(stderr) << "countersign: the demo could not start: " << stack->errorString() << Qt::endl;
            if (!parser.isSet(options.screenshot))
                QMessageBox::critical(nullptr, QApplication::translate("main", "Countersign demo"),
                                      QApplication::translate("main", "The demo could not start:\n%1").arg(stack->errorString()));
            return 1;
        }
    }

    std::unique_ptr<cs::ConsoleSettings> settings = parser.isSet(options.settings)
        ? std::make_unique<cs::ConsoleSettings>(parser.value(options.settings))
        : demo ? std::make_unique<cs::ConsoleSettings>(stack->dataDir() + QStringLiteral("/console.ini")) // leaves the user's profile alone
               : std::make_unique<cs::ConsoleSettings>();
    if (parser.isSet(options.filter))
        settings->queueFilter = parser.value(options.filter);

    const QUrl backend = demo ? stack->backendUrl() : QUrl::fromUserInput(parser.isSet(options.backend) ? parser.value(options.backend)
                                                                            : QString(settings->backendUrl));
    if (!backend.isValid()) {
        QTextStream(stderr) << "countersign: --backend expects a URL such as http://127.0.0.1:8470" << Qt::endl;
        return 2;
    }
    settings->backendUrl = backend.toString();

    cs::ApiClient client;
    client.setBaseUrl(backend);
    cs::EventStreamClient events;
    events.setBaseUrl(backend);
    if (parser.isSet(options.caFile)) {
        QString error;
        const auto tls = cs::sslConfigurationTrusting(parser.value(options.caFile), &error);
        if (!tls) {
            QTextStream(stderr) << "countersign: --ca-file: " << error << Qt::endl;
            return 2;
        }
        client.setSslConfiguration(*tls);
        events.setSslConfiguration(*tls);
    }
    cs::TokenStore tokens;
    cs::MainWindow window(&client, &events, settings.get());
    window.setTokenStore(&tokens);

    if (parser.isSet(options.windowSize)) {
        const QStringList wh = parser.value(options.windowSize).split(QLatin1Char('x'));
        if (wh.size() == 2)
            window.resize(wh.at(0).toInt(), wh.at(1).toInt());
    }
    // The demo's own choices (Demo → Agent traffic) outlive its temporary folder: they are kept in
    // the user's settings, or in --settings FILE.
    std::unique_ptr<cs::ConsoleSettings> demoChoices;
    std::unique_ptr<cs::DemoController> demoUi;
    const int scenario = parser.value(options.scenario).toInt();
    if (demo) {
        if (!parser.isSet(options.settings))
            demoChoices = std::make_unique<cs::ConsoleSettings>();
        demoUi = std::make_unique<cs::DemoController>(stack.get(), &window, &client, &events,
                                                      demoChoices ? demoChoices.get() : settings.get());
        if (scenario > 0)
            QObject::connect(&window, &cs::MainWindow::identityKnown, demoUi.get(),
                             [&demoUi, scenario] { demoUi->play(scenario, false); }, Qt::SingleShotConnection);
    }

    std::unique_ptr<cs::Screenshotter> shooter;
    if (parser.isSet(options.screenshot)) {
        const QString path = parser.value(options.screenshot);
        shooter = std::make_unique<cs::Screenshotter>(&window);
        QObject::connect(shooter.get(), &cs::Screenshotter::finished, &app, [&app](bool ok) { app.exit(ok ? 0 : 1); });
        if (demo && scenario > 0) {
            // The picture once the scenario has ended and the queue has caught up.
            shooter->after(demoUi.get(), &cs::DemoController::scenarioFinished, path);
            shooter->giveUpAfter(180000, QStringLiteral("the scenario did not end within 180 s"));
        } else if (demo && !parser.isSet(options.select)) {
            // A fresh demo has no action to show yet: the picture once signed in and the queue loaded.
            shooter->after(&window, &cs::MainWindow::identityKnown, path);
        } else {
            shooter->whenShown(path, parser.value(options.select), parser.value(options.tab));
            shooter->giveUpAfter(60000, QStringLiteral("no screenshot within 60 s (is the backend reachable?)"));
        }
    } else if (parser.isSet(options.select)) {
        const QString id = parser.value(options.select);
        QObject::connect(&window, &cs::MainWindow::identityKnown, &window, [&window, id] { window.selectAction(id); },
                         Qt::SingleShotConnection);
    }

    const auto startWith = [&](const QString &token) {
        client.setToken(token);
        events.setToken(token);
        window.start();
    };
    if (demo) {
        events.setBaseUrl(backend);
        demoUi->start(); // signs in as the approver
    } else if (parser.isSet(options.tokenFile)) {
        QString error;
        const QString token = cs::TokenStore::readTokenFile(parser.value(options.tokenFile), &error);
        if (token.isEmpty()) {
            QTextStream(stderr) << "countersign: --token-file: " << error << Qt::endl;
            return 2;
        }
        startWith(token);
    } else {
        QObject::connect(&tokens, &cs::TokenStore::loaded, &window,
                         [&](const QString &, const QString &token) { startWith(token); }, Qt::SingleShotConnection);
        const auto ask = [&window] { QTimer::singleShot(0, &window, &cs::MainWindow::editConnection); };
        QObject::connect(&tokens, &cs::TokenStore::notFound, &window, ask, Qt::SingleShotConnection);
        QObject::connect(&tokens, &cs::TokenStore::failed, &window, ask, Qt::SingleShotConnection);
        tokens.load(backend.toString());
    }

    window.show();
    return app.exec();
}
