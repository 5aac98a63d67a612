// paysim: parses the command line into a PaysimConfig, starts the simulator, prints its base URL
// as the first line of stdout and runs until SIGTERM or SIGINT.
#include "lifecycle/logformat.h"
#include "lifecycle/terminationsignals.h"
#include "simulator/paysimconfig.h"
#include "simulator/paysimserver.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>

#include <cstdio>

using cs::paysim::PaysimConfig;

namespace {

int fail(const QString &message)
{
    cs::LogFormat::say(QtCriticalMsg, QStringLiteral("paysim"), message);
    return 2;
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("paysim"));
    QCoreApplication::setApplicationVersion(QStringLiteral(COUNTERSIGN_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Stripe-compatible payment provider simulator with fault injection (see docs/PAYSIM.md).\n"
        "Prints its base URL as the first line of standard output."));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption listen(QStringLiteral("listen"), QStringLiteral("Address to listen on (port 0: any free port)."),
                                    QStringLiteral("host:port"), QStringLiteral("127.0.0.1:0"));
    const QCommandLineOption seed(QStringLiteral("seed"), QStringLiteral("Seed of ids and fault probabilities."),
                                  QStringLiteral("N"), QStringLiteral("1"));
    const QCommandLineOption db(QStringLiteral("db"), QStringLiteral("Persist state in this SQLite file."), QStringLiteral("FILE"));
    const QCommandLineOption window(QStringLiteral("key-window-hours"),
                                    QStringLiteral("How long idempotency keys are kept (simulated clock)."),
                                    QStringLiteral("hours"), QStringLiteral("24"));
    const QCommandLineOption webhookUrl(QStringLiteral("webhook-url"), QStringLiteral("POST events to this URL."),
                                        QStringLiteral("URL"));
    const QCommandLineOption webhookSecret(QStringLiteral("webhook-secret"),
                                           QStringLiteral("Signing secret for Stripe-Signature (whsec_…)."),
                                           QStringLiteral("secret"));
    const QCommandLineOption fault(QStringLiteral("fault"),
                                   QStringLiteral("A fault rule as JSON, like one entry of POST /_sim/faults (repeatable)."),
                                   QStringLiteral("json"));
    const QCommandLineOption seedCharges(QStringLiteral("seed-charges"),
                                         QStringLiteral("Create N charges at start when the store has none."),
                                         QStringLiteral("N"), QStringLiteral("0"));
    const QCommandLineOption logFormat(
        QStringLiteral("log-format"),
        QStringLiteral("text, or json: one JSON object per line on standard error (time, level, category, message, pid)."),
        QStringLiteral("text|json"), QStringLiteral("text"));
    parser.addOptions({listen, seed, db, window, webhookUrl, webhookSecret, fault, seedCharges, logFormat});
    parser.process(app);
    const std::optional<cs::LogFormat::Style> logStyle = cs::LogFormat::parse(parser.value(logFormat));
    if (!logStyle)
        return fail(QStringLiteral("--log-format expects text or json"));
    cs::LogFormat::install(*logStyle);

    PaysimConfig config;
    QString error;
    if (!PaysimConfig::parseListen(parser.value(listen), &config.address, &config.port, &error))
        return fail(error);
    bool ok = false;
    config.seed = parser.value(seed).toULongLong(&ok);
    if (!ok)
        return fail(QStringLiteral("--seed expects a non-negative integer"));
    config.dbPath = parser.value(db);
    config.keyWindowHours = parser.value(window).toDouble(&ok);
    if (!ok || config.keyWindowHours <= 0)
        return fail(QStringLiteral("--key-window-hours expects a positive number"));
    config.seedCharges = parser.value(seedCharges).toInt(&ok);
    if (!ok || config.seedCharges < 0 || config.seedCharges > 1000)
        return fail(QStringLiteral("--seed-charges expects 0 to 1000"));
    if (parser.isSet(webhookUrl)) {
        config.webhookUrl = QUrl(parser.value(webhookUrl), QUrl::StrictMode);
        if (!config.webhookUrl.isValid() || config.webhookUrl.scheme().isEmpty())
            return fail(QStringLiteral("--webhook-url is not a valid URL"));
        if (!parser.isSet(webhookSecret))
            return fail(QStringLiteral("--webhook-url needs --webhook-secret"));
        config.webhookSecret = parser.value(webhookSecret).toUtf8();
    }
    for (const QString &rule : parser.values(fault)) {
        QJsonParseError parseError;
        const QJsonDocument doc = QJsonDocument::fromJson(rule.toUtf8(), &parseError);
        if (!doc.isObject())
            return fail(QStringLiteral("--fault expects a JSON object: %1").arg(parseError.errorString()));
        config.faults.append(doc.object());
    }

    cs::paysim::PaysimServer server(config);
    if (!server.start(&error))
        return fail(error);
    cs::TerminationSignals termination;
    QObject::connect(&termination, &cs::TerminationSignals::terminationRequested, &app, &QCoreApplication::quit);

    QTextStream out(stdout);
    out << server.baseUrl().toString() << Qt::endl; // endl flushes: launchers read this line
    return app.exec();
}
