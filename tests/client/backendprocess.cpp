#include "tests/client/backendprocess.h"

#include "tests/support/testledger.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QTimer>
#include <QRegularExpression>
#include <QUrlQuery>

#ifndef COUNTERSIGND_BIN
#error "COUNTERSIGND_BIN must name the countersignd executable"
#endif
#ifndef PAYSIM_BIN
#error "PAYSIM_BIN must name the paysim executable"
#endif

namespace {

const QString PaysimKey = QStringLiteral("sk_test_countersign");

struct HttpResult
{
    int status = 0;
    QByteArray body;
    QByteArray etag;
};

HttpResult httpRequest(const QByteArray &verb, const QUrl &url, const QList<QPair<QByteArray, QByteArray>> &headers,
                       const QByteArray &body = QByteArray())
{
    QNetworkAccessManager nam;
    QNetworkRequest request(url);
    for (const auto &[name, value] : headers)
        request.setRawHeader(name, value);
    QNetworkReply *reply = nam.sendCustomRequest(request, verb, body);
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    QTimer::singleShot(30000, &loop, &QEventLoop::quit);
    loop.exec();
    HttpResult result;
    result.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    result.body = reply->readAll();
    result.etag = reply->rawHeader("ETag");
    reply->deleteLater();
    return result;
}

} // namespace

BackendProcess::BackendProcess() = default;

BackendProcess::~BackendProcess()
{
    stop();
}

QString BackendProcess::ledgerPath() const
{
    return m_ledgerLocation;
}

QString BackendProcess::tokenFile(const QString &user) const
{
    const QString path = m_dir.filePath(user + QStringLiteral(".token"));
    QFile file(path);
    if (file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        file.write(token(user).toUtf8() + '\n');
    return path;
}

QString BackendProcess::readFirstLine(QProcess *process, int timeoutMs)
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

bool BackendProcess::startPaysim(int seedCharges)
{
    m_paysim = std::make_unique<QProcess>();
    m_paysim->setProcessChannelMode(QProcess::SeparateChannels);
    m_paysim->setStandardErrorFile(m_dir.filePath(QStringLiteral("paysim.log")));
    m_paysim->start(QStringLiteral(PAYSIM_BIN), { QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0"),
                                                  QStringLiteral("--seed"), QStringLiteral("7") });
    if (!m_paysim->waitForStarted(10000)) {
        m_error = QStringLiteral("paysim did not start: ") + m_paysim->errorString();
        return false;
    }
    m_paysimUrl = QUrl(readFirstLine(m_paysim.get(), 15000));
    if (!m_paysimUrl.isValid() || m_paysimUrl.port() <= 0) {
        m_error = QStringLiteral("paysim printed no URL");
        return false;
    }
    // Charges of $10,000 each: the suites reuse them for many proposals, and countersignd reads the
    // charge at every proposal and refuses one over what is left (exceeds_refundable).
    if (seedCharges > 0) {
        const QByteArray body = "{\"count\": " + QByteArray::number(seedCharges) + ", \"amount\": 1000000}";
        const HttpResult seeded = httpRequest("POST", QUrl(m_paysimUrl.toString() + QStringLiteral("/_sim/charges")),
                                              {{"Content-Type", "application/json"}}, body);
        if (seeded.status != 200) {
            m_error = QStringLiteral("paysim did not seed charges: HTTP %1").arg(seeded.status);
            return false;
        }
    }
    QFile key(m_dir.filePath(QStringLiteral("provider.key")));
    if (!key.open(QIODevice::WriteOnly))
        return false;
    key.write(PaysimKey.toUtf8() + '\n');
    return true;
}

bool BackendProcess::addUser(const QString &name, const QString &role)
{
    QProcess process;
    process.start(QStringLiteral(COUNTERSIGND_BIN), { QStringLiteral("user"), QStringLiteral("add"), name,
                                                      QStringLiteral("--role"), role, QStringLiteral("--db"), ledgerPath() });
    if (!process.waitForFinished(30000) || process.exitCode() != 0) {
        m_error = QStringLiteral("user add %1 failed: %2").arg(name, QString::fromUtf8(process.readAllStandardError()));
        return false;
    }
    const QStringList words = QString::fromUtf8(process.readAllStandardOutput()).split(QRegularExpression(QStringLiteral("\\s+")),
                                                                                      Qt::SkipEmptyParts);
    if (words.isEmpty())
        return false;
    m_tokens.insert(name, words.last());
    return true;
}

bool BackendProcess::startBackend(const QStringList &extraServeArguments)
{
    m_backend = std::make_unique<QProcess>();
    m_backend->setProcessChannelMode(QProcess::SeparateChannels);
    m_backend->setStandardErrorFile(m_dir.filePath(QStringLiteral("countersignd.log")), QIODevice::Append);
    const QString listen = m_url.isValid() ? QStringLiteral("127.0.0.1:%1").arg(m_url.port()) : QStringLiteral("127.0.0.1:0");
    QStringList arguments{ QStringLiteral("serve"), QStringLiteral("--db"), ledgerPath(), QStringLiteral("--listen"), listen,
                           QStringLiteral("--provider"), QStringLiteral("paysim"), QStringLiteral("--provider-url"),
                           m_paysimUrl.toString(), QStringLiteral("--provider-key-file"),
                           m_dir.filePath(QStringLiteral("provider.key")) };
    arguments += extraServeArguments;
    m_backend->start(QStringLiteral(COUNTERSIGND_BIN), arguments);
    if (!m_backend->waitForStarted(10000)) {
        m_error = QStringLiteral("countersignd did not start: ") + m_backend->errorString();
        return false;
    }
    const QUrl url(readFirstLine(m_backend.get(), 20000));
    if (!url.isValid() || url.port() <= 0) {
        QFile log(m_dir.filePath(QStringLiteral("countersignd.log")));
        log.open(QIODevice::ReadOnly);
        m_error = QStringLiteral("countersignd printed no URL: ") + QString::fromUtf8(log.readAll().right(600));
        return false;
    }
    m_url = url;
    return true;
}

bool BackendProcess::start(int seedCharges, const QStringList &extraServeArguments, const QStringList &extraUsers)
{
    if (!m_dir.isValid()) {
        m_error = QStringLiteral("no temporary folder");
        return false;
    }
    m_serveArguments = extraServeArguments;
    m_ledgerLocation = cs::test::ledgerLocation(m_dir.filePath(QStringLiteral("ledger.db")));
    if (m_ledgerLocation.isEmpty()) {
        m_error = QStringLiteral("no ledger location (the private PostgreSQL cluster failed: see the warnings)");
        return false;
    }
    if (!startPaysim(seedCharges))
        return false;
    const QList<QPair<QString, QString>> users{
        { QStringLiteral("agent7"), QStringLiteral("agent") },     { QStringLiteral("agent8"), QStringLiteral("agent") },
        { QStringLiteral("ana"), QStringLiteral("approver") },     { QStringLiteral("ben"), QStringLiteral("approver") },
        { QStringLiteral("sue"), QStringLiteral("supervisor") },   { QStringLiteral("audrey"), QStringLiteral("auditor") },
        { QStringLiteral("root"), QStringLiteral("admin") },
    };
    for (const auto &[name, role] : users) {
        if (!addUser(name, role))
            return false;
    }
    for (const QString &spec : extraUsers) { // "name:role"
        const QStringList parts = spec.split(QLatin1Char(':'));
        if (parts.size() != 2 || !addUser(parts.at(0), parts.at(1)))
            return false;
    }
    return startBackend(extraServeArguments);
}

qint64 BackendProcess::backendPid() const
{
    return m_backend && m_backend->state() == QProcess::Running ? m_backend->processId() : 0;
}

bool BackendProcess::restartBackend()
{
    if (m_backend) {
        m_backend->terminate();
        if (!m_backend->waitForFinished(10000))
            m_backend->kill();
        m_backend->waitForFinished(5000);
    }
    return startBackend(m_serveArguments);
}

void BackendProcess::stop()
{
    for (std::unique_ptr<QProcess> *p : { &m_backend, &m_paysim }) {
        if (*p && (*p)->state() != QProcess::NotRunning) {
            (*p)->terminate();
            if (!(*p)->waitForFinished(10000))
                (*p)->kill();
            (*p)->waitForFinished(5000);
        }
        p->reset();
    }
}

QStringList BackendProcess::charges() const
{
    const HttpResult r = httpRequest("GET", QUrl(m_paysimUrl.toString() + QStringLiteral("/v1/charges?limit=100")),
                                     { { "Authorization", "Bearer " + PaysimKey.toUtf8() } });
    QStringList ids;
    const QJsonArray data = QJsonDocument::fromJson(r.body).object().value(QLatin1String("data")).toArray();
    for (const QJsonValue &charge : data)
        ids.prepend(charge.toObject().value(QLatin1String("id")).toString()); // newest first → oldest first
    return ids;
}

BackendProcess::Reply BackendProcess::get(const QString &user, const QString &path) const
{
    const HttpResult r = httpRequest("GET", QUrl(m_url.toString() + QStringLiteral("/api/v1") + path),
                                     { { "Authorization", "Bearer " + token(user).toUtf8() } });
    return { r.status, QJsonDocument::fromJson(r.body).object(), r.etag };
}

BackendProcess::Reply BackendProcess::post(const QString &user, const QString &path, const QJsonObject &body,
                                           qint64 ifMatch, const QString &idempotencyKey) const
{
    QList<QPair<QByteArray, QByteArray>> headers{ { "Authorization", "Bearer " + token(user).toUtf8() },
                                                  { "Content-Type", "application/json" } };
    if (ifMatch >= 0)
        headers.append({ "If-Match", '"' + QByteArray::number(ifMatch) + '"' });
    if (!idempotencyKey.isEmpty())
        headers.append({ "Idempotency-Key", idempotencyKey.toUtf8() });
    const HttpResult r = httpRequest("POST", QUrl(m_url.toString() + QStringLiteral("/api/v1") + path), headers,
                                     QJsonDocument(body).toJson(QJsonDocument::Compact));
    return { r.status, QJsonDocument::fromJson(r.body).object(), r.etag };
}

QJsonObject BackendProcess::propose(const QString &charge, qint64 amount, const QString &clientReference,
                                    const QString &businessReference, const QString &agent, const QString &currency) const
{
    const QJsonObject proposal{
        { QStringLiteral("kind"), QStringLiteral("refund") },
        { QStringLiteral("target"), QJsonObject{ { QStringLiteral("charge"), charge } } },
        { QStringLiteral("amount"), QJsonValue(amount) },
        { QStringLiteral("currency"), currency },
        { QStringLiteral("reason"), QStringLiteral("requested_by_customer") },
        { QStringLiteral("client_reference"), clientReference },
        { QStringLiteral("business_reference"), businessReference.isEmpty() ? clientReference : businessReference },
    };
    return post(agent, QStringLiteral("/actions"), proposal).body;
}

BackendProcess::Reply BackendProcess::resubmitChanged(const QString &charge, qint64 amount, const QString &clientReference,
                                                      const QString &businessReference, const QString &agent) const
{
    const QJsonObject proposal{
        { QStringLiteral("kind"), QStringLiteral("refund") },
        { QStringLiteral("target"), QJsonObject{ { QStringLiteral("charge"), charge } } },
        { QStringLiteral("amount"), QJsonValue(amount) },
        { QStringLiteral("currency"), QStringLiteral("usd") },
        { QStringLiteral("reason"), QStringLiteral("requested_by_customer") },
        { QStringLiteral("client_reference"), clientReference },
        { QStringLiteral("business_reference"), businessReference.isEmpty() ? clientReference : businessReference },
    };
    return post(agent, QStringLiteral("/actions"), proposal);
}

bool BackendProcess::plantProviderRefund(const QString &charge, qint64 amount, const QString &actionId) const
{
    QUrlQuery form;
    form.addQueryItem(QStringLiteral("charge"), charge);
    form.addQueryItem(QStringLiteral("amount"), QString::number(amount));
    form.addQueryItem(QStringLiteral("metadata[countersign_action_id]"), actionId);
    form.addQueryItem(QStringLiteral("metadata[countersign_currency]"), QStringLiteral("usd"));
    const HttpResult r = httpRequest("POST", QUrl(m_paysimUrl.toString() + QStringLiteral("/v1/refunds")),
                                     { { "Authorization", "Bearer " + PaysimKey.toUtf8() },
                                       { "Content-Type", "application/x-www-form-urlencoded" } },
                                     form.toString(QUrl::FullyEncoded).toUtf8());
    return r.status == 200;
}

BackendProcess::Reply BackendProcess::paysimAdmin(const QByteArray &verb, const QString &path, const QJsonObject &body) const
{
    QList<QPair<QByteArray, QByteArray>> headers;
    QByteArray payload;
    if (verb != "GET" && verb != "DELETE") {
        headers.append(qMakePair(QByteArray("Content-Type"), QByteArray("application/json")));
        payload = QJsonDocument(body).toJson(QJsonDocument::Compact);
    }
    const HttpResult r = httpRequest(verb, QUrl(m_paysimUrl.toString() + path), headers, payload);
    return { r.status, QJsonDocument::fromJson(r.body).object(), r.etag };
}
