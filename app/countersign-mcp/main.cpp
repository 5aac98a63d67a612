// countersign-mcp: the MCP server (stdio) an agent host starts (docs/AGENTS.md). It proposes
// through countersignd's REST API with the agent's bearer token and holds no state that matters:
// kill it at any point and nothing is lost or duplicated. All logic lives in cs_mcp.
//
//   countersign-mcp --backend URL --token-file FILE [--ca-file PEM] [--timeout-ms 30000]
//   (or COUNTERSIGN_BACKEND, COUNTERSIGN_TOKEN_FILE, COUNTERSIGN_CA_FILE)
// stdout carries only MCP messages; every log line goes to stderr.
#include "client/tlstrust.h"
#include "server/mcp/mcpsession.h"
#include "server/mcp/mcptools.h"
#include "server/mcp/restbackend.h"
#include "server/mcp/stdiotransport.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFile>
#include <QTextStream>
#include <QUrl>

#include <csignal>

namespace {

QString option(const QCommandLineParser &parser, const QString &name, const char *environment)
{
    if (parser.isSet(name))
        return parser.value(name);
    return qEnvironmentVariable(environment);
}

int fail(const QString &message)
{
    QTextStream(stderr) << "countersign-mcp: " << message << Qt::endl;
    return 2;
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("countersign-mcp"));
    QCoreApplication::setApplicationVersion(QStringLiteral(COUNTERSIGN_VERSION));
    std::signal(SIGPIPE, SIG_IGN); // a client that went away is a write error, not a crash

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "The Countersign MCP server (stdio): agents propose refunds for human approval through it."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addOption({QStringLiteral("backend"), QStringLiteral("countersignd's URL (or COUNTERSIGN_BACKEND)."), QStringLiteral("URL")});
    parser.addOption({QStringLiteral("token-file"), QStringLiteral("File holding the agent's bearer token (or COUNTERSIGN_TOKEN_FILE)."),
                      QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("ca-file"), QStringLiteral("PEM CA certificates to trust for an https backend (or COUNTERSIGN_CA_FILE)."),
                      QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("timeout-ms"), QStringLiteral("Silence after which a backend call is given up [30000]."),
                      QStringLiteral("MS"), QStringLiteral("30000")});
    parser.process(app);

    const QUrl backend(option(parser, QStringLiteral("backend"), "COUNTERSIGN_BACKEND"), QUrl::StrictMode);
    if (!backend.isValid() || (backend.scheme() != u"http" && backend.scheme() != u"https") || backend.host().isEmpty())
        return fail(QStringLiteral("--backend (or COUNTERSIGN_BACKEND) must be an http:// or https:// URL"));
    const QString tokenFile = option(parser, QStringLiteral("token-file"), "COUNTERSIGN_TOKEN_FILE");
    if (tokenFile.isEmpty())
        return fail(QStringLiteral("--token-file (or COUNTERSIGN_TOKEN_FILE) is required"));
    QFile file(tokenFile);
    if (!file.open(QIODevice::ReadOnly))
        return fail(QStringLiteral("cannot read the token file %1: %2").arg(tokenFile, file.errorString()));
    const QByteArray token = file.readLine().trimmed();
    if (token.isEmpty())
        return fail(QStringLiteral("the token file %1 is empty").arg(tokenFile));
    bool ok = false;
    const int timeoutMs = parser.value(QStringLiteral("timeout-ms")).toInt(&ok);
    if (!ok || timeoutMs < 100)
        return fail(QStringLiteral("--timeout-ms must be an integer of at least 100"));

    cs::RestBackend rest(backend, token);
    rest.setTimeoutMs(timeoutMs);
    const QString caFile = option(parser, QStringLiteral("ca-file"), "COUNTERSIGN_CA_FILE");
    if (!caFile.isEmpty()) {
        QString error;
        const auto ssl = cs::sslConfigurationTrusting(caFile, &error);
        if (!ssl)
            return fail(error);
        rest.setSslConfiguration(*ssl);
    }
    cs::McpTools tools(&rest);
    cs::McpSession::Options options;
    options.serverVersion = QStringLiteral(COUNTERSIGN_VERSION);
    cs::McpSession session(&tools, options);
    cs::StdioTransport transport(&session);
    QObject::connect(&transport, &cs::StdioTransport::closed, &app, &QCoreApplication::quit);
    transport.start();
    return app.exec();
}
