#include "server/stripeclient.h"

#include "server/metrics/metrics.h"

#include "models/refundstatus.h"

#include "server/executionlog.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QHash>
#include <QHostAddress>
#include <QIODevice>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMutex>
#include <QMutexLocker>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QPointer>
#include <QSet>
#include <QThread>
#include <QTimer>
#include <QUrlQuery>

#include <algorithm>
#include <cstring>

namespace cs {

namespace {

constexpr int kExcerptLimit = 500;
const QLatin1String kActionMetadata("countersign_action_id");

// The request body, readable exactly once. Qt cannot rewind it, so a connection that closes
// before the answer ends the reply with ContentReSendError instead of a silent second POST.
class OnceUploadDevice : public QIODevice
{
public:
    explicit OnceUploadDevice(QByteArray data, QObject *parent = nullptr)
        : QIODevice(parent), m_data(std::move(data))
    {
        open(QIODevice::ReadOnly);
    }
    bool isSequential() const override { return true; }
    qint64 bytesAvailable() const override { return m_data.size() - m_pos + QIODevice::bytesAvailable(); }
    bool atEnd() const override { return m_pos >= m_data.size() && QIODevice::bytesAvailable() == 0; }
    bool reset() override { return false; }

protected:
    qint64 readData(char *out, qint64 max) override
    {
        const qint64 n = qMin<qint64>(max, m_data.size() - m_pos);
        if (n > 0)
            std::memcpy(out, m_data.constData() + m_pos, size_t(n));
        m_pos += n;
        return n;
    }
    qint64 writeData(const char *, qint64) override { return -1; }

private:
    QByteArray m_data;
    qint64 m_pos = 0;
};

QString excerptOf(const QByteArray &bytes)
{
    return QString::fromUtf8(bytes.left(kExcerptLimit * 2)).left(kExcerptLimit);
}

QString excerptOf(const QString &text)
{
    return text.left(kExcerptLimit);
}

QJsonObject jsonObject(const QByteArray &body)
{
    return QJsonDocument::fromJson(body).object();
}

int retryAfterMs(const QByteArray &header)
{
    bool ok = false;
    const double seconds = header.trimmed().toDouble(&ok);
    if (!ok || seconds <= 0)
        return 0;
    return int(qMin(seconds, 3600.0) * 1000);
}

QString transportErrorName(QNetworkReply::NetworkError error)
{
    switch (error) {
    case QNetworkReply::ConnectionRefusedError: return QStringLiteral("connection refused");
    case QNetworkReply::RemoteHostClosedError: return QStringLiteral("connection closed by the provider");
    case QNetworkReply::HostNotFoundError: return QStringLiteral("host not found");
    case QNetworkReply::TimeoutError: return QStringLiteral("timed out");
    case QNetworkReply::OperationCanceledError: return QStringLiteral("aborted");
    case QNetworkReply::SslHandshakeFailedError: return QStringLiteral("TLS handshake failed");
    case QNetworkReply::TemporaryNetworkFailureError: return QStringLiteral("temporary network failure");
    case QNetworkReply::NetworkSessionFailedError: return QStringLiteral("network session failed");
    case QNetworkReply::ContentReSendError:
        return QStringLiteral("connection closed before the answer (the request may have been received)");
    default: return QStringLiteral("network error %1").arg(int(error));
    }
}

ProviderLookup baseLookup(const ActionRecord &action, ProviderLookup::Method method, const QString &askedBy)
{
    ProviderLookup lookup;
    lookup.actionId = action.id;
    lookup.method = method;
    lookup.askedBy = askedBy;
    lookup.at = QDateTime::currentDateTimeUtc();
    lookup.result = ProviderLookup::Result::Error;
    return lookup;
}

// What was seen of an answer that is not a usable list or object.
QString errorExcerpt(const StripeClient::HttpAnswer &answer, const QString &what)
{
    if (!answer.answered)
        return excerptOf(what + QStringLiteral(": ") + answer.transportError);
    return excerptOf(what + QStringLiteral(": HTTP %1 ").arg(answer.status)
                     + QString::fromUtf8(answer.body.left(kExcerptLimit)));
}

// An answer that is not a usable list or object: ERROR with what was seen.
void fillError(ProviderLookup &lookup, const StripeClient::HttpAnswer &answer, const QString &what)
{
    lookup.result = ProviderLookup::Result::Error;
    lookup.httpStatus = answer.status;
    lookup.excerpt = errorExcerpt(answer, what);
}

void fillFound(ProviderLookup &lookup, const QJsonObject &refund, int httpStatus)
{
    lookup.result = ProviderLookup::Result::Found;
    lookup.providerObjectId = refund.value(QLatin1String("id")).toString();
    lookup.status = refund.value(QLatin1String("status")).toString();
    lookup.amount = refund.value(QLatin1String("amount")).toInteger();
    lookup.currency = refund.value(QLatin1String("currency")).toString().toLower();
    lookup.failureReason = refund.value(QLatin1String("failure_reason")).toString(); // null: empty
    lookup.httpStatus = httpStatus;
}

// An expandable field: the id, or the expanded object's id.
QString idOf(const QJsonValue &value)
{
    return value.isObject() ? value.toObject().value(QLatin1String("id")).toString() : value.toString();
}

QString metadataActionId(const QJsonObject &refund)
{
    return refund.value(QLatin1String("metadata")).toObject().value(kActionMetadata).toString();
}

} // namespace

// --- configuration ------------------------------------------------------------------------------

bool StripeClientConfig::isLoopbackHost(const QString &host)
{
    if (host.compare(QLatin1String("localhost"), Qt::CaseInsensitive) == 0)
        return true; // resolved by this machine only (RFC 6761)
    const QHostAddress address(host);
    return !address.isNull() && address.isLoopback();
}

QString StripeClientConfig::validate() const
{
    if (!baseUrl.isValid() || (baseUrl.scheme() != u"https" && baseUrl.scheme() != u"http") || baseUrl.host().isEmpty())
        return QStringLiteral("the provider base URL must be an http(s) URL with a host");
    if (baseUrl.scheme() == u"http" && !isLoopbackHost(baseUrl.host())) {
        return QStringLiteral("the provider base URL %1 is plain http: the secret key would travel in clear text;"
                              " use https (http is allowed only on loopback: 127.0.0.0/8, ::1, localhost)")
            .arg(baseUrl.toDisplayString());
    }
    if (secretKey.trimmed().isEmpty())
        return QStringLiteral("the provider secret key is empty");
    if (requestTimeout.count() <= 0 || lookupTimeout.count() <= 0)
        return QStringLiteral("provider timeouts must be positive");
    if (maxListPages < 1)
        return QStringLiteral("max list pages must be at least 1");
    return {};
}

std::optional<QByteArray> StripeClient::readSecretKeyFile(const QString &path, QString *error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        if (error)
            *error = QStringLiteral("cannot read the secret key file %1: %2").arg(path, file.errorString());
        return std::nullopt;
    }
    const QByteArray key = file.read(4096).trimmed();
    if (key.isEmpty() || key.contains('\n') || key.contains(' ')
        || !(key.startsWith("sk_") || key.startsWith("rk_"))) {
        if (error)
            *error = QStringLiteral("%1 does not hold one secret key (sk_… or rk_…)").arg(path);
        return std::nullopt;
    }
    // The operator's file: read as it is, but other local users should not be able to read it.
    constexpr QFileDevice::Permissions others = QFileDevice::ReadGroup | QFileDevice::WriteGroup | QFileDevice::ReadOther
                                                | QFileDevice::WriteOther;
    if (file.permissions() & others)
        qCWarning(lcProvider).noquote() << "the secret key file" << path << "is readable by other users: chmod 600 it";
    return key;
}

// --- per-thread network access ------------------------------------------------------------------

struct StripeClient::Shared
{
    QMutex mutex;
    QHash<QThread *, QNetworkAccessManager *> networks;
    QHash<QThread *, QMetaObject::Connection> finishedHooks;
    QSet<QNetworkReply *> inFlight;
};

StripeClient::StripeClient(StripeClientConfig config)
    : m_config(std::move(config)), m_shared(std::make_shared<Shared>())
{
    const QString problem = m_config.validate();
    if (!problem.isEmpty())
        qCWarning(lcProvider) << "StripeClient configured badly:" << problem;
}

StripeClient::~StripeClient()
{
    QMutexLocker lock(&m_shared->mutex);
    for (auto it = m_shared->finishedHooks.cbegin(); it != m_shared->finishedHooks.cend(); ++it)
        QObject::disconnect(it.value());
    for (auto it = m_shared->networks.cbegin(); it != m_shared->networks.cend(); ++it) {
        if (it.key() == QThread::currentThread())
            delete it.value();
        else
            it.value()->deleteLater(); // its thread still runs: deleted there
    }
    m_shared->networks.clear();
}

QNetworkAccessManager *StripeClient::networkForCurrentThread()
{
    QThread *thread = QThread::currentThread();
    QMutexLocker lock(&m_shared->mutex);
    if (QNetworkAccessManager *existing = m_shared->networks.value(thread))
        return existing;
    auto *network = new QNetworkAccessManager;
    network->setRedirectPolicy(QNetworkRequest::ManualRedirectPolicy);
    m_shared->networks.insert(thread, network);
    // QThread::finished is emitted by the finishing thread itself: the manager dies on its thread.
    std::weak_ptr<Shared> weak = m_shared;
    m_shared->finishedHooks.insert(thread, QObject::connect(thread, &QThread::finished, thread, [weak, thread] {
        const std::shared_ptr<Shared> shared = weak.lock();
        if (!shared)
            return;
        QNetworkAccessManager *mine = nullptr;
        {
            QMutexLocker inner(&shared->mutex);
            mine = shared->networks.take(thread);
            shared->finishedHooks.remove(thread);
        }
        delete mine;
    }, Qt::DirectConnection));
    return network;
}

QUrl StripeClient::endpoint(const QString &path) const
{
    QUrl url = m_config.baseUrl;
    QString prefix = url.path();
    while (prefix.endsWith(QLatin1Char('/')))
        prefix.chop(1);
    url.setPath(prefix + path);
    url.setQuery(QString());
    return url;
}

namespace {

// Every request to the provider: how long it took and how it ended, by operation (a fixed set,
// from the verb and the path's shape: never an id).
metrics::Histogram providerSeconds(QStringLiteral("countersign_provider_request_seconds"),
                                   QStringLiteral("Requests to the payment provider, from sending to the whole answer (or the deadline), by operation"),
                                   {QStringLiteral("operation")}, metrics::Histogram::latencyBounds());
metrics::Counter providerRequests(QStringLiteral("countersign_provider_requests_total"),
                                  QStringLiteral("Requests to the payment provider by operation and result (HTTP status class, timeout, aborted or a transport error)"),
                                  {QStringLiteral("operation"), QStringLiteral("result")});

QString providerOperation(const QByteArray &verb, const QString &path)
{
    const QStringList parts = path.split(u'/', Qt::SkipEmptyParts); // v1, refunds, re_…
    const QString resource = parts.value(1);
    if (verb == "POST")
        return resource == u"refunds" ? QStringLiteral("create_refund") : QStringLiteral("post_other");
    const bool one = parts.size() > 2;
    if (resource == u"refunds")
        return one ? QStringLiteral("retrieve_refund") : QStringLiteral("list_refunds");
    if (resource == u"charges")
        return one ? QStringLiteral("retrieve_charge") : QStringLiteral("list_charges");
    if (resource == u"payment_intents")
        return QStringLiteral("retrieve_payment_intent");
    if (resource == u"events")
        return QStringLiteral("list_events");
    return QStringLiteral("get_other");
}

[[maybe_unused]] const bool providerDeclared = [] {
    for (const char *operation : {"create_refund", "retrieve_refund", "list_refunds", "list_events", "retrieve_charge"}) {
        providerSeconds.declare({QLatin1String(operation)});
        for (const char *result : {"2xx", "4xx", "5xx", "timeout"})
            providerRequests.declare({QLatin1String(operation), QLatin1String(result)});
    }
    return true;
}();

} // namespace

StripeClient::HttpAnswer StripeClient::perform(const QByteArray &verb, const QUrl &url, const QByteArray &formBody,
                                               const QString &idempotencyKey, std::chrono::milliseconds timeout,
                                               const QString &actionId)
{
    HttpAnswer answer;
    QElapsedTimer clock;
    clock.start();
    QNetworkAccessManager *network = networkForCurrentThread();

    QNetworkRequest request(url);
    request.setRawHeader("Authorization", "Bearer " + m_config.secretKey);
    request.setRawHeader("Accept", "application/json");
    request.setRawHeader("User-Agent", "Countersign/" COUNTERSIGN_VERSION);
    request.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
    request.setAttribute(QNetworkRequest::CacheLoadControlAttribute, QNetworkRequest::AlwaysNetwork);

    QNetworkReply *reply = nullptr;
    if (verb == "POST") {
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/x-www-form-urlencoded"));
        request.setHeader(QNetworkRequest::ContentLengthHeader, formBody.size());
        request.setAttribute(QNetworkRequest::DoNotBufferUploadDataAttribute, true);
        if (!idempotencyKey.isEmpty())
            request.setRawHeader("Idempotency-Key", idempotencyKey.toUtf8());
        auto *device = new OnceUploadDevice(formBody);
        reply = network->post(request, device);
        device->setParent(reply);
    } else {
        reply = network->get(request);
    }
    {
        QMutexLocker lock(&m_shared->mutex);
        m_shared->inFlight.insert(reply);
    }

    bool timedOut = false;
    QEventLoop loop;
    QTimer deadline;
    deadline.setSingleShot(true);
    QObject::connect(&deadline, &QTimer::timeout, reply, [&] {
        timedOut = true;
        reply->abort(); // 6.4 reports OperationCanceledError, later versions TimeoutError
    });
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    deadline.start(timeout);
    if (!reply->isFinished())
        loop.exec(QEventLoop::ExcludeUserInputEvents);
    deadline.stop();
    {
        QMutexLocker lock(&m_shared->mutex);
        m_shared->inFlight.remove(reply);
    }

    const QVariant status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute);
    answer.timedOut = timedOut;
    answer.aborted = !timedOut && reply->property("countersign_aborted").toBool();
    if (status.isValid() && !timedOut && !answer.aborted) {
        answer.answered = true;
        answer.status = status.toInt();
        answer.body = reply->readAll();
        answer.requestId = reply->rawHeader("Request-Id");
        answer.replayed = reply->rawHeader("Idempotent-Replayed").trimmed().compare("true", Qt::CaseInsensitive) == 0;
        answer.retryAfter = reply->rawHeader("Retry-After");
        answer.clock = ProviderClock::fromHttpDate(reply->rawHeader("Date"), QDateTime::currentDateTimeUtc());
    } else if (timedOut) {
        answer.transportError = QStringLiteral("no complete answer within %1 ms").arg(timeout.count());
    } else if (answer.aborted) {
        answer.transportError = QStringLiteral("aborted by a stopping executor");
    } else {
        answer.transportError = transportErrorName(reply->error()) + QStringLiteral(" (") + reply->errorString()
            + QLatin1Char(')');
    }
    answer.elapsedMs = clock.elapsed();
    const QString operation = providerOperation(verb, url.path());
    providerSeconds.observe({operation}, double(clock.nsecsElapsed()) / 1e9);
    providerRequests.inc({operation, answer.answered ? QString::number(answer.status / 100) + QStringLiteral("xx")
                                     : answer.timedOut ? QStringLiteral("timeout")
                                     : answer.aborted  ? QStringLiteral("aborted")
                                                       : QStringLiteral("transport_error")});
    delete reply; // not from inside its own signal: safe
    qCDebug(lcProvider) << ActionTag{actionId} << verb << url.path() << "->"
                        << (answer.answered ? QString::number(answer.status) : answer.transportError) << "in"
                        << answer.elapsedMs << "ms";
    return answer;
}

ProviderClient::Reachability StripeClient::probe()
{
    using Status = Reachability::Status;
    QUrl url = endpoint(QStringLiteral("/v1/refunds"));
    url.setQuery(QStringLiteral("limit=1"));
    const auto deadline = std::min(m_config.lookupTimeout, std::chrono::milliseconds(5000));
    const HttpAnswer answer = perform("GET", url, QByteArray(), QString(), deadline);
    Reachability out;
    out.httpStatus = answer.answered ? answer.status : 0;
    out.elapsedMs = answer.elapsedMs;
    if (!answer.answered) {
        out.status = Status::Unreachable;
        out.detail = answer.transportError;
    } else if ((answer.status >= 200 && answer.status < 300) || answer.status == 429) {
        out.status = Status::Reachable;
        out.detail = QStringLiteral("HTTP %1 in %2 ms").arg(answer.status).arg(answer.elapsedMs);
    } else {
        out.status = Status::Unreachable;
        out.detail = answer.status == 401 || answer.status == 403
            ? QStringLiteral("HTTP %1: the provider refuses the secret key").arg(answer.status)
            : QStringLiteral("HTTP %1").arg(answer.status);
    }
    return out;
}

void StripeClient::abortInFlight()
{
    QMutexLocker lock(&m_shared->mutex);
    for (QNetworkReply *reply : std::as_const(m_shared->inFlight)) {
        // Runs on the reply's own thread (its nested event loop); dropped if the reply is gone.
        QMetaObject::invokeMethod(reply, [reply] {
            reply->setProperty("countersign_aborted", true);
            reply->abort();
        }, Qt::QueuedConnection);
    }
}

QString StripeClient::name() const
{
    return m_config.name;
}

// --- refunds ------------------------------------------------------------------------------------

// | answer                                             | outcome             |
// |----------------------------------------------------|---------------------|
// | 2xx refund, status succeeded/pending/requires_action | Succeeded         |
// | 2xx refund, status failed/canceled                 | Rejected (refund_failed / refund_canceled) |
// | 2xx refund, any other status                       | Unknown             |
// (Succeeded says the provider answered with a refund that may move money; whether its status
// proves the money moved is models/refundstatus.h, asked by AttemptPolicy: requires_action, which
// may still go either way, stops for review.)
// | 2xx that is not a refund object                    | Unknown             |
// | 400 type idempotency_error                         | IdempotencyMismatch |
// | 409 (idempotency_key_in_use, lock_timeout)         | KeyInUse            |
// | 429                                                | RateLimited         |
// | 400 charge_already_refunded                        | Unknown (ambiguous: an earlier attempt under a pruned key?) |
// | 408                                                | Unknown             |
// | other 4xx (amount_too_large, resource_missing, card errors, 401, 403 …) | Rejected with the code |
// | 5xx, 1xx, 3xx                                      | Unknown             |
// | timeout, reset, closed without answer, any transport error, abort | Unknown |
RefundOutcome StripeClient::classifyRefundAnswer(const HttpAnswer &answer)
{
    RefundOutcome out;
    out.outcome = Attempt::Outcome::Unknown;
    if (!answer.answered) {
        out.errorExcerpt = excerptOf(answer.transportError);
        return out;
    }
    out.httpStatus = answer.status;
    out.providerClock = answer.clock;
    out.providerRequestId = QString::fromLatin1(answer.requestId);
    out.replayed = answer.replayed;
    const QJsonObject json = jsonObject(answer.body);
    const QJsonObject error = json.value(QLatin1String("error")).toObject();
    out.errorType = error.value(QLatin1String("type")).toString();
    out.errorCode = error.value(QLatin1String("code")).toString();
    const int status = answer.status;

    if (status >= 200 && status < 300) {
        const QString id = json.value(QLatin1String("id")).toString();
        if (json.value(QLatin1String("object")).toString() != u"refund" || id.isEmpty()) {
            out.errorExcerpt = excerptOf(QStringLiteral("a 2xx answer that is not a refund: ") + excerptOf(answer.body));
            return out;
        }
        out.providerObjectId = id;
        out.refundStatus = json.value(QLatin1String("status")).toString();
        out.amount = json.value(QLatin1String("amount")).toInteger();
        out.currency = json.value(QLatin1String("currency")).toString().toLower();
        const RefundEvidence evidence = refundEvidence(out.refundStatus);
        if (evidence == RefundEvidence::Committed || evidence == RefundEvidence::Unsettled) {
            out.outcome = Attempt::Outcome::Succeeded;
        } else if (evidence == RefundEvidence::NotCommitted) {
            out.outcome = Attempt::Outcome::Rejected;
            out.errorCode = QStringLiteral("refund_") + out.refundStatus;
            out.errorExcerpt = excerptOf(answer.body);
        } else {
            out.errorExcerpt = excerptOf(QStringLiteral("refund with unexpected status: ") + excerptOf(answer.body));
        }
        return out;
    }
    out.errorExcerpt = excerptOf(answer.body);
    out.retryAfterMs = retryAfterMs(answer.retryAfter);
    if (status == 400 && out.errorType == u"idempotency_error") {
        out.outcome = Attempt::Outcome::IdempotencyMismatch;
        if (out.errorCode.isEmpty())
            out.errorCode = QStringLiteral("idempotency_error");
    } else if (status == 409) {
        out.outcome = Attempt::Outcome::KeyInUse;
    } else if (status == 429) {
        out.outcome = Attempt::Outcome::RateLimited;
    } else if (status == 408 || out.errorCode == u"charge_already_refunded") {
        out.outcome = Attempt::Outcome::Unknown;
    } else if (status >= 400 && status < 500) {
        out.outcome = Attempt::Outcome::Rejected;
        if (out.errorCode.isEmpty())
            out.errorCode = out.errorType.isEmpty() ? QStringLiteral("http_%1").arg(status) : out.errorType;
    } else {
        out.outcome = Attempt::Outcome::Unknown;
    }
    return out;
}

RefundOutcome StripeClient::createRefund(const ProviderRequest &request, const QString &idempotencyKey)
{
    const QString actionId = request.field(QStringLiteral("metadata[countersign_action_id]"));
    const HttpAnswer answer = perform(request.method.toLatin1(), endpoint(request.path), request.formBody(),
                                      idempotencyKey, m_config.requestTimeout, actionId);
    RefundOutcome outcome = classifyRefundAnswer(answer);
    qCInfo(lcProvider) << ActionTag{actionId} << "refund with key" << idempotencyKey << "->" << toWire(outcome.outcome)
                       << outcome.httpStatus << outcome.errorCode << outcome.providerObjectId
                       << (outcome.replayed ? "replayed" : "");
    return outcome;
}

// --- lookups ------------------------------------------------------------------------------------

RefundSearch StripeClient::searchRefundsForAction(const ActionRecord &action, const QString &askedBy)
{
    RefundSearch search;
    ProviderLookup &lookup = search.lookup;
    lookup = baseLookup(action, ProviderLookup::Method::ListByMetadata, askedBy);
    const QString targetParam = toWire(action.targetType);
    QString startingAfter;
    int scanned = 0;
    QList<QJsonObject> matches;
    bool complete = false;
    int lastStatus = 0;
    for (int page = 0; page < m_config.maxListPages; ++page) {
        QUrl url = endpoint(QStringLiteral("/v1/refunds"));
        QUrlQuery query;
        query.addQueryItem(targetParam, action.targetId);
        query.addQueryItem(QStringLiteral("limit"), QStringLiteral("100"));
        if (!startingAfter.isEmpty())
            query.addQueryItem(QStringLiteral("starting_after"), startingAfter);
        url.setQuery(query);
        const HttpAnswer answer = perform("GET", url, {}, {}, m_config.lookupTimeout, action.id);
        lastStatus = answer.status;
        if (answer.clock.isValid())
            search.providerClock = answer.clock;
        if (!answer.answered || answer.status != 200) {
            fillError(lookup, answer, QStringLiteral("listing refunds of %1").arg(action.targetId));
            return search;
        }
        const QJsonObject list = jsonObject(answer.body);
        if (list.value(QLatin1String("object")).toString() != u"list") {
            fillError(lookup, answer, QStringLiteral("listing refunds of %1: not a list").arg(action.targetId));
            return search;
        }
        const QJsonArray data = list.value(QLatin1String("data")).toArray();
        for (const QJsonValue &value : data) {
            const QJsonObject refund = value.toObject();
            ++scanned;
            if (metadataActionId(refund) == action.id)
                matches.append(refund);
        }
        if (!list.value(QLatin1String("has_more")).toBool() || data.isEmpty()) {
            complete = true;
            break;
        }
        startingAfter = data.last().toObject().value(QLatin1String("id")).toString();
    }
    if (matches.isEmpty()) {
        if (!complete) {
            lookup.result = ProviderLookup::Result::Error;
            lookup.httpStatus = lastStatus;
            lookup.excerpt = QStringLiteral("%1 has more than %2 refunds; none of the first %3 carries %4=%5")
                                 .arg(action.targetId).arg(m_config.maxListPages * 100).arg(scanned)
                                 .arg(kActionMetadata, action.id);
            return search;
        }
        lookup.result = ProviderLookup::Result::NotFound;
        lookup.httpStatus = lastStatus;
        lookup.excerpt = QStringLiteral("none of the %1 visible refunds of %2 carries %3=%4")
                             .arg(scanned).arg(action.targetId, kActionMetadata, action.id);
        return search;
    }
    fillFound(lookup, matches.first(), lastStatus);
    QStringList ids;
    for (const QJsonObject &match : std::as_const(matches)) {
        ids << match.value(QLatin1String("id")).toString();
        RefundSighting seen;
        seen.refundId = match.value(QLatin1String("id")).toString();
        seen.status = match.value(QLatin1String("status")).toString();
        seen.amount = match.value(QLatin1String("amount")).toInteger();
        seen.currency = match.value(QLatin1String("currency")).toString().toLower();
        seen.chargeId = idOf(match.value(QLatin1String("charge")));
        seen.paymentIntentId = idOf(match.value(QLatin1String("payment_intent")));
        seen.source = QStringLiteral("list of %1's refunds").arg(action.targetId);
        search.sightings << seen;
    }
    QString excerpt = QStringLiteral("%1 (%2 %3 %4)").arg(lookup.providerObjectId, lookup.status)
                          .arg(lookup.amount).arg(lookup.currency);
    if (matches.size() > 1)
        excerpt = QStringLiteral("%1 refunds carry %2=%3: %4")
                      .arg(matches.size()).arg(kActionMetadata, action.id, ids.join(QStringLiteral(", ")));
    if (!complete)
        excerpt += QStringLiteral("; listing stopped after %1 pages").arg(m_config.maxListPages);
    lookup.excerpt = excerptOf(excerpt);
    return search;
}

ProviderLookup StripeClient::findRefundForAction(const ActionRecord &action, const QString &askedBy)
{
    return searchRefundsForAction(action, askedBy).lookup;
}

ProviderLookup StripeClient::retrieveRefund(const ActionRecord &action, const QString &refundId, const QString &askedBy)
{
    ProviderLookup lookup = baseLookup(action, ProviderLookup::Method::RetrieveRefund, askedBy);
    if (refundId.isEmpty() || refundId.contains(QLatin1Char('/')) || refundId.contains(QLatin1Char('?'))) {
        lookup.excerpt = QStringLiteral("not a refund id: \"%1\"").arg(refundId.left(64));
        return lookup;
    }
    const HttpAnswer answer = perform("GET", endpoint(QStringLiteral("/v1/refunds/") + refundId), {}, {},
                                      m_config.lookupTimeout, action.id);
    if (answer.answered && answer.status == 404) {
        lookup.result = ProviderLookup::Result::NotFound;
        lookup.httpStatus = 404;
        lookup.excerpt = excerptOf(answer.body);
        return lookup;
    }
    const QJsonObject refund = jsonObject(answer.body);
    if (!answer.answered || answer.status != 200 || refund.value(QLatin1String("object")).toString() != u"refund") {
        fillError(lookup, answer, QStringLiteral("retrieving %1").arg(refundId));
        return lookup;
    }
    if (metadataActionId(refund) != action.id) {
        lookup.result = ProviderLookup::Result::Error;
        lookup.httpStatus = answer.status;
        lookup.excerpt = QStringLiteral("%1 exists but carries %2=\"%3\", not %4")
                             .arg(refundId, kActionMetadata, metadataActionId(refund), action.id);
        return lookup;
    }
    fillFound(lookup, refund, answer.status);
    lookup.excerpt = QStringLiteral("%1 (%2 %3 %4)").arg(lookup.providerObjectId, lookup.status)
                         .arg(lookup.amount).arg(lookup.currency);
    return lookup;
}

ProviderLookup StripeClient::findRefundInEvents(const ActionRecord &action, const QString &askedBy)
{
    ProviderLookup lookup = baseLookup(action, ProviderLookup::Method::Events, askedBy);
    QString startingAfter;
    int scanned = 0;
    int lastStatus = 0;
    for (int page = 0; page < m_config.maxListPages; ++page) {
        QUrl url = endpoint(QStringLiteral("/v1/events"));
        QUrlQuery query;
        query.addQueryItem(QStringLiteral("type"), QStringLiteral("refund.*"));
        query.addQueryItem(QStringLiteral("limit"), QStringLiteral("100"));
        if (!startingAfter.isEmpty())
            query.addQueryItem(QStringLiteral("starting_after"), startingAfter);
        url.setQuery(query);
        const HttpAnswer answer = perform("GET", url, {}, {}, m_config.lookupTimeout, action.id);
        lastStatus = answer.status;
        const QJsonObject list = jsonObject(answer.body);
        if (!answer.answered || answer.status != 200 || list.value(QLatin1String("object")).toString() != u"list") {
            fillError(lookup, answer, QStringLiteral("reading refund events"));
            return lookup;
        }
        const QJsonArray data = list.value(QLatin1String("data")).toArray();
        for (const QJsonValue &value : data) {
            ++scanned;
            const QJsonObject event = value.toObject();
            const QJsonObject refund = event.value(QLatin1String("data")).toObject().value(QLatin1String("object")).toObject();
            if (refund.value(QLatin1String("object")).toString() == u"refund" && metadataActionId(refund) == action.id) {
                // Newest first: the first match is the refund's latest known state.
                fillFound(lookup, refund, answer.status);
                lookup.excerpt = QStringLiteral("event %1 %2: %3 (%4 %5 %6)")
                                     .arg(event.value(QLatin1String("id")).toString(),
                                          event.value(QLatin1String("type")).toString(), lookup.providerObjectId,
                                          lookup.status)
                                     .arg(lookup.amount)
                                     .arg(lookup.currency);
                return lookup;
            }
        }
        if (!list.value(QLatin1String("has_more")).toBool() || data.isEmpty()) {
            lookup.result = ProviderLookup::Result::NotFound;
            lookup.httpStatus = lastStatus;
            lookup.excerpt = QStringLiteral("none of %1 visible refund events carries %2=%3")
                                 .arg(scanned).arg(kActionMetadata, action.id);
            return lookup;
        }
        startingAfter = data.last().toObject().value(QLatin1String("id")).toString();
    }
    lookup.result = ProviderLookup::Result::Error;
    lookup.httpStatus = lastStatus;
    lookup.excerpt = QStringLiteral("more than %1 refund events; none of the first %2 carries %3=%4")
                         .arg(m_config.maxListPages * 100).arg(scanned).arg(kActionMetadata, action.id);
    return lookup;
}

// --- the provider's view of a charge ------------------------------------------------------------

namespace {

// Stripe's ids are letters, digits and underscores; anything else would change the URL's path.
bool isPlainId(const QString &id)
{
    if (id.isEmpty() || id.size() > 255)
        return false;
    return std::all_of(id.cbegin(), id.cend(), [](QChar c) {
        return (c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z') || (c >= u'0' && c <= u'9') || c == u'_';
    });
}

bool isResourceMissing(const StripeClient::HttpAnswer &answer)
{
    return answer.answered && answer.status == 404
        && jsonObject(answer.body).value(QLatin1String("error")).toObject().value(QLatin1String("code")).toString()
               == u"resource_missing";
}

QDateTime unixTime(const QJsonValue &value)
{
    return value.isDouble() ? QDateTime::fromSecsSinceEpoch(value.toInteger(), Qt::UTC) : QDateTime();
}

// A non-negative integer amount, or -1.
qint64 amountOf(const QJsonObject &object, QLatin1String key)
{
    const QJsonValue value = object.value(key);
    const qint64 n = value.toInteger(-1);
    return value.isDouble() && n == value.toInteger(-2) && n >= 0 ? n : -1;
}

// Appends the refunds of one list page; false when an item is not a refund with an id and amount.
bool appendRefunds(QList<ChargeSnapshot::Refund> &out, const QJsonArray &data)
{
    for (const QJsonValue &value : data) {
        const QJsonObject refund = value.toObject();
        ChargeSnapshot::Refund r;
        r.id = refund.value(QLatin1String("id")).toString();
        r.amount = amountOf(refund, QLatin1String("amount"));
        if (refund.value(QLatin1String("object")).toString() != u"refund" || r.id.isEmpty() || r.amount < 0)
            return false;
        r.status = refund.value(QLatin1String("status")).toString();
        r.created = unixTime(refund.value(QLatin1String("created")));
        r.actionId = metadataActionId(refund);
        out.append(r);
    }
    return true;
}

} // namespace

ChargeSnapshot StripeClient::retrieveCharge(TargetType targetType, const QString &targetId, const QString &askedBy)
{
    ChargeSnapshot s;
    s.targetType = targetType;
    s.targetId = targetId;
    s.askedBy = askedBy;
    s.result = ChargeSnapshot::Result::Error;
    auto finish = [&](ChargeSnapshot::Result result, int status, const QString &excerpt) {
        if (result != ChargeSnapshot::Result::Found) {
            // Nothing half-read survives a failure: only who asked about what, and why it failed.
            ChargeSnapshot bare;
            bare.targetType = s.targetType;
            bare.targetId = s.targetId;
            bare.chargeId = s.chargeId;
            bare.paymentIntentId = s.paymentIntentId;
            bare.askedBy = s.askedBy;
            s = bare;
        }
        s.result = result;
        s.httpStatus = status;
        s.excerpt = excerptOf(excerpt);
        s.readAt = QDateTime::currentDateTimeUtc();
        qCInfo(lcProvider) << "charge" << targetId << "asked by" << askedBy << "->" << toWire(result) << status;
        return s;
    };
    auto failed = [&](const HttpAnswer &answer, const QString &what) {
        if (isResourceMissing(answer))
            return finish(ChargeSnapshot::Result::NotFound, 404, excerptOf(answer.body));
        return finish(ChargeSnapshot::Result::Error, answer.status, errorExcerpt(answer, what));
    };
    if (!isPlainId(targetId))
        return finish(ChargeSnapshot::Result::Error, 0, QStringLiteral("not a provider id: \"%1\"").arg(targetId.left(64)));

    s.chargeId = targetId;
    if (targetType == TargetType::PaymentIntent) {
        s.paymentIntentId = targetId;
        const HttpAnswer answer = perform("GET", endpoint(QStringLiteral("/v1/payment_intents/") + targetId), {}, {},
                                          m_config.lookupTimeout);
        const QJsonObject intent = jsonObject(answer.body);
        if (!answer.answered || answer.status != 200 || intent.value(QLatin1String("object")).toString() != u"payment_intent")
            return failed(answer, QStringLiteral("retrieving %1").arg(targetId));
        s.chargeId = idOf(intent.value(QLatin1String("latest_charge")));
        if (s.chargeId.isEmpty())
            return finish(ChargeSnapshot::Result::NotFound, answer.status,
                          QStringLiteral("%1 has no charge (status %2)")
                              .arg(targetId, intent.value(QLatin1String("status")).toString()));
        if (!isPlainId(s.chargeId))
            return finish(ChargeSnapshot::Result::Error, answer.status,
                          QStringLiteral("%1's latest_charge is not a charge id: \"%2\"").arg(targetId, s.chargeId.left(64)));
    }

    QUrl url = endpoint(QStringLiteral("/v1/charges/") + s.chargeId);
    url.setQuery(QStringLiteral("expand[]=refunds"));
    const HttpAnswer answer = perform("GET", url, {}, {}, m_config.lookupTimeout);
    const QJsonObject charge = jsonObject(answer.body);
    if (!answer.answered || answer.status != 200 || charge.value(QLatin1String("object")).toString() != u"charge")
        return failed(answer, QStringLiteral("retrieving %1").arg(s.chargeId));
    s.amount = amountOf(charge, QLatin1String("amount"));
    s.amountCaptured = amountOf(charge, QLatin1String("amount_captured"));
    s.amountRefunded = amountOf(charge, QLatin1String("amount_refunded"));
    if (s.amount < 0 || s.amountCaptured < 0 || s.amountRefunded < 0) {
        s.amount = s.amountCaptured = s.amountRefunded = 0;
        return finish(ChargeSnapshot::Result::Error, answer.status,
                      QStringLiteral("%1: amounts are not non-negative integers: %2").arg(s.chargeId, excerptOf(answer.body)));
    }
    if (s.paymentIntentId.isEmpty())
        s.paymentIntentId = idOf(charge.value(QLatin1String("payment_intent")));
    s.currency = charge.value(QLatin1String("currency")).toString().toLower();
    s.created = unixTime(charge.value(QLatin1String("created")));
    s.disputed = charge.value(QLatin1String("disputed")).toBool();
    const QJsonObject card = charge.value(QLatin1String("payment_method_details")).toObject()
                                 .value(QLatin1String("card")).toObject();
    s.paymentMethodBrand = card.value(QLatin1String("brand")).toString();
    s.paymentMethodLast4 = card.value(QLatin1String("last4")).toString();

    // The expanded list holds the newest refunds (10 on Stripe); the rest are paged from
    // /v1/refunds. A charge read without its refunds (an API that ignored expand) is paged from
    // the start.
    const QJsonValue expanded = charge.value(QLatin1String("refunds"));
    bool hasMore = true;
    if (expanded.isObject()) {
        const QJsonObject list = expanded.toObject();
        if (!appendRefunds(s.refunds, list.value(QLatin1String("data")).toArray()))
            return finish(ChargeSnapshot::Result::Error, answer.status,
                          QStringLiteral("%1: an expanded refund is malformed").arg(s.chargeId));
        hasMore = list.value(QLatin1String("has_more")).toBool() && !s.refunds.isEmpty();
    }
    int lastStatus = answer.status;
    for (int page = 0; hasMore; ++page) {
        if (page == m_config.maxListPages)
            return finish(ChargeSnapshot::Result::Error, lastStatus,
                          QStringLiteral("%1 has more refunds than %2 pages of 100 hold (%3 read): the list is incomplete")
                              .arg(s.chargeId).arg(m_config.maxListPages).arg(s.refunds.size()));
        QUrl listUrl = endpoint(QStringLiteral("/v1/refunds"));
        QUrlQuery query;
        query.addQueryItem(QStringLiteral("charge"), s.chargeId);
        query.addQueryItem(QStringLiteral("limit"), QStringLiteral("100"));
        if (!s.refunds.isEmpty())
            query.addQueryItem(QStringLiteral("starting_after"), s.refunds.last().id);
        listUrl.setQuery(query);
        const HttpAnswer more = perform("GET", listUrl, {}, {}, m_config.lookupTimeout);
        lastStatus = more.status;
        const QJsonObject list = jsonObject(more.body);
        // A 404 here (an unknown cursor) is not the charge missing: ERROR, never NOT_FOUND.
        if (!more.answered || more.status != 200 || list.value(QLatin1String("object")).toString() != u"list")
            return finish(ChargeSnapshot::Result::Error, more.status,
                          errorExcerpt(more, QStringLiteral("listing refunds of %1").arg(s.chargeId)));
        const QJsonArray data = list.value(QLatin1String("data")).toArray();
        if (!appendRefunds(s.refunds, data))
            return finish(ChargeSnapshot::Result::Error, more.status,
                          QStringLiteral("listing refunds of %1: a refund is malformed").arg(s.chargeId));
        hasMore = list.value(QLatin1String("has_more")).toBool() && !data.isEmpty();
    }
    return finish(ChargeSnapshot::Result::Found, lastStatus, QString());
}

} // namespace cs
