#include "tests/api/apitestsupport.h"

#include "tests/support/testledger.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTest>

#include <csignal>
#include <sys/prctl.h>

QByteArray ApiReply::header(const QByteArray &name) const
{
    for (const auto &h : headers) {
        if (h.first.compare(name, Qt::CaseInsensitive) == 0)
            return h.second;
    }
    return {};
}

qint64 ApiReply::stateVersion() const
{
    if (json.contains(QStringLiteral("action")))
        return json.value(QStringLiteral("action")).toObject().value(QStringLiteral("state_version")).toInteger();
    return json.value(QStringLiteral("state_version")).toInteger();
}

// --- ServiceProcess -----------------------------------------------------------------------------

ServiceProcess::~ServiceProcess()
{
    stop(5000);
}

bool ServiceProcess::start(const QString &program, const QStringList &arguments, QString *error)
{
    m_process.setProgram(program);
    m_process.setArguments(arguments);
    m_process.setProcessChannelMode(QProcess::SeparateChannels);
    // A test that crashes must not leave its services running.
    m_process.setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGTERM); });
    m_process.start();
    if (!m_process.waitForStarted(5000)) {
        *error = program + QStringLiteral(": ") + m_process.errorString();
        return false;
    }
    QByteArray line;
    QElapsedTimer clock;
    clock.start();
    while (!line.contains('\n') && clock.elapsed() < 10000) {
        if (!m_process.waitForReadyRead(100) && m_process.state() != QProcess::Running)
            break;
        line += m_process.readAllStandardOutput();
    }
    m_url = QUrl(QString::fromUtf8(line.left(line.indexOf('\n')).trimmed()));
    if (!m_url.isValid() || m_url.port() <= 0) {
        *error = QStringLiteral("%1 printed no URL; stderr: %2").arg(program, QString::fromUtf8(m_process.readAllStandardError()));
        return false;
    }
    return true;
}

bool ServiceProcess::stop(int timeoutMs)
{
    if (m_process.state() == QProcess::NotRunning)
        return m_process.exitStatus() == QProcess::NormalExit && m_process.exitCode() == 0;
    m_process.terminate(); // SIGTERM: the service drains
    QDeadlineTimer deadline(timeoutMs);
    while (m_process.state() != QProcess::NotRunning && !deadline.hasExpired())
        QTest::qWait(20);
    if (m_process.state() != QProcess::NotRunning) {
        m_process.kill();
        m_process.waitForFinished(2000);
        return false;
    }
    m_stderr += m_process.readAllStandardError();
    return m_process.exitStatus() == QProcess::NormalExit && m_process.exitCode() == 0;
}

QByteArray ServiceProcess::standardError()
{
    m_stderr += m_process.readAllStandardError();
    return m_stderr;
}

// --- ApiHarness ---------------------------------------------------------------------------------

ApiHarness::ApiHarness() = default;

ApiHarness::~ApiHarness()
{
    stop();
}

QString ApiHarness::countersigndBinary()
{
    return QStringLiteral(COUNTERSIGND_BIN);
}

QString ApiHarness::paysimBinary()
{
    return QStringLiteral(PAYSIM_BIN);
}

QString ApiHarness::addUser(const QString &name, const QString &role, QString *error)
{
    QProcess p;
    p.start(countersigndBinary(), {QStringLiteral("user"), QStringLiteral("add"), name, QStringLiteral("--role"), role,
                                   QStringLiteral("--db"), m_dbPath});
    if (!p.waitForFinished(10000) || p.exitCode() != 0) {
        *error = QStringLiteral("user add %1 failed: %2").arg(name, QString::fromUtf8(p.readAllStandardError()));
        return QString();
    }
    const QList<QByteArray> words = p.readAllStandardOutput().simplified().split(' ');
    return QString::fromLatin1(words.constLast());
}

bool ApiHarness::start(const Options &options, QString *error)
{
    if (!m_dir.isValid()) {
        *error = QStringLiteral("no temporary folder");
        return false;
    }
    m_dbPath = cs::test::ledgerLocation(m_dir.filePath(QStringLiteral("ledger.db")));
    if (m_dbPath.isEmpty()) {
        *error = QStringLiteral("no ledger location (the private PostgreSQL cluster failed: see the warnings)");
        return false;
    }
    const QList<QPair<QString, QString>> users = {
        {QStringLiteral("agent-7"), QStringLiteral("agent")},     {QStringLiteral("agent-8"), QStringLiteral("agent")},
        {QStringLiteral("ana"), QStringLiteral("approver")},      {QStringLiteral("bob"), QStringLiteral("approver")},
        {QStringLiteral("sam"), QStringLiteral("supervisor")},    {QStringLiteral("aud"), QStringLiteral("auditor")},
        {QStringLiteral("root"), QStringLiteral("admin")},
    };
    for (const auto &user : users) {
        const QString token = addUser(user.first, user.second, error);
        if (token.isEmpty())
            return false;
        m_tokens.insert(user.first, token);
    }
    QStringList serve = {QStringLiteral("serve"), QStringLiteral("--db"), m_dbPath, QStringLiteral("--listen"),
                         QStringLiteral("127.0.0.1:0"), QStringLiteral("--provider"), QStringLiteral("paysim")};
    if (options.withPaysim) {
        QStringList paysimArguments = {QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0")};
        paysimArguments += options.paysimArguments;
        if (!m_paysim.start(paysimBinary(), paysimArguments, error))
            return false;
        const QString keyFile = m_dir.filePath(QStringLiteral("provider.key"));
        QFile key(keyFile);
        if (!key.open(QIODevice::WriteOnly) || key.write("sk_test_countersign_api\n") < 0) {
            *error = QStringLiteral("cannot write the key file");
            return false;
        }
        key.close();
        serve += {QStringLiteral("--provider-url"), m_paysim.url().toString(), QStringLiteral("--provider-key-file"), keyFile};
    }
    serve += options.extraServeArguments;
    if (!m_countersignd.start(countersigndBinary(), serve, error))
        return false;
    m_ledger = std::make_unique<cs::Ledger>();
    cs::Ledger::Options ledgerOptions;
    ledgerOptions.recoverExpiredLeasesOnOpen = false;
    const cs::LedgerError opened = m_ledger->open(m_dbPath, ledgerOptions);
    if (!opened.ok()) {
        *error = opened.toString();
        return false;
    }
    return true;
}

void ApiHarness::stop()
{
    m_countersignd.stop();
    m_paysim.stop();
}

QUrl ApiHarness::api() const
{
    QUrl url = const_cast<ServiceProcess &>(m_countersignd).url();
    url.setPath(QStringLiteral("/api/v1"));
    return url;
}

ApiReply ApiHarness::sim(const QByteArray &verb, const QString &path, const QJsonObject &body)
{
    QUrl url = paysimUrl();
    url.setPath(path);
    QNetworkRequest request(url);
    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    return ApiClient::collect(
        m_simNetwork.sendCustomRequest(request, verb, body.isEmpty() ? QByteArray() : QJsonDocument(body).toJson()));
}

QString ApiHarness::seedCharge(qint64 amount, QJsonObject look)
{
    look.insert(QStringLiteral("count"), 1);
    look.insert(QStringLiteral("amount"), amount);
    const QJsonArray data = sim("POST", QStringLiteral("/_sim/charges"), look).json.value(QStringLiteral("data")).toArray();
    return data.isEmpty() ? QString() : data.first().toObject().value(QStringLiteral("id")).toString();
}

ApiReply ApiHarness::refundAtPaysim(const QByteArray &form, const QByteArray &idempotencyKey, const QByteArray &secretKey)
{
    QUrl url = paysimUrl();
    url.setPath(QStringLiteral("/v1/refunds"));
    QNetworkRequest request(url);
    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/x-www-form-urlencoded"));
    request.setRawHeader("Authorization", "Bearer " + secretKey);
    request.setRawHeader("Idempotency-Key", idempotencyKey);
    return ApiClient::collect(m_simNetwork.post(request, form));
}

// --- ApiClient ----------------------------------------------------------------------------------

ApiClient::ApiClient(const QUrl &api) : m_api(api) {}

QUrl ApiClient::url(const QString &pathAndQuery) const
{
    QUrl url = m_api;
    const qsizetype q = pathAndQuery.indexOf(u'?');
    url.setPath(m_api.path() + (q < 0 ? pathAndQuery : pathAndQuery.left(q)));
    if (q >= 0)
        url.setQuery(pathAndQuery.mid(q + 1));
    return url;
}

QNetworkReply *ApiClient::sendAsync(const QByteArray &verb, const QString &pathAndQuery, const QString &token,
                                    const QByteArray &body, const Headers &headers)
{
    QNetworkRequest request(url(pathAndQuery));
    request.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
    request.setTransferTimeout(20000);
    if (!token.isEmpty())
        request.setRawHeader("Authorization", "Bearer " + token.toLatin1());
    for (const auto &h : headers)
        request.setRawHeader(h.first, h.second);
    return m_network.sendCustomRequest(request, verb, body);
}

ApiReply ApiClient::collect(QNetworkReply *reply, int timeoutMs)
{
    if (!reply->isFinished()) {
        QSignalSpy finished(reply, &QNetworkReply::finished);
        finished.wait(timeoutMs);
    }
    ApiReply out;
    out.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    out.body = reply->readAll();
    out.json = QJsonDocument::fromJson(out.body).object();
    out.headers = reply->rawHeaderPairs();
    out.error = reply->error();
    reply->deleteLater();
    return out;
}

ApiReply ApiClient::send(const QByteArray &verb, const QString &pathAndQuery, const QString &token,
                         const QByteArray &body, const Headers &headers)
{
    return collect(sendAsync(verb, pathAndQuery, token, body, headers));
}

ApiReply ApiClient::get(const QString &pathAndQuery, const QString &token, const Headers &headers)
{
    return send("GET", pathAndQuery, token, QByteArray(), headers);
}

ApiReply ApiClient::post(const QString &path, const QString &token, const QJsonObject &body, const Headers &headers)
{
    Headers all = headers;
    all.prepend({"Content-Type", "application/json"});
    return send("POST", path, token, QJsonDocument(body).toJson(QJsonDocument::Compact), all);
}

ApiReply ApiClient::postRaw(const QString &path, const QString &token, const QByteArray &body, const Headers &headers)
{
    return send("POST", path, token, body, headers);
}

QJsonObject ApiClient::proposal(const QString &clientReference, qint64 amount, const QString &charge)
{
    return QJsonObject{
        {QStringLiteral("kind"), QStringLiteral("refund")},
        {QStringLiteral("target"), QJsonObject{{QStringLiteral("charge"), charge}}},
        {QStringLiteral("amount"), amount},
        {QStringLiteral("currency"), QStringLiteral("usd")},
        {QStringLiteral("reason"), QStringLiteral("requested_by_customer")},
        {QStringLiteral("client_reference"), clientReference},
        {QStringLiteral("business_reference"), QStringLiteral("order-1042")},
    };
}

ApiReply ApiClient::propose(const QString &token, const QJsonObject &proposal)
{
    return post(QStringLiteral("/actions"), token, proposal);
}

ApiReply ApiClient::approve(const QString &token, const QString &id, const QByteArray &etag, const QByteArray &key)
{
    Headers headers = {{"If-Match", etag}};
    if (!key.isEmpty())
        headers.append({"Idempotency-Key", key});
    return post(QStringLiteral("/actions/%1/approvals").arg(id), token, QJsonObject{{QStringLiteral("note"), QStringLiteral("ok")}},
                headers);
}

// --- ledger probe -------------------------------------------------------------------------------

LedgerCounts ledgerCounts(cs::Ledger &ledger)
{
    LedgerCounts counts;
    const auto states = ledger.reader().counts(QString());
    if (states.ok()) {
        for (qint64 n : *states)
            counts.actions += n;
    }
    qint64 after = 0;
    for (;;) {
        const auto page = ledger.reader().auditLog(after, 10000);
        if (!page.ok() || page->isEmpty())
            break;
        counts.auditRows += page->size();
        after = page->constLast().seq;
    }
    counts.lastAuditSeq = after;
    return counts;
}

char *toString(const LedgerCounts &counts)
{
    return QTest::toString(QStringLiteral("{actions %1, audit rows %2, last seq %3}")
                               .arg(counts.actions).arg(counts.auditRows).arg(counts.lastAuditSeq));
}

bool driveAttempt(cs::Ledger &ledger, const QString &actionId, cs::Attempt::Outcome outcome,
                  std::optional<cs::Trigger> trigger, QString *error, const QString &providerObjectId)
{
    const auto claim = ledger.execution().claim(actionId, QStringLiteral("test-executor"), std::chrono::seconds(60));
    if (!claim.ok()) {
        *error = claim.error().toString();
        return false;
    }
    cs::ExecutionStore::AttemptResult result;
    result.outcome = outcome;
    result.httpStatus = outcome == cs::Attempt::Outcome::Succeeded ? 200 : 0;
    result.providerObjectId = providerObjectId;
    const auto finished = ledger.execution().finishAttempt(actionId, claim->attempt.seq, result, trigger,
                                               QStringLiteral("test executor"), QStringLiteral("test-executor"));
    if (!finished.ok()) {
        *error = finished.error().toString();
        return false;
    }
    return true;
}
