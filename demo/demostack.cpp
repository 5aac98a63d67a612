#include "demo/demostack.h"

#include "demo/webhookrelay.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QLoggingCategory>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <csignal>
#include <sys/prctl.h>

Q_LOGGING_CATEGORY(lcDemo, "countersign.demo")

namespace cs::demo {

namespace {

const QString ProviderKey = QStringLiteral("sk_test_countersign_demo");
const QString WebhookSecret = QStringLiteral("whsec_countersign_demo");

// Short timeouts and backoffs so that every scenario ends in seconds (docs/EXECUTION.md).
const char DefaultExecutionConfig[] = R"({
  "workers": 2,
  "request_timeout_ms": 2000,
  "lease_duration_ms": 5000,
  "idle_poll_ms": 100,
  "recovery_sweep_ms": 500,
  "max_busy_retries": 4,
  "backoff_base_ms": 200,
  "backoff_max_ms": 1000,
  "max_reconcile_tries": 12,
  "ambiguous_lookups": 3
})";

QString locate(const QString &explicitPath, const QString &name)
{
    if (!explicitPath.isEmpty())
        return explicitPath;
    const QDir appDir(QCoreApplication::applicationDirPath());
    for (const QString &relative : {QStringLiteral("../%1/%1").arg(name), QStringLiteral("../app/%1/%1").arg(name),
                                    QStringLiteral("app/%1/%1").arg(name), name}) {
        const QFileInfo candidate(appDir.filePath(relative));
        if (candidate.isFile() && candidate.isExecutable())
            return candidate.absoluteFilePath();
    }
    return QStandardPaths::findExecutable(name);
}

void dieWithParent(QProcess *process)
{
    process->setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGKILL); });
}

QString readFirstLine(QProcess *process, int timeoutMs)
{
    QElapsedTimer timer;
    timer.start();
    while (!process->canReadLine() && timer.elapsed() < timeoutMs) {
        if (process->state() == QProcess::NotRunning)
            break;
        process->waitForReadyRead(100);
    }
    return QString::fromUtf8(process->readLine()).trimmed();
}

void stopProcess(QProcess *process, int graceMs)
{
    if (!process || process->state() == QProcess::NotRunning)
        return;
    process->terminate();
    if (!process->waitForFinished(graceMs)) {
        process->kill();
        process->waitForFinished(3000);
    }
}

} // namespace

struct DemoStack::Private {
    Options options;
    QString paysimPath;
    QString countersigndPath;
    std::unique_ptr<QTemporaryDir> dir;
    std::unique_ptr<QProcess> paysim;
    std::unique_ptr<QProcess> backend;
    std::unique_ptr<QProcess> secondBackend;
    std::unique_ptr<WebhookRelay> relay;
    QUrl paysimUrl;
    QUrl backendUrl;
    QUrl secondBackendUrl;
    QMap<QString, QString> tokens;
    QMap<QString, QString> roles;
    QStringList userOrder;
    QStringList extraServeArguments;
    QString error;
    int generation = 0;

    QString path(const QString &name) const { return dir->filePath(name); }
    QString ledgerPath() const { return path(QStringLiteral("ledger.db")); }

    QStringList serveArguments(const QString &listen, bool executor) const
    {
        QStringList arguments{QStringLiteral("serve"), QStringLiteral("--db"), ledgerPath(), QStringLiteral("--listen"), listen,
                              QStringLiteral("--provider"), QStringLiteral("paysim"), QStringLiteral("--provider-url"),
                              paysimUrl.toString(), QStringLiteral("--provider-key-file"), path(QStringLiteral("provider.key")),
                              QStringLiteral("--execution-config"), path(QStringLiteral("execution.json")),
                              QStringLiteral("--webhook-secret-file"), path(QStringLiteral("webhook.key")),
                              // MCP's wait_for_decision looks at the ledger every 200 ms (scenario 9).
                              QStringLiteral("--mcp-poll-ms"), QStringLiteral("200")};
        if (!executor)
            arguments << QStringLiteral("--no-executor");
        arguments += extraServeArguments;
        return arguments;
    }

    std::unique_ptr<QProcess> startServe(const QString &listen, bool executor, const QString &logName, QUrl *url)
    {
        auto process = std::make_unique<QProcess>();
        dieWithParent(process.get());
        process->setProcessChannelMode(QProcess::SeparateChannels);
        process->setStandardErrorFile(path(logName), QIODevice::Append);
        process->start(countersigndPath, serveArguments(listen, executor));
        if (!process->waitForStarted(10000)) {
            error = QStringLiteral("countersignd did not start (%1): %2").arg(countersigndPath, process->errorString());
            return nullptr;
        }
        const QUrl printed(readFirstLine(process.get(), 20000));
        if (!printed.isValid() || printed.port() <= 0) {
            QFile log(path(logName));
            (void)log.open(QIODevice::ReadOnly);
            error = QStringLiteral("countersignd printed no URL: ") + QString::fromUtf8(log.readAll().right(600));
            stopProcess(process.get(), 2000);
            return nullptr;
        }
        *url = printed;
        return process;
    }

    bool addUser(const QString &name, const QString &role)
    {
        QProcess process;
        process.start(countersigndPath, {QStringLiteral("user"), QStringLiteral("add"), name, QStringLiteral("--role"), role,
                                         QStringLiteral("--db"), ledgerPath()});
        if (!process.waitForFinished(30000) || process.exitCode() != 0) {
            error = QStringLiteral("user add %1 failed: %2").arg(name, QString::fromUtf8(process.readAllStandardError()));
            return false;
        }
        const QStringList words = QString::fromUtf8(process.readAllStandardOutput())
                                      .split(QRegularExpression(QStringLiteral("\\s+")), Qt::SkipEmptyParts);
        if (words.isEmpty()) {
            error = QStringLiteral("user add %1 printed no token").arg(name);
            return false;
        }
        tokens.insert(name, words.constLast());
        roles.insert(name, role);
        userOrder.append(name);
        return true;
    }
};

DemoStack::DemoStack(Options options, QObject *parent)
    : QObject(parent)
    , d(std::make_unique<Private>())
{
    d->options = std::move(options);
}

DemoStack::~DemoStack()
{
    stop();
}

bool DemoStack::start()
{
    stop();
    d->error.clear();
    d->paysimPath = locate(d->options.paysimPath, QStringLiteral("paysim"));
    d->countersigndPath = locate(d->options.countersigndPath, QStringLiteral("countersignd"));
    if (d->paysimPath.isEmpty() || d->countersigndPath.isEmpty()) {
        d->error = QStringLiteral("cannot find the paysim and countersignd executables (build tree or $PATH)");
        return false;
    }
    d->dir = std::make_unique<QTemporaryDir>(QDir::tempPath() + QStringLiteral("/countersign-demo-XXXXXX"));
    if (!d->dir->isValid()) {
        d->error = QStringLiteral("cannot create a temporary folder: ") + d->dir->errorString();
        return false;
    }
    QFile key(d->path(QStringLiteral("provider.key")));
    QFile webhookKey(d->path(QStringLiteral("webhook.key")));
    QFile config(d->path(QStringLiteral("execution.json")));
    if (!key.open(QIODevice::WriteOnly) || !webhookKey.open(QIODevice::WriteOnly) || !config.open(QIODevice::WriteOnly)) {
        d->error = QStringLiteral("cannot write into ") + d->dir->path();
        return false;
    }
    key.write(ProviderKey.toUtf8() + '\n');
    key.close();
    webhookKey.write(WebhookSecret.toUtf8() + '\n');
    webhookKey.close();
    config.write(d->options.executionConfigJson.isEmpty() ? QByteArray(DefaultExecutionConfig)
                                                          : d->options.executionConfigJson.toUtf8());
    config.close();

    d->relay = std::make_unique<WebhookRelay>();
    if (!d->relay->listen(&d->error))
        return false;

    d->paysim = std::make_unique<QProcess>();
    dieWithParent(d->paysim.get());
    d->paysim->setProcessChannelMode(QProcess::SeparateChannels);
    d->paysim->setStandardErrorFile(d->path(QStringLiteral("paysim.log")));
    d->paysim->start(d->paysimPath, {QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0"), QStringLiteral("--seed"),
                                     QString::number(d->options.seed), QStringLiteral("--seed-charges"),
                                     QString::number(d->options.seedCharges), QStringLiteral("--webhook-url"),
                                     d->relay->url().toString(), QStringLiteral("--webhook-secret"), WebhookSecret});
    if (!d->paysim->waitForStarted(10000)) {
        d->error = QStringLiteral("paysim did not start (%1): %2").arg(d->paysimPath, d->paysim->errorString());
        return false;
    }
    d->paysimUrl = QUrl(readFirstLine(d->paysim.get(), 15000));
    if (!d->paysimUrl.isValid() || d->paysimUrl.port() <= 0) {
        d->error = QStringLiteral("paysim printed no URL");
        return false;
    }
    const QList<QPair<QString, QString>> users{
        {QStringLiteral("refund-bot"), QStringLiteral("agent")},   {QStringLiteral("ana"), QStringLiteral("approver")},
        {QStringLiteral("ben"), QStringLiteral("approver")},       {QStringLiteral("sue"), QStringLiteral("supervisor")},
        {QStringLiteral("aud"), QStringLiteral("auditor")},        {QStringLiteral("root"), QStringLiteral("admin")},
        {QStringLiteral("returns-bot"), QStringLiteral("agent")}, // scenario 8's second agent
        {QStringLiteral("subscriptions-bot"), QStringLiteral("agent")}, // the agent traffic's third agent
    };
    for (const auto &[name, role] : users) {
        if (!d->addUser(name, role))
            return false;
    }
    d->backend = d->startServe(QStringLiteral("127.0.0.1:0"), true, QStringLiteral("countersignd.log"), &d->backendUrl);
    if (!d->backend)
        return false;
    d->relay->setTarget(d->backendUrl);
    qCInfo(lcDemo) << "demo stack up: backend" << d->backendUrl << "paysim" << d->paysimUrl << "in" << d->dir->path();
    return true;
}

void DemoStack::stop()
{
    stopProcess(d->secondBackend.get(), 3000);
    stopProcess(d->backend.get(), 5000);
    stopProcess(d->paysim.get(), 3000);
    d->secondBackend.reset();
    d->backend.reset();
    d->paysim.reset();
    d->relay.reset();
}

QString DemoStack::errorString() const { return d->error; }
QUrl DemoStack::backendUrl() const { return d->backendUrl; }
QUrl DemoStack::paysimUrl() const { return d->paysimUrl; }
QString DemoStack::dataDir() const { return d->dir ? d->dir->path() : QString(); }
QMap<QString, QString> DemoStack::tokens() const { return d->tokens; }
QMap<QString, QString> DemoStack::roles() const { return d->roles; }

QString DemoStack::userFor(const QString &role) const
{
    for (const QString &name : d->userOrder) {
        if (d->roles.value(name) == role)
            return name;
    }
    return QString();
}

QStringList DemoStack::usersFor(const QString &role) const
{
    QStringList names;
    for (const QString &name : d->userOrder) {
        if (d->roles.value(name) == role)
            names.append(name);
    }
    return names;
}

QString DemoStack::providerKey() const { return ProviderKey; }

bool DemoStack::killBackend()
{
    if (!d->backend || d->backend->state() == QProcess::NotRunning)
        return false;
    d->backend->kill(); // SIGKILL: no drain, no lease release
    d->backend->waitForFinished(5000);
    qCInfo(lcDemo) << "backend killed";
    return true;
}

bool DemoStack::restartBackend()
{
    if (!d->dir)
        return false;
    stopProcess(d->backend.get(), 5000);
    d->backend.reset();
    QUrl url;
    // Same port first, so that clients keep their URL; any free port if it is taken.
    d->backend = d->startServe(QStringLiteral("127.0.0.1:%1").arg(d->backendUrl.port()), true,
                               QStringLiteral("countersignd.log"), &url);
    if (!d->backend)
        d->backend = d->startServe(QStringLiteral("127.0.0.1:0"), true, QStringLiteral("countersignd.log"), &url);
    if (!d->backend)
        return false;
    d->backendUrl = url;
    if (d->relay)
        d->relay->setTarget(url);
    emit backendRestarted(url);
    return true;
}

void DemoStack::setExtraServeArguments(const QStringList &arguments)
{
    d->extraServeArguments = arguments;
}

QStringList DemoStack::extraServeArguments() const
{
    return d->extraServeArguments;
}

bool DemoStack::startSecondBackend()
{
    if (!d->dir)
        return false;
    if (d->secondBackend && d->secondBackend->state() != QProcess::NotRunning)
        return true;
    d->secondBackend = d->startServe(QStringLiteral("127.0.0.1:0"), true, QStringLiteral("countersignd-2.log"),
                                     &d->secondBackendUrl);
    return d->secondBackend != nullptr;
}

void DemoStack::stopSecondBackend()
{
    stopProcess(d->secondBackend.get(), 5000);
    d->secondBackend.reset();
}

QUrl DemoStack::secondBackendUrl() const { return d->secondBackendUrl; }

WebhookRelay *DemoStack::webhooks() const { return d->relay.get(); }

} // namespace cs::demo
