#include "client/apiclient.h"
#include "client/backendurl.h"
#include "client/clientlog.h"
#include "client/tlstrust.h"

#include <QJsonDocument>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QUuid>

namespace cs {

namespace {

qint64 parseEtag(const QByteArray &header)
{
    QByteArray tag = header.trimmed();
    if (tag.startsWith("W/"))
        tag.remove(0, 2);
    if (tag.size() < 3 || !tag.startsWith('"') || !tag.endsWith('"'))
        return -1;
    bool ok = false;
    const qint64 value = tag.mid(1, tag.size() - 2).toLongLong(&ok);
    return ok ? value : -1;
}

} // namespace

// ---- ApiCall ------------------------------------------------------------------------------

ApiCall::ApiCall(ApiClient *client)
    : QObject(client)
    , m_client(client)
{
    m_resendTimer.setSingleShot(true);
    connect(&m_resendTimer, &QTimer::timeout, this, [this] {
        if (m_client && !m_finished)
            m_client->send(this);
    });
}

void ApiCall::abandon()
{
    if (m_finished)
        return;
    m_resendTimer.stop();
    if (m_reply) {
        QNetworkReply *reply = m_reply;
        m_reply = nullptr;
        reply->disconnect(this);
        reply->abort();
        reply->deleteLater();
    }
    m_response = ApiResponse();
    m_response.error = ApiError::cancelled();
    if (m_client)
        m_client->finish(this);
}

// ---- ApiClient ----------------------------------------------------------------------------

ApiClient::ApiClient(QObject *parent)
    : QObject(parent)
{
    m_probeTimer.setSingleShot(true);
    connect(&m_probeTimer, &QTimer::timeout, this, &ApiClient::probe);
}

ApiClient::~ApiClient() = default;

void ApiClient::setBaseUrl(const QUrl &url)
{
    m_baseUrl = backendRoot(url);
}

void ApiClient::setToken(const QString &token)
{
    m_token = token.trimmed();
}

void ApiClient::setResendPolicy(std::chrono::milliseconds initial, std::chrono::milliseconds max, int maxSends)
{
    m_resendInitialMs = int(initial.count());
    m_resendMaxMs = int(max.count());
    m_maxSends = maxSends;
}

void ApiClient::setProbeInterval(std::chrono::milliseconds initial, std::chrono::milliseconds max)
{
    m_probeInitialMs = int(initial.count());
    m_probeMaxMs = int(max.count());
    m_probeDelayMs = m_probeInitialMs;
}

QString ApiClient::mintIdempotencyKey()
{
    return QUuid::createUuid().toString(QUuid::WithoutBraces);
}

QUrl ApiClient::urlFor(const QString &path, const QUrlQuery &query) const
{
    QUrl url = m_baseUrl;
    url.setPath(m_baseUrl.path() + QStringLiteral("/api/v1") + path);
    if (!query.isEmpty())
        url.setQuery(query);
    return url;
}

ApiCall *ApiClient::get(const QString &path, const QUrlQuery &query)
{
    auto *call = new ApiCall(this);
    call->m_method = QStringLiteral("GET");
    call->m_path = path;
    call->m_query = query;
    call->m_deadlineMs = m_deadlineMs;
    send(call);
    return call;
}

ApiCall *ApiClient::health()
{
    return get(QStringLiteral("/health"));
}

ApiCall *ApiClient::me()
{
    return get(QStringLiteral("/me"));
}

ApiCall *ApiClient::listActions(const ActionQuery &query, const QString &cursor, int limit)
{
    QUrlQuery q;
    const QString states = query.stateParameter();
    if (!states.isEmpty())
        q.addQueryItem(QStringLiteral("state"), states);
    const QString search = query.search.trimmed();
    if (!search.isEmpty())
        q.addQueryItem(QStringLiteral("q"), QString::fromLatin1(QUrl::toPercentEncoding(search)));
    if (const QString settlement = query.settlementParameter(); !settlement.isEmpty())
        q.addQueryItem(QStringLiteral("settlement"), settlement);
    if (const QString discrepancy = query.discrepancyParameter(); !discrepancy.isEmpty())
        q.addQueryItem(QStringLiteral("discrepancy"), discrepancy);
    if (const QString awaiting = query.awaitingParameter(); !awaiting.isEmpty())
        q.addQueryItem(QStringLiteral("awaiting"), awaiting);
    const QString sort = query.sortParameter();
    if (!sort.isEmpty())
        q.addQueryItem(QStringLiteral("sort"), sort);
    if (!cursor.isEmpty())
        q.addQueryItem(QStringLiteral("cursor"), QString::fromLatin1(QUrl::toPercentEncoding(cursor)));
    q.addQueryItem(QStringLiteral("limit"), QString::number(limit));
    return get(QStringLiteral("/actions"), q);
}

ApiCall *ApiClient::action(const QString &actionId)
{
    return get(QStringLiteral("/actions/") + QString::fromLatin1(QUrl::toPercentEncoding(actionId)));
}

ApiCall *ApiClient::executionState()
{
    return get(QStringLiteral("/execution"));
}

ApiCall *ApiClient::charge(const QString &chargeOrIntentId)
{
    return get(QStringLiteral("/charges/") + QString::fromLatin1(QUrl::toPercentEncoding(chargeOrIntentId)));
}

ApiCall *ApiClient::post(const QString &path, const QJsonObject &body, qint64 ifMatch, const QString &key,
                         int deadlineMs)
{
    auto *call = new ApiCall(this);
    call->m_method = QStringLiteral("POST");
    call->m_path = path;
    call->m_mutation = true;
    call->m_hasBody = true;
    call->m_body = QJsonDocument(body).toJson(QJsonDocument::Compact);
    call->m_ifMatch = ifMatch;
    call->m_idempotencyKey = key.isEmpty() ? mintIdempotencyKey() : key;
    call->m_deadlineMs = deadlineMs > 0 ? deadlineMs : m_deadlineMs;
    send(call);
    return call;
}

ApiCall *ApiClient::propose(const QJsonObject &proposal, const QString &key)
{
    return post(QStringLiteral("/actions"), proposal, -1, key);
}

static QString actionPath(const QString &actionId, const char *what)
{
    return QStringLiteral("/actions/") + QString::fromLatin1(QUrl::toPercentEncoding(actionId))
        + QLatin1Char('/') + QLatin1String(what);
}

ApiCall *ApiClient::approve(const QString &actionId, qint64 ifMatch, const QString &note, const QString &key)
{
    return post(actionPath(actionId, "approvals"), QJsonObject{ { QStringLiteral("note"), note } }, ifMatch, key);
}

ApiCall *ApiClient::reject(const QString &actionId, qint64 ifMatch, const QString &reason, const QString &note,
                           const QString &key)
{
    return post(actionPath(actionId, "rejections"),
                QJsonObject{ { QStringLiteral("reason"), reason }, { QStringLiteral("note"), note } }, ifMatch, key);
}

ApiCall *ApiClient::lookUp(const QString &actionId, qint64 ifMatch, const QString &key)
{
    return post(actionPath(actionId, "lookups"), QJsonObject(), ifMatch, key, qMax(m_lookupDeadlineMs, m_deadlineMs));
}

ApiCall *ApiClient::readCharge(const QString &actionId, const QString &key)
{
    return post(actionPath(actionId, "charge-lookups"), QJsonObject(), -1, key, qMax(m_lookupDeadlineMs, m_deadlineMs));
}

ApiCall *ApiClient::lookUpCharge(const QString &chargeOrIntentId, const QString &key)
{
    return post(QStringLiteral("/charges/%1/lookups").arg(QString::fromLatin1(QUrl::toPercentEncoding(chargeOrIntentId))),
                QJsonObject(), -1, key, qMax(m_lookupDeadlineMs, m_deadlineMs));
}

ApiCall *ApiClient::reconcile(const QString &actionId, qint64 ifMatch, bool committed, int evidenceLookupSeq,
                              const QString &note, const QString &key)
{
    QJsonObject body{
        { QStringLiteral("outcome"), committed ? QStringLiteral("committed") : QStringLiteral("not_committed") },
        { QStringLiteral("note"), note },
    };
    if (evidenceLookupSeq > 0)
        body.insert(QStringLiteral("evidence_lookup_seq"), evidenceLookupSeq);
    return post(actionPath(actionId, "reconciliations"), body, ifMatch, key);
}

ApiCall *ApiClient::followUp(const QString &actionId, qint64 ifMatch, qint64 desiredTotalAmount,
                             const QString &note, const QString &key)
{
    const QJsonObject body{
        { QStringLiteral("desired_total_amount"), QJsonValue(desiredTotalAmount) },
        { QStringLiteral("note"), note },
    };
    return post(actionPath(actionId, "follow-ups"), body, ifMatch, key);
}

ApiCall *ApiClient::closeSettlement(const QString &actionId, qint64 ifMatch, const QString &note, const QString &key)
{
    return post(actionPath(actionId, "settlement/close"), QJsonObject{ { QStringLiteral("note"), note } }, ifMatch, key);
}

ApiCall *ApiClient::pauseExecution(ExecutionPause::Scope scope, const QString &name, const QString &reason,
                                   const QString &key)
{
    QJsonObject body{ { QStringLiteral("scope"), toWire(scope) }, { QStringLiteral("reason"), reason } };
    if (scope == ExecutionPause::Scope::Agent)
        body.insert(QStringLiteral("agent"), name);
    else if (scope == ExecutionPause::Scope::Account)
        body.insert(QStringLiteral("account"), name);
    return post(QStringLiteral("/execution/pauses"), body, -1, key);
}

ApiCall *ApiClient::resumeExecution(const QString &pauseId, const QString &note, const QString &key)
{
    QJsonObject body;
    if (!note.isEmpty())
        body.insert(QStringLiteral("note"), note);
    return post(QStringLiteral("/execution/pauses/") + QString::fromLatin1(QUrl::toPercentEncoding(pauseId))
                    + QStringLiteral("/resume"),
                body, -1, key);
}

void ApiClient::send(ApiCall *call)
{
    m_waiting.removeAll(call);
    QNetworkRequest request = newRequest(call->m_path, call->m_query);
    request.setRawHeader("Accept", "application/json, application/problem+json");
    request.setRawHeader("User-Agent", "countersign/" COUNTERSIGN_VERSION);
    if (!m_token.isEmpty())
        request.setRawHeader("Authorization", "Bearer " + m_token.toUtf8());
    request.setAttribute(QNetworkRequest::CacheLoadControlAttribute, QNetworkRequest::AlwaysNetwork);
    // The deadline is ours (a timer); the transfer timeout is only an idle timeout.
    request.setTransferTimeout(0);

    QNetworkReply *reply = nullptr;
    if (call->m_mutation) {
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
        request.setRawHeader("Idempotency-Key", call->m_idempotencyKey.toLatin1());
        if (call->m_ifMatch >= 0)
            request.setRawHeader("If-Match", '"' + QByteArray::number(call->m_ifMatch) + '"');
        reply = m_nam.post(request, call->m_body);
    } else {
        reply = m_nam.get(request);
    }
    rememberSslErrors(reply);
    ++call->m_sendCount;
    call->m_reply = reply;
    qCDebug(lcClient) << call->m_method << request.url().toDisplayString() << "send" << call->m_sendCount
                      << "key" << call->m_idempotencyKey;

    auto *deadline = new QTimer(reply);
    deadline->setSingleShot(true);
    auto timedOut = std::make_shared<bool>(false);
    connect(deadline, &QTimer::timeout, reply, [reply, timedOut] {
        *timedOut = true;
        reply->abort();
    });
    deadline->start(call->m_deadlineMs);
    connect(reply, &QNetworkReply::finished, call, [this, call, reply, timedOut] {
        onReplyFinished(call, reply, *timedOut);
    });
}

QNetworkRequest ApiClient::newRequest(const QString &path, const QUrlQuery &query) const
{
    QNetworkRequest request(urlFor(path, query));
    request.setSslConfiguration(m_ssl);
    return request;
}

void ApiClient::onReplyFinished(ApiCall *call, QNetworkReply *reply, bool timedOut)
{
    reply->deleteLater();
    if (call->m_reply != reply)
        return; // abandoned
    call->m_reply = nullptr;

    ApiResponse response;
    const QVariant status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute);
    const QNetworkReply::NetworkError netError = reply->error();
    if (timedOut || netError == QNetworkReply::TimeoutError
        || (netError == QNetworkReply::OperationCanceledError && !status.isValid())) {
        response.error = ApiError::timeout(call->m_deadlineMs);
    } else if (!status.isValid()) {
        response.error = ApiError::transport(failureText(reply));
    } else {
        response.httpStatus = status.toInt();
        const QByteArray body = reply->readAll();
        response.etag = parseEtag(reply->rawHeader("ETag"));
        response.replayed = reply->rawHeader("Idempotent-Replayed").trimmed().toLower() == "true";
        response.location = QString::fromUtf8(reply->rawHeader("Location"));
        if (response.httpStatus >= 200 && response.httpStatus < 300) {
            QJsonParseError parseError;
            response.body = body.isEmpty() ? QJsonDocument() : QJsonDocument::fromJson(body, &parseError);
            if (!body.isEmpty() && parseError.error != QJsonParseError::NoError)
                response.error = ApiError::protocol(parseError.errorString());
        } else {
            response.error = ApiError::fromHttp(response.httpStatus, body,
                                                reply->rawHeader("Retry-After").toInt());
            response.body = QJsonDocument(response.error.problem);
        }
    }
    call->m_response = response;
    m_lastTransportError = response.error.kind == ApiError::Kind::Transport ? response.error.message : QString();

    if (response.error.responseLost())
        setConnectionState(ConnectionState::Offline);
    else
        setConnectionState(ConnectionState::Online);
    if (response.httpStatus == 401)
        emit unauthorized();

    qCDebug(lcClient) << call->m_method << call->m_path << "->" << response.httpStatus
                      << (response.replayed ? "replayed" : "") << response.error.userText();

    if (call->m_mutation && response.error.isTransient()
        && (m_maxSends == 0 || call->m_sendCount < m_maxSends)) {
        qCInfo(lcClient) << "resending" << call->m_path << "with the same Idempotency-Key"
                         << call->m_idempotencyKey << "after" << response.error.userText();
        emit call->resending(call->m_sendCount, response.error);
        emit mutationResending(call->m_path, call->m_sendCount);
        scheduleResend(call);
        return;
    }
    finish(call);
}

void ApiClient::scheduleResend(ApiCall *call)
{
    int delay = m_resendInitialMs;
    for (int i = 1; i < call->m_sendCount && delay < m_resendMaxMs; ++i)
        delay *= 2;
    if (call->m_response.error.retryAfterSeconds > 0)
        delay = qMax(delay, call->m_response.error.retryAfterSeconds * 1000);
    delay = qMin(delay, m_resendMaxMs);
    call->m_resendTimer.start(delay);
    if (!m_waiting.contains(call))
        m_waiting.append(call);
}

void ApiClient::finish(ApiCall *call)
{
    if (call->m_finished)
        return;
    call->m_finished = true;
    m_waiting.removeAll(call);
    emit call->finished(call);
    call->deleteLater();
}

void ApiClient::setConnectionState(ConnectionState state)
{
    if (state == m_state)
        return;
    m_state = state;
    qCInfo(lcClient) << "backend" << m_baseUrl.toDisplayString() << "is" << state;
    if (state == ConnectionState::Offline) {
        startProbing();
    } else if (state == ConnectionState::Online) {
        m_probeTimer.stop();
        m_probeDelayMs = m_probeInitialMs;
        // Reachable again: waiting mutations go now, with their keys.
        const QList<QPointer<ApiCall>> waiting = m_waiting;
        for (const QPointer<ApiCall> &call : waiting) {
            if (call && !call->m_finished && call->m_resendTimer.isActive()) {
                call->m_resendTimer.stop();
                send(call);
            }
        }
    }
    emit connectionStateChanged(state);
}

void ApiClient::startProbing()
{
    if (!m_probeTimer.isActive() && !m_probeReply)
        m_probeTimer.start(m_probeDelayMs);
}

void ApiClient::markUnreachable(const QString &why)
{
    if (!why.isEmpty())
        m_lastTransportError = why;
    setConnectionState(ConnectionState::Offline);
}

void ApiClient::probeNow()
{
    m_probeTimer.stop();
    probe();
}

void ApiClient::probe()
{
    if (m_probeReply)
        return;
    QNetworkRequest request = newRequest(QStringLiteral("/health"), QUrlQuery());
    request.setAttribute(QNetworkRequest::CacheLoadControlAttribute, QNetworkRequest::AlwaysNetwork);
    QNetworkReply *reply = m_nam.get(request);
    rememberSslErrors(reply);
    m_probeReply = reply;
    auto *deadline = new QTimer(reply);
    deadline->setSingleShot(true);
    connect(deadline, &QTimer::timeout, reply, &QNetworkReply::abort);
    deadline->start(qMin(m_deadlineMs, 5000));
    connect(reply, &QNetworkReply::finished, this, [this, reply] {
        reply->deleteLater();
        m_probeReply = nullptr;
        const bool answered = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).isValid();
        m_lastTransportError = answered ? QString() : failureText(reply);
        if (answered) {
            setConnectionState(ConnectionState::Online);
            return;
        }
        m_probeDelayMs = qMin(m_probeDelayMs * 2, m_probeMaxMs);
        if (m_state == ConnectionState::Offline)
            m_probeTimer.start(m_probeDelayMs);
    });
}

} // namespace cs
